import Foundation
import ObjectGraph

/// Turns a schedule document into the records of the schedule model, with both sides of every relationship.
struct ScheduleRecords {
    let document: ScheduleDocument
    let store: AtomicStore

    /// The values of one record being made, laid out by its entity's record keys (the layout its objects read
    /// records by position in: a record per session made without a dictionary, and filled into an object without
    /// hashing its keys). A value for a key the layout lacks (a model without that property) is kept by name, and
    /// the record is then made with a dictionary, as a record of such a model always was.
    private struct Values {
        let keys: RecordKeys?
        var row: [(any Sendable)?]
        var extra: [String: any Sendable] = [:]

        init(keys: RecordKeys?) {
            self.keys = keys
            // Appended one by one: `Array(repeating: nil, count:)` copies its element through the existential's
            // value witness, about four times the cost of these stores (callgrind, a generated file of 20,000
            // sessions).
            var row: [(any Sendable)?] = []
            let count = keys?.names.count ?? 0
            row.reserveCapacity(count)
            for _ in 0..<count { row.append(nil) }
            self.row = row
        }

        subscript(key: String) -> (any Sendable)? {
            get { keys?.position(of: key).map { row[$0] } ?? extra[key] }
            set {
                if let position = keys?.position(of: key) {
                    row[position] = newValue
                } else if let newValue {
                    extra[key] = newValue
                }
            }
        }

        func record(id: ManagedObjectID) -> StoreRecord {
            guard let keys else { return StoreRecord(objectID: id, values: extra) }
            var record = StoreRecord(objectID: id, version: 1, keys: keys, row: row)
            // A key the layout lacks turns the record into a dictionary of all its values: StoreRecord's own rule.
            for (key, value) in extra { record[key] = value }
            return record
        }
    }

    /// The keys a session's record is written with.
    private enum SessionKey: Int, CaseIterable {
        case guid, code, eventID, title, subtitle, abstract, details, start, end, duration, language, type, url
        case status, slug, feedbackURL, doNotRecord, conference, day, room, track, persons

        /// The property name (the case's name).
        var name: String { String(describing: self) }
    }

    /// A session's values, written by ``SessionKey`` at positions looked up once per document: a lookup by name per
    /// value was a third of making a session's record (callgrind, a generated file of 20,000 sessions).
    private struct SessionValues {
        var values: Values
        /// The positions of the keys in the session entity's record keys, by ``SessionKey``'s raw value (nil for a
        /// key the entity lacks: its value is kept by name).
        let positions: [Int?]

        static func positions(in keys: RecordKeys?) -> [Int?] {
            SessionKey.allCases.map { keys?.position(of: $0.name) }
        }

        subscript(key: SessionKey) -> (any Sendable)? {
            get { values[key.name] }
            set {
                if let position = positions[key.rawValue] {
                    values.row[position] = newValue
                } else if let newValue {
                    values.extra[key.name] = newValue
                }
            }
        }
    }

    private final class Builder {
        private(set) var records: [StoreRecord] = []
        private var nextKey: Int64 = 1
        let store: AtomicStore
        /// The entities' record keys and an ID of each, to make the next IDs from (without looking up the names).
        private var entities: [String: (keys: RecordKeys?, prototype: ManagedObjectID)] = [:]

        init(store: AtomicStore) { self.store = store }

        /// Makes room for the records and list members about to be made, so that neither list is copied as it
        /// grows: growing them by doubling copied and first touched twice their final size (a generated file of a
        /// million sessions: a tenth of attaching it, perf).
        func reserveCapacity(records recordCount: Int, members memberCount: Int) {
            records.reserveCapacity(recordCount)
            members.reserveCapacity(memberCount)
        }

        /// A new ID of `entity`: the next reference key, in the order records are made.
        func newID(_ entity: String) -> ManagedObjectID {
            newID(like: entityInfo(entity).prototype)
        }

        /// A new ID of the entity and store of `prototype`.
        func newID(like prototype: ManagedObjectID) -> ManagedObjectID {
            let key = nextKey
            nextKey += 1
            return prototype.withReferenceKey(key)
        }

        func entityInfo(_ entity: String) -> (keys: RecordKeys?, prototype: ManagedObjectID) {
            if let info = entities[entity] { return info }
            // The store's model is frozen: the entity's keys are looked up once.
            let info = (
                keys: store.model.entitiesByName[entity]?.recordKeys,
                prototype: store.objectID(forEntityName: entity, referenceKey: 0)
            )
            entities[entity] = info
            return info
        }

        /// Adds the record; returns its position.
        func add(_ values: Values, id: ManagedObjectID) -> Int {
            records.append(values.record(id: id))
            return records.count - 1
        }

        /// Adds a record of `entity` with a new ID; returns its position.
        func add(_ entity: String, _ fill: (inout Values) -> Void) -> Int {
            var values = Values(keys: entityInfo(entity).keys)
            fill(&values)
            return add(values, id: newID(entity))
        }

        func id(_ index: Int) -> ManagedObjectID { records[index].objectID }

        /// The to-many sides of relationships, in the order they were added, put into the records once at the end:
        /// appending to a list kept in a record copied the whole list each time (a conference's list of a million
        /// sessions took hours to build), and a table of lists by owner and key hashed twice per member.
        private var members: [(owner: Int, key: Int, member: ManagedObjectID)] = []
        private var memberKeys: [String] = []

        /// Adds `member` to the to-many `key` of the record at `owner`.
        func append(_ member: ManagedObjectID, to owner: Int, key: String) {
            let keyIndex: Int
            if let known = memberKeys.firstIndex(of: key) {
                keyIndex = known
            } else {
                keyIndex = memberKeys.count
                memberKeys.append(key)
            }
            members.append((owner, keyIndex, member))
        }

        /// The records, with their to-many lists (each in the order its members were added).
        func finish() -> [StoreRecord] {
            // Members grouped by owner, keeping their order: a counting sort over the owners' positions.
            var starts = [Int](repeating: 0, count: records.count + 1)
            for entry in members { starts[entry.owner + 1] += 1 }
            for index in records.indices { starts[index + 1] += starts[index] }
            var order = [Int](repeating: 0, count: members.count)
            var next = starts
            for (position, entry) in members.enumerated() {
                order[next[entry.owner]] = position
                next[entry.owner] += 1
            }
            for owner in records.indices where starts[owner] < starts[owner + 1] {
                let range = starts[owner]..<starts[owner + 1]
                for key in memberKeys.indices {
                    let list = range.compactMap { members[order[$0]].key == key ? members[order[$0]].member : nil }
                    if !list.isEmpty { records[owner][memberKeys[key]] = list }
                }
            }
            members = []
            return records
        }
    }

    func records() -> [StoreRecord] {
        let builder = Builder(store: store)
        // One record per conference, day, room, track, person, session and link (rooms and tracks only sessions
        // name are added below, rarely); one list member per day, and per session one in the conference's list,
        // its day's, room's and track's, each speaker's, and one per link.
        let sessions = document.sessions
        var sessionMembers = 0
        var links = 0
        for index in sessions.indices {
            sessionMembers += 4 + sessions[index].persons.count
            links += sessions[index].links.count
        }
        builder.reserveCapacity(
            records: 1 + document.days.count + document.rooms.count + document.tracks.count + document.persons.count
                + sessions.count + links,
            members: document.days.count + sessionMembers + links)
        let info = document.conference
        let conference = builder.add("Conference") {
            $0["acronym"] = info.name
            $0["title"] = info.title ?? info.calendarName
            $0["subtitle"] = info.subtitle
            $0["url"] = info.url
            $0["timeZone"] = info.timeZone
            $0["timeZoneSource"] = info.timeZoneSource.rawValue
            $0["start"] = info.start
            $0["end"] = info.end
            $0["version"] = info.version
            $0["source"] = info.source
        }
        let conferenceID = builder.id(conference)
        var days: [Int: Int] = [:]
        for day in document.days {
            let index = builder.add("Day") {
                $0["index"] = day.index
                $0["date"] = day.date
                $0["start"] = day.start ?? day.midnight
                $0["end"] = day.end
                $0["conference"] = conferenceID
            }
            builder.append(builder.id(index), to: conference, key: "days")
            days[day.index] = index
        }
        var rooms: [String: Int] = [:]
        for room in document.rooms where rooms[room.name] == nil {
            rooms[room.name] = builder.add("Room") {
                $0["name"] = room.name
                $0["guid"] = room.guid
                $0["position"] = room.position
            }
        }
        var tracks: [String: Int] = [:]
        for track in document.tracks where tracks[track.name] == nil {
            tracks[track.name] = builder.add("Track") {
                $0["name"] = track.name
                $0["color"] = track.color
            }
        }
        var persons: [PersonInfo.Key: Int] = [:]
        func person(_ info: PersonInfo) -> Int {
            let key = info.key
            if let existing = persons[key] { return existing }
            let index = builder.add("Person") {
                $0["name"] = info.name
                $0["guid"] = info.guid
                $0["id"] = info.id
            }
            persons[key] = index
            return index
        }
        for info in document.persons { _ = person(info) }
        // Sessions come in runs of one room (and often one track): the last one is kept at hand.
        var lastRoom: (name: String, index: Int)?
        var lastTrack: (name: String, index: Int)?
        let sessionEntity = builder.entityInfo("Session")
        let positions = SessionValues.positions(in: sessionEntity.keys)
        for session in document.sessions {
            // The session's key is taken first, so that it comes before any record made for it below.
            let id = builder.newID(like: sessionEntity.prototype)
            var values = SessionValues(values: Values(keys: sessionEntity.keys), positions: positions)
            values[.guid] = session.storedGUID
            values[.code] = session.code
            values[.eventID] = session.eventID.map {
                switch $0 {
                case .number(let number): String(number)
                case .text(let text): text
                }
            }
            values[.title] = session.title
            values[.subtitle] = session.subtitle
            values[.abstract] = session.abstract
            values[.details] = session.details
            values[.start] = session.start
            values[.end] = session.end
            values[.duration] = session.duration
            values[.language] = session.language
            values[.type] = session.type
            values[.url] = session.url
            values[.status] = session.status == .cancelled ? "cancelled" : "confirmed"
            values[.slug] = session.slug
            values[.feedbackURL] = session.feedbackURL
            values[.doNotRecord] = session.doNotRecord
            values[.conference] = conferenceID
            builder.append(id, to: conference, key: "sessions")
            if let day = days[session.dayIndex] {
                values[.day] = builder.id(day)
                builder.append(id, to: day, key: "sessions")
            }
            if let name = session.roomName {
                let room: Int
                if let last = lastRoom, last.name == name {
                    room = last.index
                } else {
                    room = rooms[name] ?? builder.add("Room") {
                        $0["name"] = name
                        $0["position"] = rooms.count
                    }
                    rooms[name] = room
                    lastRoom = (name, room)
                }
                values[.room] = builder.id(room)
                builder.append(id, to: room, key: "sessions")
            }
            if let name = session.trackName {
                let track: Int
                if let last = lastTrack, last.name == name {
                    track = last.index
                } else {
                    track = tracks[name] ?? builder.add("Track") { $0["name"] = name }
                    tracks[name] = track
                    lastTrack = (name, track)
                }
                values[.track] = builder.id(track)
                builder.append(id, to: track, key: "sessions")
            }
            var speakerIDs: [ManagedObjectID] = []
            for info in session.persons {
                let speaker = person(info)
                speakerIDs.append(builder.id(speaker))
                builder.append(id, to: speaker, key: "sessions")
            }
            if !speakerIDs.isEmpty { values[.persons] = speakerIDs }
            let index = builder.add(values.values, id: id)
            for info in session.links {
                let link = builder.add("Link") {
                    $0["title"] = info.title
                    $0["url"] = info.url
                    $0["session"] = id
                }
                builder.append(builder.id(link), to: index, key: "links")
            }
        }
        return builder.finish()
    }
}

extension SessionInfo {
    /// The `guid` a schedule file store gives the session's object: its guid (a repeat run's carries its start), else
    /// its identity's `kind:value` form. Favourites point at sessions by it.
    public var storedGUID: String { guid ?? identity.description }
}
