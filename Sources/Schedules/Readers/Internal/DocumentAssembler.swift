import Foundation

/// Collects sessions for a document: applies the repeat-run and duplicate rules, gathers rooms, tracks and persons
/// in the file's order, and enforces the session limit.
///
/// Repeat runs and duplicates, by ``SessionIdentity`` in file order:
/// - the same identity at another start is a repeat run: it is kept, under the identity suffixed with
///   `@yyyyMMdd'T'HHmmss'Z'` of its start in UTC (the first run keeps the plain one), with a warning;
/// - the same identity at the same start and in the same room is a true duplicate: merged into the first (dropped),
///   with a warning; at the same start in another room the file contradicts itself: the first is kept, the later
///   one dropped with a warning naming both rooms.
///
/// Two frab events with the same numeric id but different guids are both kept (the guid is their identity), with a
/// warning. Every warning about a record names its line when the reader knows it.
struct DocumentAssembler {
    private struct Run {
        var start: Date
        var room: String?
        var line: Int?
    }

    private(set) var sessions: [SessionInfo] = []
    private(set) var warnings: [String] = []
    /// The runs kept for each identity as written (before a repeat run's suffix).
    private var runs: [SessionIdentity: [Run]] = [:]
    /// Every identity kept, suffixed ones included.
    private var keptIdentities: Set<SessionIdentity> = []
    private var eventIDs: [SessionEventID: Int] = [:]
    private var roomNames: [String] = []
    private var roomSet: Set<String> = []
    private var roomGuids: [String: String] = [:]
    private var trackNames: [String] = []
    private var trackSet: Set<String> = []
    /// Rooms and tracks some kept session uses: only those are listed.
    private var usedRooms: Set<String> = []
    private var usedTracks: Set<String> = []
    private var trackColors: [String: String] = [:]
    private var persons: [PersonInfo] = []
    private var personKeys: Set<String> = []
    let source: String
    let maxSessions: Int

    init(source: String, maxSessions: Int) {
        self.source = source
        self.maxSessions = maxSessions
    }

    mutating func warn(_ message: String, line: Int? = nil) {
        if let line { warnings.append("line \(line): \(message)") } else { warnings.append(message) }
    }

    /// Declares a room (frab `<room name>` elements, JSON `rooms`): rooms keep the order in which they are first
    /// declared or used, and only rooms some session uses are listed. A guid fills in the room's guid if it has none.
    mutating func noteRoom(_ name: String?, guid: String? = nil) {
        guard let name = FieldText.optional(name) else { return }
        if roomGuids[name] == nil, let guid = FieldText.guid(guid) { roomGuids[name] = guid }
        if roomSet.insert(name).inserted { roomNames.append(name) }
    }

    /// Declares a track (JSON `tracks`) or gives a used one its colour: the first colour given wins. As for rooms,
    /// only tracks some session uses are listed, in the order first declared or used.
    mutating func noteTrack(_ name: String?, color: String? = nil) {
        guard let name = FieldText.optional(name) else { return }
        if trackColors[name] == nil, let color = FieldText.optional(color) { trackColors[name] = color }
        if trackSet.insert(name).inserted { trackNames.append(name) }
    }

    /// Gives a track its colour (iCalendar `COLOR`) if it has none yet, without declaring the track.
    mutating func noteTrackColor(_ name: String, _ color: String) {
        if trackColors[name] == nil { trackColors[name] = color }
    }

    /// Adds a session, as a repeat run under a suffixed identity when its identity was seen at another start;
    /// returns whether it was added (false for a duplicate, merged into the first).
    @discardableResult
    mutating func add(_ session: SessionInfo, line: Int?) throws(ScheduleError) -> Bool {
        var session = session
        let written = session.identity
        let at = line.map { " at line \($0)" } ?? ""
        var isRepeatRun = false
        if let earlier = runs[written] {
            if let same = earlier.first(where: { $0.start == session.start }) {
                let first = same.line.map { " at line \($0)" } ?? ""
                if same.room == session.roomName {
                    warn(
                        "duplicate of the session\(first) (\(written), same start and room) merged into it", line: line)
                } else {
                    warn(
                        "\(written) starts at the same time as the session\(first) but in room "
                            + "\(session.roomName ?? "(none)") instead of \(same.room ?? "(none)"); "
                            + "dropped, the first is kept",
                        line: line)
                }
                return false
            }
            session.identify(asRepeatRunOf: written)
            let renamed = session.identity
            guard !keptIdentities.contains(renamed) else {
                warn("duplicate session \(renamed) ignored; the first occurrence is kept", line: line)
                return false
            }
            let first = earlier[0].line.map { ", line \($0)," } ?? ""
            warn(
                "repeat run of \(written)\(at) kept as \(renamed) (the first run\(first) keeps \(written))", line: line)
            isRepeatRun = true
        } else if keptIdentities.contains(written) {
            warn("duplicate session \(written) ignored; the first occurrence is kept", line: line)
            return false
        }
        guard sessions.count < maxSessions else {
            throw ScheduleError(
                code: .tooLarge,
                message:
                    "More than \(maxSessions) sessions; raise ScheduleReaderLimits.maxSessions if the file is genuine.",
                line: line, source: source)
        }
        if written.kind == .guid, !isRepeatRun, let eventID = session.eventID {
            if let firstLine = eventIDs[eventID] {
                warn(
                    "event id \(eventID) is shared with the session at line \(firstLine); both kept, their guids differ",
                    line: line)
            } else {
                eventIDs[eventID] = line ?? 0
            }
        }
        runs[written, default: []].append(Run(start: session.start, room: session.roomName, line: line))
        keptIdentities.insert(session.identity)
        noteRoom(session.roomName)
        noteTrack(session.trackName)
        if let room = FieldText.optional(session.roomName) { usedRooms.insert(room) }
        if let track = FieldText.optional(session.trackName) { usedTracks.insert(track) }
        for person in session.persons {
            let key = person.guid.map { "guid:" + $0 } ?? person.id.map { "id:" + $0 } ?? "name:" + person.name
            if personKeys.insert(key).inserted { persons.append(person) }
        }
        sessions.append(session)
        return true
    }

    func makeDocument(conference: ConferenceInfo, days: [DayInfo], format: ScheduleFormat, extraWarnings: [String] = [])
        -> ScheduleDocument
    {
        ScheduleDocument(
            conference: conference,
            days: days,
            rooms: roomNames.filter(usedRooms.contains).enumerated().map {
                RoomInfo(name: $1, guid: roomGuids[$1], position: $0)
            },
            tracks: trackNames.filter(usedTracks.contains).map { TrackInfo(name: $0, color: trackColors[$0]) },
            persons: persons,
            sessions: sessions,
            format: format,
            warnings: warnings + extraWarnings)
    }
}

extension SessionInfo {
    /// Gives a repeat run of `identity` its own identity: the field the identity comes from, suffixed with
    /// `@yyyyMMdd'T'HHmmss'Z'` of this run's start in UTC.
    mutating func identify(asRepeatRunOf identity: SessionIdentity) {
        let suffix = "@" + SessionIdentity.utcStamp(start)
        switch identity.kind {
        case .guid: guid = (guid?.trimmedNonEmpty ?? identity.value) + suffix
        case .code: code = (code?.trimmedNonEmpty ?? identity.value) + suffix
        case .id: eventID = .text((eventID?.description ?? identity.value) + suffix)
        case .uid: uid = (uid?.trimmedNonEmpty ?? identity.value) + suffix
        case .title: break  // the identity already holds the start
        }
    }
}
