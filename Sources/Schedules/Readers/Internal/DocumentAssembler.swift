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
    /// The first run kept for each identity as written (it keeps that identity).
    private var firstRuns: [SessionIdentity: Run] = [:]
    /// The later runs of an identity as written, kept under suffixed identities.
    private var laterRuns: [SessionIdentity: [Run]] = [:]
    /// The suffixed identities of kept repeat runs: with the keys of `firstRuns`, every identity kept.
    private var suffixedIdentities: Set<SessionIdentity> = []
    private var eventIDs: [SessionEventID: Int] = [:]
    private var roomNames: [String] = []
    private var roomSet: Set<String> = []
    private var roomGuids: [String: String] = [:]
    private var trackNames: [String] = []
    private var trackSet: Set<String> = []
    /// Rooms and tracks some kept session uses: only those are listed.
    private var usedRooms: Set<String> = []
    private var usedTracks: Set<String> = []
    /// The room and track of the last session added: sessions come in runs of the same room (a frab `<room>`) and
    /// often of the same track, which need no lookups.
    private var lastRoom: String?
    private var lastTrack: String?
    private var trackColors: [String: String] = [:]
    private var persons: [PersonInfo] = []
    private var personKeys: Set<PersonInfo.Key> = []
    let source: String
    let maxSessions: Int

    init(source: String, maxSessions: Int) {
        self.source = source
        self.maxSessions = maxSessions
    }

    /// Makes room for `count` sessions (the file's events), so the tables are not rehashed as they grow.
    mutating func reserveCapacity(_ count: Int) {
        let count = min(count, maxSessions)
        sessions.reserveCapacity(count)
        firstRuns.reserveCapacity(count)
        eventIDs.reserveCapacity(count)
    }

    mutating func warn(_ message: String, line: Int? = nil) {
        if let line { warnings.append("line \(line): \(message)") } else { warnings.append(message) }
    }

    /// Declares a room (frab `<room name>` elements, JSON `rooms`): rooms keep the order in which they are first
    /// declared or used, and only rooms some session uses are listed. A guid fills in the room's guid if it has none.
    mutating func noteRoom(_ name: String?, guid: String? = nil) {
        guard let name = FieldText.optional(name) else { return }
        if let guid = FieldText.guid(guid), roomGuids[name] == nil { roomGuids[name] = guid }
        if roomSet.insert(name).inserted { roomNames.append(name) }
    }

    /// Declares a track (JSON `tracks`) or gives a used one its colour: the first colour given wins. As for rooms,
    /// only tracks some session uses are listed, in the order first declared or used.
    mutating func noteTrack(_ name: String?, color: String? = nil) {
        guard let name = FieldText.optional(name) else { return }
        if let color = FieldText.optional(color), trackColors[name] == nil { trackColors[name] = color }
        if trackSet.insert(name).inserted { trackNames.append(name) }
    }

    /// Gives a track its colour (iCalendar `COLOR`) if it has none yet, without declaring the track.
    mutating func noteTrackColor(_ name: String, _ color: String) {
        if trackColors[name] == nil { trackColors[name] = color }
    }

    /// Adds a session, as a repeat run under a suffixed identity when its identity was seen at another start;
    /// returns whether it was added (false for a duplicate, merged into the first).
    ///
    /// A session of a new identity, the usual case, costs one lookup of its identity: the run is put in place and
    /// taken out again only when the identity was there before.
    @discardableResult
    mutating func add(_ session: consuming SessionInfo, line: Int?) throws(ScheduleError) -> Bool {
        let written = session.identity
        let run = Run(start: session.start, room: session.roomName, line: line)
        var isRepeatRun = false
        if let first = firstRuns.updateValue(run, forKey: written) {
            firstRuns[written] = first
            let earlier = [first] + (laterRuns[written] ?? [])
            if let same = earlier.first(where: { $0.start == session.start }) {
                let firstLine = same.line.map { " at line \($0)" } ?? ""
                if same.room == session.roomName {
                    warn(
                        "duplicate of the session\(firstLine) (\(written), same start and room) merged into it",
                        line: line)
                } else {
                    warn(
                        "\(written) starts at the same time as the session\(firstLine) but in room "
                            + "\(session.roomName ?? "(none)") instead of \(same.room ?? "(none)"); "
                            + "dropped, the first is kept",
                        line: line)
                }
                return false
            }
            session.identify(asRepeatRunOf: written)
            let renamed = session.identity
            guard firstRuns[renamed] == nil, !suffixedIdentities.contains(renamed) else {
                warn("duplicate session \(renamed) ignored; the first occurrence is kept", line: line)
                return false
            }
            let at = line.map { " at line \($0)" } ?? ""
            let firstAt = first.line.map { ", line \($0)," } ?? ""
            warn(
                "repeat run of \(written)\(at) kept as \(renamed) (the first run\(firstAt) keeps \(written))",
                line: line)
            isRepeatRun = true
        } else if !suffixedIdentities.isEmpty, suffixedIdentities.contains(written) {
            firstRuns[written] = nil
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
        if isRepeatRun {
            laterRuns[written, default: []].append(run)
            suffixedIdentities.insert(session.identity)
        } else if written.kind == .guid, let eventID = session.eventID,
            let firstLine = eventIDs.updateValue(line ?? 0, forKey: eventID)
        {
            eventIDs[eventID] = firstLine
            warn(
                "event id \(eventID) is shared with the session at line \(firstLine); both kept, their guids differ",
                line: line)
        }
        // A room or track already used was noted then: one lookup, not two (tracks change from one session to the
        // next in many files).
        if let room = FieldText.optional(session.roomName), room != lastRoom {
            if usedRooms.insert(room).inserted { noteRoom(room) }
            lastRoom = room
        }
        if let track = FieldText.optional(session.trackName), track != lastTrack {
            if usedTracks.insert(track).inserted { noteTrack(track) }
            lastTrack = track
        }
        for person in session.persons {
            if personKeys.insert(person.key).inserted { persons.append(person) }
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
