import Foundation
import ObjectGraph

/// Workloads of the framework core: in-memory store and the predicate language, each beside hand-written Swift.
enum CoreWorkloads {
    static var all: [Workload] { [insertAndSave, fetchWithPredicateAndSort, predicateEvaluation, predicateParsing] }

    struct Row {
        var title: String
        var room: String
        var start: Double
        var duration: Int
    }

    static func model() -> ManagedObjectModel {
        let session = EntityDescription(name: "Session", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "room", type: .string),
            AttributeDescription(name: "start", type: .double), AttributeDescription(name: "duration", type: .integer64),
        ])
        return ManagedObjectModel(entities: [session])
    }

    /// Inserts one `Session` per row.
    static func insert(_ data: [Row], into context: ManagedObjectContext) {
        for row in data {
            let object = context.insertNewObject(forEntityName: "Session")
            object.setValue(row.title, forKey: "title")
            object.setValue(row.room, forKey: "room")
            object.setValue(row.start, forKey: "start")
            object.setValue(row.duration, forKey: "duration")
        }
    }

    static func rows(_ count: Int) -> [Row] {
        var generator = SplitMix(seed: 7)
        return (0..<count).map { index in
            Row(title: "Session \(generator.next() % 100_000)", room: "Room \(generator.next() % 40)",
                start: Double(generator.next() % 1_000_000), duration: Int(generator.next() % 120))
        }
    }

    /// Insert 100k objects and save into the in-memory store, vs appending 100k structs to an array.
    static let insertAndSave = Workload(name: "in-memory insert+save 100k vs array append",
                                        target: .atMostTimes(1_000)) { quick in
        let data = rows(quick ? 20_000 : 100_000)
        let model = model()
        return (ours: {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .inMemory)
            let context = ManagedObjectContext(coordinator: coordinator)
            context.isUndoRegistrationEnabled = false
            insert(data, into: context)
            try context.save()
        }, anchor: {
            var copy: [Row] = []
            for row in data { copy.append(row) }
            precondition(copy.count == data.count)
        })
    }

    /// Fetch 100k objects with a predicate and two sort keys, vs the same filter and sort over an array of structs.
    static let fetchWithPredicateAndSort = Workload(name: "in-memory fetch 100k predicate+2 sorts vs closure",
                                                    target: .atMostTimes(2)) { quick in
        let data = rows(quick ? 20_000 : 100_000)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        insert(data, into: context)
        try context.save()
        let predicate = try ObjectPredicate(format: "duration >= %d AND start > %f", 10, 1000.0)
        return (ours: {
            let reader = ManagedObjectContext(coordinator: coordinator)
            let request = FetchRequest(entityName: "Session")
            request.predicate = predicate
            request.sortKeys = [SortKey("room"), SortKey("start", ascending: false)]
            let result = try reader.fetch(request)
            precondition(!result.isEmpty)
        }, anchor: {
            let result = data.filter { $0.duration >= 10 && $0.start > 1000 }.sorted {
                $0.room != $1.room ? $0.room < $1.room : $0.start > $1.start
            }
            precondition(!result.isEmpty)
        })
    }

    /// Evaluate a compiled predicate over 1M value snapshots, vs a hand-written closure.
    static let predicateEvaluation = Workload(name: "predicate evaluation 1M snapshots vs closure",
                                              target: .atMostTimes(3)) { quick in
        let data = rows(quick ? 200_000 : 1_000_000)
        let snapshots: [[String: Any]] = data.map {
            ["title": $0.title, "room": $0.room, "start": $0.start, "duration": $0.duration]
        }
        let predicate = try ObjectPredicate(format: "duration >= 10 AND start > 1000.0 AND room != 'Room 3'")
        return (ours: {
            var count = 0
            for snapshot in snapshots where try predicate.evaluate(with: snapshot) { count += 1 }
            precondition(count > 0)
        }, anchor: {
            var count = 0
            for snapshot in snapshots {
                if let duration = snapshot["duration"] as? Int, duration >= 10, let start = snapshot["start"] as? Double,
                    start > 1000, let room = snapshot["room"] as? String, room != "Room 3"
                {
                    count += 1
                }
            }
            precondition(count > 0)
        })
    }

    /// Parse typical predicates; the anchor parses nothing but splits the same strings on spaces (a floor, for
    /// scale); the figure to read is the rate printed in the workload name's column (predicates per second).
    static let predicateParsing = Workload(name: "predicate parse 200k (rate >= 200k/s)", target: .atMostTimes(1_000)) {
        quick in
        let formats = (0..<(quick ? 50_000 : 200_000)).map { index in
            "title BEGINSWITH[c] 'Talk \(index % 97)' AND duration >= \(index % 60) AND room.name IN {'A', 'B'} "
                + "OR start < \(index)"
        }
        return (ours: {
            let start = ContinuousClock.now
            for format in formats { _ = try ObjectPredicate(format: format) }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            FileHandle.standardError.write(Data("parse rate: \(Int(Double(formats.count) / seconds))/s\n".utf8))
        }, anchor: {
            var total = 0
            for format in formats { total += format.split(separator: " ").count }
            precondition(total > 0)
        })
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
