import AlmanacWire
import Foundation

/// A served conference as the client needs it: the name sessions carry (`conference.acronym`), the title, the
/// file it was read from and its zone.
struct ConferenceRecord: Sendable, Hashable {
    /// The conference's name: its acronym, else a slug of its title or file name (`38c3`, `jres-2021-22`).
    var name: String
    var title: String?
    /// The schedule file's name.
    var source: String?
    /// The zone as the daemon names it (`Europe/Berlin`, `+01:00`, `UTC`).
    var timeZoneName: String?

    /// The keys the client fetches.
    static let properties = ["acronym", "title", "source", "timeZone"]

    init(name: String, title: String? = nil, source: String? = nil, timeZoneName: String? = nil) {
        self.name = name
        self.title = title
        self.source = source
        self.timeZoneName = timeZoneName
    }

    init?(_ object: WireObject) {
        guard let name = object.values["acronym"]?.stringValue, !name.isEmpty else { return nil }
        self.init(
            name: name,
            title: object.values["title"]?.stringValue,
            source: object.values["source"]?.stringValue,
            timeZoneName: object.values["timeZone"]?.stringValue
        )
    }

    var timeZone: TimeZone? { timeZoneName.flatMap(ConferenceZone.timeZone(named:)) }
}

/// The served conferences, fetched once per command: resolves what a person types after `--conference` to the
/// conference's name, and knows each conference's zone.
struct ConferenceCatalog: Sendable {
    var conferences: [ConferenceRecord]

    /// The served names, sorted, each once.
    var names: [String] {
        Set(conferences.map(\.name)).sorted { $0.localizedStandardCompare($1) == .orderedAscending }
    }

    /// The name of the conference `text` names: its name (acronym), else its title, else its file name (with or
    /// without the extension), compared case-insensitively, in that order.
    ///
    /// - Throws: ``ClientError/unknownConference(_:known:)`` when nothing matches; ``ClientError/usage(_:)`` when
    ///   several conferences match equally (two with the same title).
    func resolve(_ text: String) throws(ClientError) -> String {
        let wanted = Self.folded(text)
        let stages: [(ConferenceRecord) -> Bool] = [
            { Self.folded($0.name) == wanted },
            { $0.title.map(Self.folded) == wanted },
            { record in
                guard let source = record.source else { return false }
                let file = (source as NSString).lastPathComponent
                return [source, file, (file as NSString).deletingPathExtension].map(Self.folded).contains(wanted)
            },
        ]
        for matches in stages {
            let names = Set(conferences.filter(matches).map(\.name)).sorted()
            if names.count == 1 { return names[0] }
            if names.count > 1 {
                throw .usage(
                    "\"\(text)\" names several conferences (\(names.joined(separator: ", "))); use one of these names")
            }
        }
        throw .unknownConference(text, known: names)
    }

    /// The zone of the named conference.
    func zone(of name: String) -> TimeZone? {
        conferences.first { $0.name == name }?.timeZone
    }

    /// The zone of `name`'s conference, or (nil) the one zone every served conference shares; nil when they differ
    /// or none is known.
    func sharedZone(conference name: String?) -> TimeZone? {
        let candidates = name.map { name in conferences.filter { $0.name == name } } ?? conferences
        let zones = Set(candidates.compactMap(\.timeZone))
        return zones.count == 1 ? zones.first : nil
    }

    private static func folded(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).folding(options: [.caseInsensitive], locale: nil)
    }
}
