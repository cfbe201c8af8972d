import AlmanacWire
import Foundation
import Schedules

#if canImport(Glibc)
    import Glibc
#endif

/// Settings a user gives for the schedule files whose names match a glob (`files` in `almanacd.json`):
///
/// ```json
/// "files": {"fosdem*.xml": {"timeZone": "Europe/Brussels", "acronym": "fosdem21", "dayChange": "06:00"}}
/// ```
///
/// The first matching glob wins, in the order the file writes them. A setting that cannot be used (an unknown zone, a
/// time that is not `HH:MM`) is kept with its ``error``: the files it matches keep their earlier reading and
/// `stores` shows the error beside them.
public struct FileSettings: Sendable, Equatable {
    /// The glob on the file's name (`fnmatch(3)`: `*`, `?`, `[…]`).
    public var pattern: String
    /// The IANA zone for a file that names none.
    public var timeZone: String?
    /// The conference name to use instead of the file's acronym.
    public var acronym: String?
    /// Where a conference day ends when the file gives no day windows, `HH:MM`.
    public var dayChange: String?
    /// Why these settings cannot be used, or nil.
    public var error: String?

    /// Settings for one glob, checked.
    public init(pattern: String, timeZone: String? = nil, acronym: String? = nil, dayChange: String? = nil) {
        self.pattern = pattern
        self.timeZone = timeZone
        self.acronym = acronym
        self.dayChange = dayChange
        var problems: [String] = []
        if let timeZone, TimeZone(identifier: timeZone) == nil || timeZone.isEmpty {
            problems.append("\"timeZone\": \(timeZone) is not an IANA time zone name (such as Europe/Brussels)")
        }
        if let acronym, acronym.trimmingCharacters(in: .whitespaces).isEmpty {
            problems.append("\"acronym\" must not be empty")
        }
        if let dayChange, Self.seconds(ofClock: dayChange) == nil {
            problems.append("\"dayChange\": \(dayChange) is not a time of day (HH:MM)")
        }
        error = problems.isEmpty ? nil : "settings for \"\(pattern)\": " + problems.joined(separator: "; ")
    }

    /// Whether the glob matches a file's name (its last path component).
    public func matches(_ url: URL) -> Bool {
        fnmatch(pattern, url.lastPathComponent, 0) == 0
    }

    /// The reader settings these give, or nil when they cannot be used.
    public var readerConfiguration: ScheduleReaderConfiguration? {
        guard error == nil else { return nil }
        return ScheduleReaderConfiguration(
            timeZone: timeZone.flatMap(TimeZone.init(identifier:)), acronym: acronym,
            dayChange: dayChange.flatMap(Self.seconds(ofClock:)))
    }

    /// `HH:MM` or `HH:MM:SS` as seconds after midnight.
    static func seconds(ofClock text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        var seconds = hours * 3600 + minutes * 60
        if parts.count == 3 {
            guard let extra = Int(parts[2]), (0..<60).contains(extra) else { return nil }
            seconds += extra
        }
        return seconds
    }

    /// The `files` member of the configuration file, in order.
    ///
    /// - Throws: ``ConfigurationError`` when `files` is not an object of objects with string values; a value that
    ///   is a string but not usable (unknown zone, bad time) is no error here, it is kept in ``error``.
    static func list(from value: JSONValue, file: String) throws -> [FileSettings] {
        guard case .object(let globs) = value else {
            throw ConfigurationError(message: "\"files\" in \(file) must map file-name globs to settings objects")
        }
        var list: [FileSettings] = []
        for (pattern, settings) in globs.members {
            guard case .object(let fields) = settings else {
                throw ConfigurationError(message: "\"files\".\"\(pattern)\" in \(file) must be an object")
            }
            var strings: [String: String] = [:]
            for (key, value) in fields.members {
                guard ["timeZone", "acronym", "dayChange"].contains(key) else {
                    throw ConfigurationError(
                        message: "\"files\".\"\(pattern)\" in \(file) has an unknown setting \"\(key)\" "
                            + "(known: timeZone, acronym, dayChange)")
                }
                guard case .string(let text) = value else {
                    throw ConfigurationError(message: "\"files\".\"\(pattern)\".\(key) in \(file) must be a string")
                }
                strings[key] = text
            }
            list.append(
                FileSettings(
                    pattern: pattern, timeZone: strings["timeZone"], acronym: strings["acronym"],
                    dayChange: strings["dayChange"]))
        }
        return list
    }
}

extension Array where Element == FileSettings {
    /// The first settings whose glob matches the file, if any.
    func first(matching url: URL) -> FileSettings? {
        first { $0.matches(url) }
    }
}
