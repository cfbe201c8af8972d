import Foundation
import ObjectGraph

/// One saved session of the dictionary-fetch fixtures, as plain values for hand-computed references.
struct SessionRow {
    let guid: String
    let title: String
    let room: String?
    let duration: Int
    let start: Date?

    /// `count` sessions: rooms R1–R3 in turn (every seventh without a room), titles "Talk 0"–"Talk 3", durations
    /// spread over 0–94, a start date for most.
    static func make(_ count: Int, offset: Int = 0) -> [SessionRow] {
        (offset..<(offset + count)).map { (index: Int) -> SessionRow in
            let room: String? = index % 7 == 6 ? nil : "R\(index % 3 + 1)"
            let duration: Int = (index * 13) % 90 + index % 5
            let hours = Double(index % 11)
            let start: Date? = index % 5 == 0 ? nil : Date(timeIntervalSinceReferenceDate: hours * 3600)
            return SessionRow(
                guid: String(format: "g%04d", index), title: "Talk \(index % 4)", room: room,
                duration: duration, start: start)
        }
    }

    /// Inserts the rows into a context (rooms are made once per context and name), assigned to a store if given.
    static func insert(
        _ rows: [SessionRow], into context: ManagedObjectContext,
        store: PersistentStore? = nil
    ) throws {
        var rooms: [String: ManagedObject] = [:]
        for row in rows {
            let session = context.insertNewObject(forEntityName: "Session")
            if let store { try context.assign(session, to: store) }
            session.setValue(row.guid, forKey: "guid")
            session.setValue(row.title, forKey: "title")
            session.setValue(row.duration, forKey: "duration")
            if let start = row.start { session.setValue(start, forKey: "start") }
            if let name = row.room {
                var room: ManagedObject! = rooms[name]
                if room == nil {
                    room = context.insertNewObject(forEntityName: "Room")
                    if let store { try context.assign(room, to: store) }
                    room.setValue(name, forKey: "name")
                    rooms[name] = room
                }
                session.setValue(room, forKey: "room")
            }
        }
    }

    /// Per room name (nil included): count, sum, average, min and max of durations, and the latest start.
    static func reference(_ rows: [SessionRow]) -> [String: [String: String]] {
        var byRoom: [String: [SessionRow]] = [:]
        for row in rows { byRoom[row.room ?? "nil", default: []].append(row) }
        return byRoom.mapValues { group in
            let durations = group.map(\.duration)
            var expected = [
                "count": "\(group.count)", "total": "\(durations.reduce(0, +))",
                "mean": "\(Double(durations.reduce(0, +)) / Double(durations.count))",
                "shortest": "\(durations.min()!)", "longest": "\(durations.max()!)",
            ]
            if let latest = group.compactMap(\.start).max() { expected["latest"] = "\(latest)" }
            return expected
        }
    }
}

/// The expression descriptions of the grouped fixtures' requests.
enum Aggregates {
    static let count = ExpressionDescription(
        name: "count", expression: ObjectExpression(forFunction: "count:", arguments: [.keyPath("guid")]),
        resultType: .integer64)
    static let total = ExpressionDescription(
        name: "total", expression: ObjectExpression(forFunction: "sum:", arguments: [.keyPath("duration")]),
        resultType: .integer64)
    static let mean = ExpressionDescription(
        name: "mean", expression: ObjectExpression(forKeyPath: "@avg.duration"),
        resultType: .double)
    static let shortest = ExpressionDescription(
        name: "shortest", expression: ObjectExpression(forFunction: "min:", arguments: [.keyPath("duration")]))
    static let longest = ExpressionDescription(name: "longest", expression: .keyPath("@max.duration"))
    static let latest = ExpressionDescription(
        name: "latest", expression: ObjectExpression(forFunction: "max:", arguments: [.keyPath("start")]),
        resultType: .date)

    /// Sessions per room name with every aggregate, sorted by room name.
    static func perRoom() -> FetchRequest {
        let request = FetchRequest(entityName: "Session")
        request.resultType = .dictionary
        request.propertiesToFetch = ["room.name", count, total, mean, shortest, longest, latest]
        request.propertiesToGroupBy = ["room.name"]
        request.sortKeys = [SortKey("room.name")]
        return request
    }

    /// Result dictionaries keyed by room name ("nil" for none), values as text.
    static func byRoom(_ rows: [[String: any Sendable]]) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for row in rows {
            let room = row["room.name"].map { "\($0)" } ?? "nil"
            result[room] = row.filter { $0.key != "room.name" }.mapValues { "\($0)" }
        }
        return result
    }
}
