import AlmanacDaemon
import AlmanacWire
import Foundation
import ObjectGraph

/// What the fake daemon serves: objects by entity (values as the daemon sends them, related values under their key
/// paths such as `room.name` or `day.date`), the `stores` answer and the `changes` answer.
struct FakeSchedule: Sendable {
    var objects: [String: [WireObject]]
    var stores: [WireResponse.StoreInfo]
    var changes: JSONObject = [:]

    /// The small sample schedule (38C3, one day, Europe/Berlin), with its two favourites.
    static var sample: FakeSchedule {
        let favorites = SampleSessions.favorites.sorted().enumerated().map { index, guid in
            WireObject(
                uri: "x-almanac://favorites/Favorite/p\(index + 1)", entity: "Favorite", store: "favorites",
                values: ["conferenceAcronym": "38c3", "sessionGUID": .string(guid)]
            )
        }
        let conference = WireObject(
            uri: "x-almanac://38c3/Conference/p1", entity: "Conference", store: "38c3.xml",
            values: [
                "acronym": "38c3", "title": "38th Chaos Communication Congress", "source": "38c3.xml",
                "timeZone": "Europe/Berlin",
            ]
        )
        return FakeSchedule(
            objects: ["Session": SampleSessions.objects, "Favorite": favorites, "Conference": [conference], "Day": []],
            stores: [.init(id: "38c3", file: "38c3.xml", type: "frab", isReadOnly: true, objects: 5)]
        )
    }
}

/// What clients wrote to the fake daemon. Shared between the server's tasks and the test.
final class FakeRecorder: @unchecked Sendable {  // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var insertedObjects: [WireRequest.Insert] = []

    func record(_ insert: WireRequest.Insert) {
        lock.withLock { insertedObjects.append(insert) }
    }

    var inserted: [WireRequest.Insert] { lock.withLock { insertedObjects } }
}

/// Serves a ``FakeSchedule`` over the wire like a tiny almanacd: fetches are filtered with the daemon's own
/// predicate language (so a predicate the daemon would refuse fails here too), sorted and limited.
struct FakeScheduleHandler: RequestHandler {
    var schedule: FakeSchedule = .sample
    var recorder = FakeRecorder()
    /// Keys an insert may not carry, refused with `bad_request` naming the key (a daemon with an older model).
    var refusedInsertKeys: Set<String> = []

    func handle(_ request: WireRequest, peer: PeerCredentials) async throws -> JSONObject {
        switch try WireCommand(request) {
        case .ping:
            return [:]
        case .fetch(let fetch):
            return WireResponse.Fetch(objects: try Self.fetch(fetch, from: objects(of: fetch.entity))).json
        case .template(let template):
            guard template.name == "SearchSessions", let text = template.variables["TEXT"]?.stringValue else {
                throw WireError(code: .unknownTemplate, message: "no template \(template.name)")
            }
            let found = try objects(of: "Session").filter {
                ($0.values["title"]?.stringValue ?? "").localizedCaseInsensitiveContains(text)
            }
            return WireResponse.Fetch(objects: Array(found.prefix(template.limit ?? Int.max))).json
        case .stores:
            return WireResponse.Stores(stores: schedule.stores).json
        case .changes(let changes):
            if let name = changes.conference {
                let conferences = schedule.objects["Conference"] ?? []
                let matches = conferences.contains { conference in
                    ["acronym", "title", "source"].contains {
                        conference.values[$0]?.stringValue?.lowercased() == name.lowercased()
                    }
                }
                guard matches else {
                    let known = conferences.compactMap { $0.values["acronym"]?.stringValue }.sorted()
                    throw WireError.unknownConference(name, known: known)
                }
            }
            return schedule.changes
        case .insert(let insert):
            if let refused = insert.values.members.first(where: { refusedInsertKeys.contains($0.key) }) {
                throw WireError.badRequest("\(insert.entity) has no property '\(refused.key)'", field: refused.key)
            }
            recorder.record(insert)
            return WireResponse.Insert(uri: "x-almanac://favorites/\(insert.entity)/p99", store: "favorites").json
        case .delete(let delete):
            throw WireError(code: .notFound, message: "no object \(delete.uri)")
        default:
            throw WireError(code: .unknownOp, message: "not in the fake")
        }
    }

    func subscribe(peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        AsyncStream { $0.finish() }
    }

    private func objects(of entity: String) throws -> [WireObject] {
        guard let objects = schedule.objects[entity] else {
            throw WireError(code: .unknownEntity, message: "the model has no entity \(entity)")
        }
        return objects
    }

    // MARK: Evaluation

    static func fetch(_ fetch: WireRequest.Fetch, from objects: [WireObject]) throws -> [WireObject] {
        var found = objects
        if let format = fetch.predicate {
            let predicate: ObjectPredicate
            do {
                predicate = try ObjectPredicate(format: format)
            } catch {
                throw WireError(code: .parseError, message: "\(error)")
            }
            let variables = fetch.variables.dictionary.mapValues(value)
            found = try found.filter {
                try predicate.evaluate(with: dictionary($0.values), substitutionVariables: variables)
            }
        }
        for key in fetch.sort.reversed() {
            found = found.enumerated().sorted { lhs, rhs in
                let order = compare(lhs.element.values[key.key], rhs.element.values[key.key])
                if order == .orderedSame { return lhs.offset < rhs.offset }
                return key.isAscending ? order == .orderedAscending : order == .orderedDescending
            }.map(\.element)
        }
        return Array(found.dropFirst(fetch.offset ?? 0).prefix(fetch.limit ?? Int.max))
    }

    /// A JSON value as the daemon binds it: strings that are ISO 8601 times become dates.
    static func value(_ json: JSONValue) -> Any? {
        switch json {
        case .null: nil
        case .bool(let value): value
        case .int(let value): Int(value)
        case .double(let value): value
        case .string(let text): WireDate.date(from: text) ?? text
        case .array(let items): items.map(value)
        case .object(let object): object.dictionary.mapValues(value)
        }
    }

    /// An object's values as nested dictionaries: `room.name` becomes `room: {name}`, so `room.name` and
    /// `day == nil` evaluate as they would on the related objects.
    static func dictionary(_ values: JSONObject) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, json) in values.members {
            guard let converted = value(json) else { continue }
            let path = key.split(separator: ".").map(String.init)
            insert(converted, at: path[...], into: &result)
        }
        return result
    }

    private static func insert(_ value: Any, at path: ArraySlice<String>, into dictionary: inout [String: Any]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            dictionary[first] = value
        } else {
            var nested = dictionary[first] as? [String: Any] ?? [:]
            insert(value, at: path.dropFirst(), into: &nested)
            dictionary[first] = nested
        }
    }

    private static func compare(_ lhs: JSONValue?, _ rhs: JSONValue?) -> ComparisonResult {
        switch (lhs?.stringValue, rhs?.stringValue) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedDescending
        case (_, nil): return .orderedAscending
        case (let left?, let right?):
            if let leftDate = WireDate.date(from: left), let rightDate = WireDate.date(from: right) {
                return leftDate == rightDate
                    ? .orderedSame : (leftDate < rightDate ? .orderedAscending : .orderedDescending)
            }
            return left.compare(right)
        }
    }
}
