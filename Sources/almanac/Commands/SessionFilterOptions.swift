import AlmanacWire
import ArgumentParser
import Foundation

/// The filters every session command takes: `--conference`, `--track`, `--room` and `--language`.
struct SessionFilterOptions: ParsableArguments {
    @Option(help: conferenceHelp) var conference: String?

    @Option(
        help: ArgumentHelp(
            "Only sessions in a track whose name contains this (any case; repeat for several).", valueName: "track"))
    var track: [String] = []

    @Option(
        help: ArgumentHelp(
            "Only sessions in a room whose name contains this (any case; repeat for several).", valueName: "room"))
    var room: [String] = []

    @Option(
        help: ArgumentHelp("Only sessions in this language, e.g. en or de (repeat for several).", valueName: "code"))
    var language: [String] = []

    /// Whether no track, room or language was given (`--conference` is applied by the daemon's query).
    var isEmpty: Bool { track.isEmpty && room.isEmpty && language.isEmpty }
}

/// The `--track`, `--room` and `--language` values, checked against what the schedules hold.
struct SessionFilter: Sendable {
    var tracks: [String] = []
    var rooms: [String] = []
    var languages: [String] = []

    var isEmpty: Bool { tracks.isEmpty && rooms.isEmpty && languages.isEmpty }

    /// Whether `session` passes every given filter (any of the values of each).
    func matches(_ session: SessionSummary) -> Bool {
        (rooms.isEmpty || rooms.contains { Self.contains(session.room, $0) })
            && (tracks.isEmpty || tracks.contains { Self.contains(session.track, $0) })
            && (languages.isEmpty || languages.contains { Self.isLanguage(session.language, $0) })
    }

    func apply(_ sessions: [SessionSummary]) -> [SessionSummary] {
        isEmpty ? sessions : sessions.filter(matches)
    }

    /// Room and track names match by a case- and accent-insensitive substring.
    static func contains(_ name: String?, _ wanted: String) -> Bool {
        guard let name else { return false }
        return name.range(of: wanted, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }

    /// `en` matches `en`, `EN` and `en-GB`.
    static func isLanguage(_ language: String?, _ wanted: String) -> Bool {
        guard let language = language?.lowercased() else { return false }
        let wanted = wanted.lowercased()
        return language == wanted || language.hasPrefix(wanted + "-") || language.hasPrefix(wanted + "_")
    }

    /// Checks every value against the rooms, tracks and languages the conference's sessions (or all sessions)
    /// have.
    ///
    /// - Throws: ``ClientError/unknownValue(option:value:known:)`` for a value that matches none.
    static func make(_ options: SessionFilterOptions, conference: String?, context: CommandContext)
        throws(ClientError) -> SessionFilter
    {
        let filter = SessionFilter(tracks: options.track, rooms: options.room, languages: options.language)
        guard !filter.isEmpty else { return filter }
        var predicate: String?
        var variables: JSONObject = [:]
        if let conference {
            predicate = "conference.acronym == $CONFERENCE"
            variables["CONFERENCE"] = .string(conference)
        }
        let fetch = WireRequest.Fetch(
            entity: "Session", predicate: predicate, variables: variables,
            properties: ["room.name", "track.name", "language"])
        let known = try context.send(.fetch(fetch), as: WireResponse.Fetch.self).objects.map(SessionSummary.init)
        func check(_ values: [String], option: String, names: [String?], matches: (String?, String) -> Bool)
            throws(ClientError)
        {
            let names = Set(names.compactMap { $0 }.filter { !$0.isEmpty }).sorted {
                $0.localizedStandardCompare($1) == .orderedAscending
            }
            for value in values where !names.contains(where: { matches($0, value) }) {
                throw .unknownValue(option: option, value: value, known: names)
            }
        }
        try check(filter.rooms, option: "room", names: known.map(\.room), matches: contains)
        try check(filter.tracks, option: "track", names: known.map(\.track), matches: contains)
        try check(filter.languages, option: "language", names: known.map(\.language), matches: isLanguage)
        return filter
    }
}
