import Foundation

/// Collects sessions for a document: applies the duplicate rule, gathers rooms, tracks and persons in order
/// of first appearance, and enforces the session limit.
///
/// Duplicate rule: sessions are unique by ``SessionIdentity``; the first occurrence in file order wins and
/// each later one is dropped with a warning naming its line. Two frab events with the same numeric id but
/// different guids are both kept (the guid is their identity), with a warning.
struct DocumentAssembler {
    private(set) var sessions: [SessionInfo] = []
    private(set) var warnings: [String] = []
    private var identities: [SessionIdentity: Int] = [:]
    private var eventIDs: [SessionEventID: Int] = [:]
    private var roomNames: [String] = []
    private var roomSet: Set<String> = []
    private var trackNames: [String] = []
    private var trackSet: Set<String> = []
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

    /// Declares a room even if no session uses it (frab `<room name>` elements).
    mutating func noteRoom(_ name: String?) {
        guard let name, !name.isEmpty, roomSet.insert(name).inserted else { return }
        roomNames.append(name)
    }

    /// Adds a session unless its identity was seen; returns whether it was added.
    @discardableResult
    mutating func add(_ session: SessionInfo, line: Int?) throws(ScheduleError) -> Bool {
        let identity = session.identity
        if let firstLine = identities[identity] {
            let first = firstLine > 0 ? " (first at line \(firstLine))" : ""
            warn("duplicate session \(identity) ignored; the first occurrence\(first) is kept", line: line)
            return false
        }
        guard sessions.count < maxSessions else {
            throw ScheduleError(
                code: .tooLarge,
                message:
                    "More than \(maxSessions) sessions; raise ScheduleReaderLimits.maxSessions if the file is genuine.",
                line: line, source: source)
        }
        if identity.kind == .guid, let eventID = session.eventID {
            if let firstLine = eventIDs[eventID] {
                warn(
                    "event id \(eventID) is shared with the session at line \(firstLine); both kept, their guids differ",
                    line: line)
            } else {
                eventIDs[eventID] = line ?? 0
            }
        }
        identities[identity] = line ?? 0
        noteRoom(session.roomName)
        if let track = session.trackName, !track.isEmpty, trackSet.insert(track).inserted { trackNames.append(track) }
        for person in session.persons {
            let key = person.guid.map { "guid:" + $0 } ?? "name:" + person.name
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
            rooms: roomNames.enumerated().map { RoomInfo(name: $1, position: $0) },
            tracks: trackNames.map { TrackInfo(name: $0) },
            persons: persons,
            sessions: sessions,
            format: format,
            warnings: warnings + extraWarnings)
    }
}
