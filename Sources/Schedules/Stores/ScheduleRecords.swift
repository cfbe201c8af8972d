import Foundation
import ObjectGraph

/// Turns a schedule document into the records of the schedule model, with both sides of every relationship.
struct ScheduleRecords {
    let document: ScheduleDocument
    let store: AtomicStore

    private final class Builder {
        var records: [StoreRecord] = []
        var nextKey: Int64 = 1
        let store: AtomicStore

        init(store: AtomicStore) { self.store = store }

        /// Adds a record of `entity` with `values` (nil ones are absent); returns its position.
        func add(_ entity: String, _ values: KeyValuePairs<String, (any Sendable)?>) -> Int {
            let id = store.objectID(forEntityName: entity, referenceKey: nextKey)
            nextKey += 1
            records.append(record(of: entity, id: id, values))
            return records.count - 1
        }

        /// A record laid out by the entity's record keys (the layout its objects read records by position in: a
        /// record per session made without a dictionary, and filled into an object without hashing its keys).
        private func record(of entity: String, id: ManagedObjectID, _ values: KeyValuePairs<String, (any Sendable)?>)
            -> StoreRecord
        {
            // The store's model is frozen: the lookup and the entity's keys are kept, not made again.
            if let layout = store.model.entitiesByName[entity]?.recordKeys {
                var row = [(any Sendable)?](repeating: nil, count: layout.names.count)
                if values.allSatisfy({ key, value in
                    guard let position = layout.position(of: key) else { return value == nil }
                    row[position] = value
                    return true
                }) {
                    return StoreRecord(objectID: id, version: 1, keys: layout, row: row)
                }
            }
            // A key the model's entity does not have: kept by name, as before.
            var dictionary: [String: any Sendable] = [:]
            for (key, value) in values { if let value { dictionary[key] = value } }
            return StoreRecord(objectID: id, values: dictionary)
        }

        /// The to-many sides of relationships, gathered here and put into the records once at the end: appending
        /// to a list kept in a record copied the whole list each time (a conference's list of a million sessions
        /// took hours to build).
        private var lists: [Int: [String: [ManagedObjectID]]] = [:]

        func id(_ index: Int) -> ManagedObjectID { records[index].objectID }

        func link(_ from: Int, _ key: String, to: Int, inverse: String) {
            records[from][key] = id(to)
            append(from, to: to, key: inverse)
        }

        /// Adds the record at `index` to the to-many `key` of the record at `owner`.
        func append(_ index: Int, to owner: Int, key: String) {
            lists[owner, default: [:]][key, default: []].append(id(index))
        }

        /// The records, with their to-many lists.
        func finish() -> [StoreRecord] {
            for (owner, byKey) in lists {
                for (key, list) in byKey { records[owner][key] = list }
            }
            lists = [:]
            return records
        }
    }

    func records() -> [StoreRecord] {
        let builder = Builder(store: store)
        let info = document.conference
        let conference = builder.add(
            "Conference",
            [
                "acronym": info.name, "title": info.title ?? info.calendarName, "subtitle": info.subtitle,
                "url": info.url,
                "timeZone": info.timeZone, "timeZoneSource": info.timeZoneSource.rawValue, "start": info.start,
                "end": info.end, "version": info.version, "source": info.source,
            ])
        var days: [Int: Int] = [:]
        for day in document.days {
            let index = builder.add(
                "Day",
                [
                    "index": day.index, "date": day.date, "start": day.start ?? day.midnight,
                    "end": day.end,
                ])
            builder.link(index, "conference", to: conference, inverse: "days")
            days[day.index] = index
        }
        var rooms: [String: Int] = [:]
        for room in document.rooms where rooms[room.name] == nil {
            rooms[room.name] = builder.add("Room", ["name": room.name, "guid": room.guid, "position": room.position])
        }
        var tracks: [String: Int] = [:]
        for track in document.tracks where tracks[track.name] == nil {
            tracks[track.name] = builder.add("Track", ["name": track.name, "color": track.color])
        }
        var persons: [String: Int] = [:]
        func person(_ info: PersonInfo) -> Int {
            let key = info.guid.map { "guid:" + $0 } ?? info.id.map { "id:" + $0 } ?? "name:" + info.name
            if let existing = persons[key] { return existing }
            let index = builder.add("Person", ["name": info.name, "guid": info.guid, "id": info.id])
            persons[key] = index
            return index
        }
        for info in document.persons { _ = person(info) }
        for session in document.sessions {
            let eventID: String? = session.eventID.map {
                switch $0 {
                case .number(let number): String(number)
                case .text(let text): text
                }
            }
            let index = builder.add(
                "Session",
                [
                    "guid": session.storedGUID, "code": session.code, "eventID": eventID,
                    "title": session.title, "subtitle": session.subtitle, "abstract": session.abstract,
                    "details": session.details, "start": session.start, "end": session.end,
                    "duration": session.duration, "language": session.language, "type": session.type,
                    "url": session.url,
                    "status": session.status == .cancelled ? "cancelled" : "confirmed", "slug": session.slug,
                    "feedbackURL": session.feedbackURL, "doNotRecord": session.doNotRecord,
                ])
            builder.link(index, "conference", to: conference, inverse: "sessions")
            if let day = days[session.dayIndex] { builder.link(index, "day", to: day, inverse: "sessions") }
            if let name = session.roomName {
                let room = rooms[name] ?? builder.add("Room", ["name": name, "position": rooms.count])
                rooms[name] = room
                builder.link(index, "room", to: room, inverse: "sessions")
            }
            if let name = session.trackName {
                let track = tracks[name] ?? builder.add("Track", ["name": name])
                tracks[name] = track
                builder.link(index, "track", to: track, inverse: "sessions")
            }
            var speakerIDs: [ManagedObjectID] = []
            for info in session.persons {
                let speaker = person(info)
                speakerIDs.append(builder.id(speaker))
                builder.append(index, to: speaker, key: "sessions")
            }
            if !speakerIDs.isEmpty { builder.records[index]["persons"] = speakerIDs }
            for info in session.links {
                let link = builder.add("Link", ["title": info.title, "url": info.url])
                builder.link(link, "session", to: index, inverse: "links")
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
