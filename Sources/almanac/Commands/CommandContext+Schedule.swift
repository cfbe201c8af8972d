import AlmanacWire
import Foundation

extension CommandContext {
    // MARK: Conferences

    /// The served conferences, fetched once.
    func catalog() throws(ClientError) -> ConferenceCatalog {
        if let cachedCatalog { return cachedCatalog }
        let fetch = WireRequest.Fetch(
            entity: "Conference", sort: [.init(key: "acronym")], properties: ConferenceRecord.properties)
        let objects = try send(.fetch(fetch), as: WireResponse.Fetch.self).objects
        let catalog = ConferenceCatalog(conferences: objects.compactMap(ConferenceRecord.init))
        cachedCatalog = catalog
        return catalog
    }

    /// The name of the conference given with `--conference` (resolved from a name, title or file name), or nil.
    ///
    /// - Throws: ``ClientError/unknownConference(_:known:)`` when it names no served conference.
    func conferenceName() throws(ClientError) -> String? {
        if let cachedConferenceName { return cachedConferenceName }
        let name = try conferenceArgument.map { text throws(ClientError) in try catalog().resolve(text) }
        cachedConferenceName = .some(name)
        return name
    }

    /// The zone conference days are read in: the conference's zone (the one given, else the one all served
    /// conferences share), else the machine's. `--utc` and `--tz` do not change it: they change how times are
    /// shown, never which day a session is on.
    func dayZone(conference: String?) throws(ClientError) -> TimeZone {
        try catalog().sharedZone(conference: conference) ?? display.fallback
    }

    /// The zone of a conference by name, when known (for values that do not carry `conference.timeZone`).
    func zone(ofConference name: String?) -> TimeZone? {
        guard let name else { return nil }
        return (try? catalog())?.zone(of: name)
    }

    // MARK: Sessions

    /// Sessions matching `predicate` (with `conference.acronym == $CONFERENCE` added when given), by start time.
    ///
    /// - Parameters:
    ///   - conference: A conference's name, as ``conferenceName()`` resolves it.
    ///   - properties: The key paths to fetch (``SessionSummary/properties`` and any more a command shows).
    func sessions(
        predicate: String?,
        variables: JSONObject = [:],
        conference: String? = nil,
        limit: Int? = nil,
        properties: [String] = SessionSummary.properties
    ) throws(ClientError) -> [SessionSummary] {
        var clauses: [String] = []
        var variables = variables
        if let predicate { clauses.append("(\(predicate))") }
        if let conference {
            clauses.append("conference.acronym == $CONFERENCE")
            variables["CONFERENCE"] = .string(conference)
        }
        let fetch = WireRequest.Fetch(
            entity: "Session",
            predicate: clauses.isEmpty ? nil : clauses.joined(separator: " AND "),
            variables: variables,
            sort: [.init(key: "start"), .init(key: "room.name")],
            limit: limit,
            properties: properties
        )
        return try send(.fetch(fetch), as: WireResponse.Fetch.self).objects.map(SessionSummary.init)
    }

    /// The sessions with these GUIDs.
    func sessions(
        guids: [String],
        conference: String? = nil,
        properties: [String] = SessionSummary.properties
    ) throws(ClientError) -> [SessionSummary] {
        guard !guids.isEmpty else { return [] }
        return try sessions(
            predicate: "guid IN $GUIDS", variables: ["GUIDS": .array(guids.map(JSONValue.string))],
            conference: conference, properties: properties)
    }

    /// A single session by GUID or URI.
    func session(named reference: String) throws(ClientError) -> SessionSummary {
        // A guid pasted from a listing may carry its line's end (CSV lines end in CRLF).
        let reference = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        if reference.contains("://") {
            let object = try send(.get(.init(uri: reference)), as: WireResponse.Get.self).object
            guard object.entity == "Session" else { throw .usage("\(reference) is a \(object.entity), not a Session") }
            let summary = SessionSummary(object)
            let found = try sessions(guids: [summary.guid])
            return found.first { $0.uri == summary.uri } ?? found.first ?? summary
        }
        let found = try sessions(predicate: "guid == $GUID", variables: ["GUID": .string(reference)])
        guard let session = found.first else { throw .notFound("no session with guid \(reference)") }
        return session
    }

    // MARK: Favourites

    /// The favourites (Favorite objects).
    func favoriteObjects() throws(ClientError) -> [WireObject] {
        try send(.fetch(.init(entity: "Favorite", sort: [.init(key: "createdAt")])), as: WireResponse.Fetch.self)
            .objects
    }

    /// The GUIDs of favourite sessions.
    func favoriteGUIDs() throws(ClientError) -> Set<String> {
        Set(try favoriteObjects().compactMap { $0.values["sessionGUID"]?.stringValue })
    }
}
