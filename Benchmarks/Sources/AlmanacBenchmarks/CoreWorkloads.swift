import BenchmarkSupport
import Foundation
import ObjectGraph

/// Workloads of the framework core: in-memory store and the predicate language, each beside hand-written Swift.
enum CoreWorkloads {
    static var all: [Workload] {
        [insertAndSave, fetchWithPredicateAndSort, fetchEveryValue(.inMemory), fetchEveryValue(.binary),
         predicateEvaluation, predicateParsing, fetchedResultsUpdate, NestedWorkloads.childSave]
    }

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
    static let insertAndSave = Workload(name: "in-memory insert+save vs array append", target: .none) { quick in
        let data = rows(quick ? 20_000 : 100_000)
        let model = model()
        return Workload.Timed(ours: {
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
        }, note: "\(data.count / 1000)k objects")
    }

    /// Fetch 100k objects with a predicate and two sort keys, vs the same filter and sort over an array of structs.
    static let fetchWithPredicateAndSort = Workload(name: "in-memory fetch, predicate + 2 sort keys, vs closure",
                                                    target: .ratioAtMost(1.3)) { quick in
        let data = rows(quick ? 20_000 : 100_000)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        insert(data, into: context)
        try context.save()
        let predicate = try ObjectPredicate(format: "duration >= %d AND start > %f", 10, 1000.0)
        return Workload.Timed(ours: {
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
        }, note: "\(data.count / 1000)k objects")
    }

    /// Every attribute of every object, summed as the struct loop sums its fields.
    static func readEveryValue(of objects: [ManagedObject]) -> Int {
        var total = 0
        for object in objects {
            total &+= (object.value(forKey: "title") as? String)?.utf8.count ?? 0
            total &+= (object.value(forKey: "room") as? String)?.utf8.count ?? 0
            total &+= Int((object.value(forKey: "start") as? Double) ?? 0)
            total &+= (object.value(forKey: "duration") as? Int) ?? 0
        }
        return total
    }

    /// Fetch all 100k objects of a store through a context and read every value, vs copying the structs into a
    /// result array (what a fetch materializes) and reading every field (issue 26: ≤ 2x).
    static func fetchEveryValue(_ type: PersistentStoreType) -> Workload {
        let label = type == .inMemory ? "in-memory" : "\(type) store"
        return Workload(name: "\(label) fetch all through a context, every value read, vs loop over structs",
                 target: .ratioAtMost(2)) { quick in
            let data = rows(quick ? 20_000 : 100_000)
            var url: URL?
            if type != .inMemory {
                url = FileManager.default.temporaryDirectory
                    .appendingPathComponent("almanac-bench-\(getpid())-every-value.\(type.rawValue)")
                try? FileManager.default.removeItem(at: url!)
                let writer = PersistentStoreCoordinator(managedObjectModel: model())
                try writer.addPersistentStore(type: type, at: url)
                let context = ManagedObjectContext(coordinator: writer)
                context.isUndoRegistrationEnabled = false
                insert(data, into: context)
                try context.save()
            }
            // A file store is loaded again, so the fetch reads what the file holds.
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
            try coordinator.addPersistentStore(type: type, at: url)
            if let url { try? FileManager.default.removeItem(at: url) }
            if type == .inMemory {
                let context = ManagedObjectContext(coordinator: coordinator)
                context.isUndoRegistrationEnabled = false
                insert(data, into: context)
                try context.save()
            }
            let expected = data.reduce(0) {
                $0 &+ $1.title.utf8.count &+ $1.room.utf8.count &+ Int($1.start) &+ $1.duration
            }
            return Workload.Timed(ours: {
                let reader = ManagedObjectContext(coordinator: coordinator)
                let objects = try reader.fetch(FetchRequest(entityName: "Session"))
                precondition(readEveryValue(of: objects) == expected)
            }, anchor: {
                var result: [Row] = []
                for row in data { result.append(row) }
                var total = 0
                for row in result {
                    total &+= row.title.utf8.count &+ row.room.utf8.count &+ Int(row.start) &+ row.duration
                }
                precondition(total == expected)
            }, note: "\(data.count / 1000)k objects of 4 attributes, all read with value(forKey:)")
        }
    }

    /// Evaluate a compiled predicate over 1M value snapshots, vs a hand-written closure.
    static let predicateEvaluation = Workload(name: "predicate evaluation over dictionaries vs closure",
                                              target: .ratioAtMost(3)) { quick in
        let data = rows(quick ? 200_000 : 1_000_000)
        let snapshots: [[String: Any]] = data.map {
            ["title": $0.title, "room": $0.room, "start": $0.start, "duration": $0.duration]
        }
        let predicate = try ObjectPredicate(format: "duration >= 10 AND start > 1000.0 AND room != 'Room 3'")
        return Workload.Timed(ours: {
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
        }, note: "\(snapshots.count / 1000)k dictionaries")
    }

    /// Parse typical predicates (four comparisons, a case-insensitive BEGINSWITH, an IN list, a key path): the figure
    /// is the rate, against the absolute target; there is no anchor.
    static let predicateParsing = Workload(name: "predicate parse rate", target: .atLeast(200_000)) { quick in
        let formats = (0..<(quick ? 50_000 : 200_000)).map { index in
            "title BEGINSWITH[c] 'Talk \(index % 97)' AND duration >= \(index % 60) AND room.name IN {'A', 'B'} "
                + "OR start < \(index)"
        }
        return Workload.Timed(ours: {
            for format in formats { _ = try ObjectPredicate(format: format) }
        }, anchor: nil, items: formats.count, rateUnit: "predicates/s",
        note: "\(formats.count / 1000)k distinct predicates per run")
    }

    /// One object of a fetched results controller's 100k results changes its sort value (it moves far), and the
    /// controller places it again and reports the move (issue 27: at most 1 ms, without fetching again); the anchor
    /// is what the controller saves: fetching the 100k results again.
    static let fetchedResultsUpdate = Workload(name: "fetched results controller update, 1 change in 100k results",
                                               target: .atMost(0.001)) { quick in
        let data = rows(quick ? 20_000 : 100_000)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        insert(data, into: context)
        try context.save()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("start"), SortKey("title")]
        let controller = FetchedResultsController<ManagedObject>(fetchRequest: request, managedObjectContext: context)
        try controller.performFetch()
        let objects = controller.fetchedObjects ?? []
        precondition(objects.count == data.count)
        var generator = SplitMix(seed: 11)
        return Workload.Timed(ours: {
            let object = objects[Int(generator.next() % UInt64(objects.count))]
            object.setValue(Double(generator.next() % 1_000_000), forKey: "start")
            context.processPendingChanges()
            precondition(controller.indexPath(forObject: object) != nil)
        }, anchor: {
            let result = try context.fetch(request)
            precondition(result.count == data.count)
        }, note: "\(data.count / 1000)k objects; anchor: fetching again (1 unsaved change: sorted in memory)")
    }
}
