import Foundation
@testable import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// Sorted fetches over several stores: atomic stores walk cached sort orders and the coordinator merges store
/// results lazily. These tests compare every combination with a plain sort done here, and check that cached orders
/// never outlive a change.
@Suite("Sorted fetches")
struct SortedFetchTests {
    static let titles = ["Alpha", "beta", "Gamma", "delta", "Alpha", "Room 10", "Room 2"]

    /// Four stores of three kinds with 240 sessions and workshops, many ties among titles and durations.
    ///
    /// With `atomicOnly`, the third store is an XML store instead of SQLite: fetches over atomic stores only walk
    /// the coordinator's merged orders rather than merging store cursors.
    func populatedCoordinator(_ folder: TemporaryFolder, atomicOnly: Bool = false) throws
        -> (PersistentStoreCoordinator, [PersistentStore])
    {
        let (coordinator, three) = try Self.storeOfEachKind(in: folder, atomicOnly: atomicOnly)
        let stores = three + [try coordinator.addPersistentStore(type: .inMemory)]
        var random = SeededGenerator(seed: 42)
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<240 {
            let entity = index % 5 == 0 ? "Workshop" : "Session"
            let session = context.insertNewObject(forEntityName: entity)
            session.setValue("g\(index)", forKey: "guid")
            session.setValue(Self.titles[Int(random.next() % UInt64(Self.titles.count))], forKey: "title")
            session.setValue(Int(random.next() % 6) * 15, forKey: "duration")
            if random.next() % 4 != 0 {
                session.setValue(Date(timeIntervalSince1970: Double(random.next() % 20) * 3600), forKey: "start")
            }
            try context.assign(session, to: stores[Int(random.next() % UInt64(stores.count))])
        }
        try context.save()
        return (coordinator, stores)
    }

    /// The expected result: every matching object (the predicate evaluated on each object, not by the stores),
    /// sorted here by the keys, then store add order, then object ID.
    func expected(_ coordinator: PersistentStoreCoordinator, entity: String, predicate: ObjectPredicate?,
                  keys: [SortKey], offset: Int, limit: Int) throws -> [ManagedObjectID] {
        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try context.fetch(FetchRequest(entityName: entity)).filter {
            try predicate?.evaluate(with: $0) ?? true
        }
        let order = Dictionary(uniqueKeysWithValues: coordinator.persistentStores.enumerated().map { ($1.identifier, $0) })
        let sorted = try objects.map { object in
            (object.objectID, try keys.map { try $0.value(of: object) })
        }.sorted { lhs, rhs in
            for (position, key) in keys.enumerated() {
                switch key.compare(lhs.1[position], rhs.1[position]) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            let (left, right) = (order[lhs.0.storeIdentifier!]!, order[rhs.0.storeIdentifier!]!)
            return left != right ? left < right : lhs.0 < rhs.0
        }.map(\.0)
        let paged = sorted.dropFirst(offset)
        withExtendedLifetime(context) {}
        return Array(limit > 0 ? paged.prefix(limit) : paged)
    }

    @Test(arguments: [false, true])
    func mergedSortedPagesEqualAPlainSort(atomicOnly: Bool) throws {
        let folder = TemporaryFolder()
        let (coordinator, _) = try populatedCoordinator(folder, atomicOnly: atomicOnly)
        let keyChoices: [[SortKey]] = [
            [SortKey("title")], [SortKey("duration", ascending: false)], [SortKey("start"), SortKey("title")],
            [SortKey("title", comparison: .localizedStandard), SortKey("duration", ascending: false)],
            [SortKey("title", comparison: .caseInsensitive), SortKey("guid")], [],
        ]
        let predicates: [ObjectPredicate?] = [
            nil, try ObjectPredicate(format: "duration >= 30"), try ObjectPredicate(format: "title BEGINSWITH 'R'"),
            try ObjectPredicate(format: "start == nil OR duration == 0"), try ObjectPredicate(format: "guid == 'none'"),
        ]
        var random = SeededGenerator(seed: 7)
        for round in 0..<150 {
            let keys = keyChoices[Int(random.next() % UInt64(keyChoices.count))]
            let predicate = predicates[Int(random.next() % UInt64(predicates.count))]
            // Offsets reach past most of the 240 objects too: the walk then passes them in the last source left.
            let offset = round % 3 == 0 ? 0 : Int(random.next() % (round % 2 == 0 ? 40 : 230))
            let limit = round % 4 == 0 ? 0 : Int(random.next() % 60) + 1
            let entity = round % 5 == 0 ? "Workshop" : "Session"
            let request = FetchRequest(entityName: entity)
            request.predicate = predicate
            request.sortKeys = keys
            request.fetchOffset = offset
            request.fetchLimit = limit
            let fetched = try ManagedObjectContext(coordinator: coordinator).fetch(request).map(\.objectID)
            let reference = try expected(coordinator, entity: entity, predicate: predicate, keys: keys, offset: offset,
                                         limit: limit)
            if keys.isEmpty {
                // Without sort keys only the set (and the page size) is defined across stores.
                #expect(fetched.count == reference.count, "round \(round)")
            } else {
                #expect(fetched == reference, "round \(round): \(keys) \(predicate?.description ?? "nil") \(offset)/\(limit)")
            }
        }
    }

    /// A page and its total from one reading of the stores: the records a fetch returns, and as many objects as a
    /// count finds (cursors of stores that keep sorted orders count on past the page; other stores count when
    /// their page was full). Over atomic stores only, the merged order's cursor counts alone.
    @Test(arguments: [false, true])
    func recordsWithTheirTotalAreAPageAndACount(atomicOnly: Bool) throws {
        let folder = TemporaryFolder()
        let (coordinator, _) = try populatedCoordinator(folder, atomicOnly: atomicOnly)
        let predicates: [ObjectPredicate?] = [
            nil, try ObjectPredicate(format: "duration >= 30"),
            try ObjectPredicate(format: "start < %@", Date(timeIntervalSince1970: 36_000)),
            try ObjectPredicate(format: "start == nil OR duration == 0"), try ObjectPredicate(format: "guid == 'none'"),
        ]
        let keyChoices: [[SortKey]] = [[SortKey("start"), SortKey("guid")], [SortKey("title")], []]
        var random = SeededGenerator(seed: 11)
        for round in 0..<60 {
            let request = FetchRequest(entityName: round % 4 == 0 ? "Workshop" : "Session")
            request.predicate = predicates[round % predicates.count]
            request.sortKeys = keyChoices[round % keyChoices.count]
            request.fetchOffset = round % 3 == 0 ? 0 : Int(random.next() % 200)
            request.fetchLimit = round % 5 == 0 ? 0 : Int(random.next() % 40) + 1
            let context = ManagedObjectContext(coordinator: coordinator)
            let (records, total) = try context.fetchRecordsWithTotal(request)
            let page = try ManagedObjectContext(coordinator: coordinator).fetchRecords(request)
            let counted = try ManagedObjectContext(coordinator: coordinator).count(for: request.objectRequest())
            let predicate = request.predicate?.description ?? "nil"
            let label = "round \(round): \(predicate) \(request.fetchOffset)/\(request.fetchLimit)"
            if request.sortKeys.isEmpty {
                #expect(records.count == page.count, "\(label)")
            } else {
                #expect(records.map(\.objectID) == page.map(\.objectID), "\(label)")
            }
            #expect(total == counted, "\(label)")
        }
    }

    /// In a child context, the total counts what the parent holds, its unsaved changes included.
    @Test func aChildsTotalCountsItsParentsUnsavedObjects() throws {
        let folder = TemporaryFolder()
        let (coordinator, _) = try populatedCoordinator(folder, atomicOnly: true)
        let parent = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "duration >= 30")
        request.sortKeys = [SortKey("guid")]
        request.fetchLimit = 5
        let saved = try parent.count(for: request.objectRequest())
        for index in 0..<3 {
            let session = parent.insertNewObject(forEntityName: "Session")
            session.setValue("new\(index)", forKey: "guid")
            session.setValue(45, forKey: "duration")
        }
        let child = ManagedObjectContext(parent: parent)
        let (records, total) = try child.fetchRecordsWithTotal(request)
        #expect(records.count == 5)
        #expect(total == saved + 3)
    }

    /// Titles in canonical composition and not (a decomposed "é", "Å" as a letter and a ring or as the Ångström
    /// sign, a kana with a separate voicing mark), sorted in every store kind and merged across them: one order, by
    /// the scalars of the titles' canonical composition (the order Swift means and the SQLite store's, which keeps
    /// NFC), and pages of it that neither repeat nor skip. Swift's own `<` is no strict weak order on such strings
    /// (Swift 6.3, Linux).
    @Test(arguments: [false, true])
    func stringsNotInCanonicalCompositionSortByTheirScalars(atomicOnly: Bool) throws {
        let folder = TemporaryFolder()
        let (coordinator, stores) = try Self.storeOfEachKind(in: folder, atomicOnly: atomicOnly)
        let titles = [
            "\u{E9}a", "e\u{301}", "\u{E9}", "e", "f", "e\u{301}b", "Z", "\u{212B}", "\u{C5}", "A\u{30A}", "A",
            "\u{304B}\u{3099}", "\u{304C}", "\u{304B}", "\u{1F600}", "\u{3A9}", "e\u{301}\u{E9}", "\u{E9}e\u{301}",
        ]
        let context = ManagedObjectContext(coordinator: coordinator)
        for (index, title) in (titles + titles + titles).enumerated() {
            let session = context.insertNewObject(forEntityName: "Session")
            session.setValue(title, forKey: "title")
            session.setValue("g\(index)", forKey: "guid")
            try context.assign(session, to: stores[index * 7 % stores.count])
        }
        try context.save()
        func composed(_ title: String) -> [UInt32] {
            title.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        }
        let scalarOrder = (titles + titles + titles).map(composed).sorted { $0.lexicographicallyPrecedes($1) }
        func fetch(offset: Int, limit: Int, descending: Bool = false) throws -> [ManagedObject] {
            let request = FetchRequest(entityName: "Session")
            request.sortKeys = [SortKey("title", ascending: !descending)]
            request.fetchOffset = offset
            request.fetchLimit = limit
            return try ManagedObjectContext(coordinator: coordinator).fetch(request)
        }
        func scalars(_ objects: [ManagedObject]) -> [[UInt32]] {
            objects.map { composed($0.value(forKey: "title") as? String ?? "") }
        }
        let whole = try fetch(offset: 0, limit: 0)
        #expect(scalars(whole) == scalarOrder)
        #expect(scalars(try fetch(offset: 0, limit: 0, descending: true)) == scalars(whole).reversed())
        for size in [1, 4, 7] {
            let pages = try stride(from: 0, to: whole.count, by: size).flatMap { try fetch(offset: $0, limit: size) }
            #expect(pages.map(\.objectID) == whole.map(\.objectID), "pages of \(size)")
        }
        // A context's own sort of objects it holds (pending changes sort in memory) agrees.
        let mixed = ManagedObjectContext(coordinator: coordinator)
        let inserted = mixed.insertNewObject(forEntityName: "Session")
        inserted.setValue("e\u{301}a", forKey: "title")
        inserted.setValue("new", forKey: "guid")
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("title")]
        let withPending = try mixed.fetch(request)
        #expect(
            scalars(withPending) == (scalarOrder + [composed("e\u{301}a")]).sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// A coordinator over an in-memory, a binary and an SQLite store (an XML one when `atomicOnly`), in that order.
    static func storeOfEachKind(in folder: TemporaryFolder, atomicOnly: Bool) throws
        -> (PersistentStoreCoordinator, [PersistentStore])
    {
        _ = StoreKind.all
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let stores = [
            try coordinator.addPersistentStore(type: .inMemory),
            try coordinator.addPersistentStore(type: .binary, at: folder.file("b.bin")),
            atomicOnly
                ? try coordinator.addPersistentStore(type: .xml, at: folder.file("c.xml"))
                : try coordinator.addPersistentStore(type: .sqlite, at: folder.file("c.sqlite")),
        ]
        return (coordinator, stores)
    }

    /// Predicates order strings as the sorts do: `<`, `<=`, `>`, `>=` and BETWEEN on titles and constants that are
    /// not in canonical composition compare the scalars of their compositions, in every store kind (the SQLite
    /// store compares NFC bytes), in a context's evaluation of objects with pending changes, and over dictionaries.
    /// Swift's own `<` answered `"e\u{301}" < "\u{E9}a"` false (and the reverse too).
    @Test(arguments: [false, true])
    func stringComparisonsInPredicatesFollowTheSortOrder(atomicOnly: Bool) throws {
        let folder = TemporaryFolder()
        let (coordinator, stores) = try Self.storeOfEachKind(in: folder, atomicOnly: atomicOnly)
        let titles = [
            "\u{E9}a", "e\u{301}", "\u{E9}", "e", "f", "e\u{301}b", "Z", "\u{212B}", "\u{C5}", "A\u{30A}b", "A",
            "\u{304B}\u{3099}", "\u{304C}a", "\u{304B}", "e\u{301}\u{E9}", "\u{E9}e\u{301}",
        ]
        let context = ManagedObjectContext(coordinator: coordinator)
        for (index, title) in titles.enumerated() {
            let session = context.insertNewObject(forEntityName: "Session")
            session.setValue(title, forKey: "title")
            session.setValue("g\(index)", forKey: "guid")
            try context.assign(session, to: stores[index % stores.count])
        }
        try context.save()
        func composed(_ title: String) -> [UInt32] {
            title.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        }
        func less(_ a: String, _ b: String) -> Bool { composed(a).lexicographicallyPrecedes(composed(b)) }
        func sortedScalars(_ titles: [String]) -> [[UInt32]] {
            titles.map(composed).sorted { $0.lexicographicallyPrecedes($1) }
        }
        func titlesOf(_ objects: [ManagedObject]) -> [String] {
            objects.map { $0.value(forKey: "title") as? String ?? "" }
        }
        let tests: [(String, ComparisonOperator, (String, String) -> Bool)] = [
            ("<", .lessThan, { less($0, $1) }), ("<=", .lessThanOrEqualTo, { !less($1, $0) }),
            (">", .greaterThan, { less($1, $0) }), (">=", .greaterThanOrEqualTo, { !less($0, $1) }),
        ]
        // Each a constant some title is canonically equivalent to but spelled otherwise, or one between titles.
        let constants = [
            "e\u{301}a", "\u{E9}a", "\u{E9}", "e\u{301}", "\u{C5}b", "\u{212B}", "\u{304C}", "\u{304B}\u{3099}a",
        ]
        let pending = ManagedObjectContext(coordinator: coordinator)
        let extra = pending.insertNewObject(forEntityName: "Session")
        extra.setValue("e\u{301}a", forKey: "title")
        extra.setValue("extra", forKey: "guid")
        for constant in constants {
            let shown = constant.unicodeScalars.map(\.value)
            for (op, comparison, holds) in tests {
                let format = "title \(op) %@"
                let matching = titles.filter { holds($0, constant) }
                let request = FetchRequest(entityName: "Session")
                request.predicate = try ObjectPredicate(format: format, constant)
                let fetched = try ManagedObjectContext(coordinator: coordinator).fetch(request)
                #expect(sortedScalars(titlesOf(fetched)) == sortedScalars(matching), "\(format) with \(shown)")
                // A context with a pending object evaluates the stores' objects and its own in memory.
                let withPending = sortedScalars(titlesOf(try pending.fetch(request)))
                let pendingMatching = matching + (holds("e\u{301}a", constant) ? ["e\u{301}a"] : [])
                #expect(withPending == sortedScalars(pendingMatching), "pending, \(format) with \(shown)")
                // Over dictionaries; the typed kernel that stores' column tests use; the general path.
                let predicate = try ObjectPredicate(format: format, constant)
                let kernel = try ComparisonFastPath.make(comparison, constant: constant, options: [], name: "title")
                for title in titles {
                    let expected = holds(title, constant)
                    let what = "\(title.unicodeScalars.map(\.value)) \(format) \(shown)"
                    #expect(try predicate.evaluate(with: ["title": title]) == expected, "dictionary \(what)")
                    #expect(try kernel(title) == expected, "kernel \(what)")
                    let general = try ComparisonEvaluator.evaluate(
                        comparison, title, constant, options: [], name: "title")
                    #expect(general == expected, "general \(what)")
                }
            }
            let between = try ObjectPredicate(format: "title BETWEEN {%@, %@}", constant, "f")
            for title in titles {
                #expect(try between.evaluate(with: ["title": title]) == (!less(title, constant) && !less("f", title)))
            }
        }
        // @max and @min of a collection order the same way, whichever comes first.
        for pair in [["\u{E9}a", "e\u{301}"], ["e\u{301}", "\u{E9}a"]] {
            #expect(try ObjectPredicate(format: "titles.@max == %@", "\u{E9}a").evaluate(with: ["titles": pair]))
            #expect(try ObjectPredicate(format: "titles.@min == %@", "\u{E9}").evaluate(with: ["titles": pair]))
        }
    }

    /// A limited walk over a predicate that matches little tests records one by one, then switches to columns it
    /// makes after a few thousand: the results stay those of evaluating each object, before and after the switch.
    @Test(arguments: [1, 2])
    func longLimitedWalksSwitchToColumns(storeCount: Int) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let stores = try (0..<storeCount).map { _ in try coordinator.addPersistentStore(type: .inMemory) }
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<10_000 {
            let session = context.insertNewObject(forEntityName: "Session")
            session.setValue("g\(index)", forKey: "guid")
            session.setValue(Self.titles[index % Self.titles.count], forKey: "title")
            // Duration 7 only under the last title of the order ("delta"), so the walk passes thousands first.
            let title = Self.titles[index % Self.titles.count]
            session.setValue(title == "delta" && index % 97 == 0 ? 7 : 15, forKey: "duration")
            try context.assign(session, to: stores[index % storeCount])
        }
        try context.save()
        let predicate = try ObjectPredicate(format: "duration == 7 AND guid != 'g3'")
        let model = coordinator.managedObjectModel
        let names = Set(model.entitiesByName["Session"]!.selfAndDescendants.map(\.name))
        let key = SortedOrder.Key(entityNames: names, sortKeys: [SortKey("title"), SortKey("guid")])
        for limit in [3, 5, 0] {
            let request = FetchRequest(entityName: "Session")
            request.predicate = predicate
            request.sortKeys = [SortKey("title"), SortKey("guid")]
            request.fetchLimit = limit
            let fetched = try ManagedObjectContext(coordinator: coordinator).fetch(request).map(\.objectID)
            let reference = try expected(coordinator, entity: "Session", predicate: predicate, keys: request.sortKeys,
                                         offset: 0, limit: limit)
            #expect(reference.count == (limit == 0 ? 15 : limit) && fetched == reference, "limit \(limit)")
            if storeCount == 1, limit == 3 {
                // The first limited walk made the columns.
                let store = try #require(stores[0] as? AtomicStore)
                let order = try store.sortedOrder(
                    StoreFetchRequest(entity: model.entitiesByName["Session"]!, entityNames: names, predicate: nil,
                                      sortKeys: key.sortKeys, limit: 0), key: key)
                #expect(order.columns.columnCount == 2)
            }
        }
    }

    @Test func cachedOrdersFollowSavesInsertsAndDeletes() throws {
        let folder = TemporaryFolder()
        let (coordinator, stores) = try populatedCoordinator(folder)
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("title"), SortKey("guid")]
        request.fetchLimit = 3
        request.affectedStores = [stores[0]]
        let before = try ManagedObjectContext(coordinator: coordinator).fetch(request)
        #expect(before.count == 3)

        // Rename the last object of the store so it sorts first; delete the current first; insert a new first.
        let context = ManagedObjectContext(coordinator: coordinator)
        let all = try context.fetch({
            let all = FetchRequest(entityName: "Session")
            all.sortKeys = request.sortKeys
            all.affectedStores = [stores[0]]
            return all
        }())
        let renamed = all.last!
        renamed.setValue("AAA renamed", forKey: "title")
        context.delete(all.first!)
        let inserted = context.makeSession("new", title: "AAA new")
        try context.assign(inserted, to: stores[0])
        try context.save()

        let after = try ManagedObjectContext(coordinator: coordinator).fetch(request)
        #expect(after.map { $0.value(forKey: "title") as? String } == ["AAA new", "AAA renamed", before[1].value(forKey: "title") as? String])
        #expect(after[1].objectID == renamed.objectID)
        #expect(!after.contains { $0.objectID == all.first!.objectID })
        #expect(after[2].objectID == before[1].objectID)
    }

    /// Fetches over several atomic stores reuse a merged order; every save, removal, replacement and re-adding
    /// of a store makes the next fetch see the change.
    @Test func mergedOrdersFollowSavesAndStoreChanges() throws {
        let folder = TemporaryFolder()
        let (coordinator, stores) = try populatedCoordinator(folder, atomicOnly: true)
        let keys = [SortKey("title"), SortKey("duration", ascending: false)]
        func check(_ step: String) throws {
            for limit in [0, 7] {
                let request = FetchRequest(entityName: "Session")
                request.sortKeys = keys
                request.fetchLimit = limit
                request.fetchOffset = 2
                let fetched = try ManagedObjectContext(coordinator: coordinator).fetch(request).map(\.objectID)
                #expect(fetched == (try expected(coordinator, entity: "Session", predicate: nil, keys: keys, offset: 2,
                                                 limit: limit)), "\(step), limit \(limit)")
            }
            // Counts over the atomic stores are kept too, and must follow the same changes.
            for predicate in [nil, try ObjectPredicate(format: "duration > 30")] {
                let request = FetchRequest(entityName: "Session")
                request.predicate = predicate
                let context = ManagedObjectContext(coordinator: coordinator)
                #expect(try context.count(for: request) == (try context.fetch(request).count),
                        "\(step), count where \(predicate.map { "\($0)" } ?? "-")")
            }
        }
        try check("first fetch")
        try check("cached")

        let context = ManagedObjectContext(coordinator: coordinator)
        let first = FetchRequest(entityName: "Session")
        first.sortKeys = keys
        let sessions = try context.fetch(first)
        sessions.last!.setValue("AAA", forKey: "title")
        context.delete(sessions[3])
        try context.assign(context.makeSession("new", title: "Alpha"), to: stores[3])
        try context.assign(context.makeSession("newer", title: "Beta"), to: stores[0])
        try context.save()
        try check("after a save")

        try coordinator.remove(stores[1])
        try check("after removing a store")
        let replacement = try coordinator.loadDetachedStore(type: .binary, at: stores[1].url!)
        try coordinator.replace(stores[2], with: replacement)
        try check("after replacing a store")
        try coordinator.attach(try coordinator.loadDetachedStore(type: .xml, at: folder.file("c.xml")))
        try check("after attaching a store")
    }

    @Test func countsCallingNowAreNotKept() throws {
        let folder = TemporaryFolder()
        let (coordinator, _) = try populatedCoordinator(folder, atomicOnly: true)
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "start < now() OR start == nil")
        #expect(try context.count(for: request) == (try context.fetch(request).count))
        #expect(coordinator.counts.count == 0)
        request.predicate = try ObjectPredicate(format: "start == nil")
        #expect(try context.count(for: request) == (try context.fetch(request).count))
        #expect(coordinator.counts.count == 1)
    }

    @Test func theTokenWithoutWaitingIsNilWhileAnotherThreadReadsASerializingStore() throws {
        let folder = TemporaryFolder()
        let (coordinator, stores) = try populatedCoordinator(folder)
        let sqlite = stores[2]  // SQLite answers one read at a time
        let token = try #require(try coordinator.contentTokenWithoutWaiting())
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            sqlite.serializingReads {
                entered.signal()
                release.wait()
            }
            finished.signal()
        }.start()
        entered.wait()
        #expect(try coordinator.contentTokenWithoutWaiting() == nil)
        release.signal()
        finished.wait()
        #expect(try coordinator.contentTokenWithoutWaiting() == token)
    }

    @Test func aFailedSaveLeavesTheCachedOrderValid() throws {
        let folder = TemporaryFolder()
        let (coordinator, stores) = try populatedCoordinator(folder)
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("duration", ascending: false), SortKey("guid")]
        request.affectedStores = [stores[1]]
        let before = try ManagedObjectContext(coordinator: coordinator).fetch(request).map(\.objectID)

        // Two contexts change the same object: the second save is a merge conflict and changes nothing.
        let first = ManagedObjectContext(coordinator: coordinator)
        let second = ManagedObjectContext(coordinator: coordinator)
        let id = before[0]
        try first.existingObject(with: id).setValue(0, forKey: "duration")
        try second.existingObject(with: id).setValue(5, forKey: "duration")
        try first.save()
        #expect(throws: StoreError.self) { try second.save() }

        let after = try ManagedObjectContext(coordinator: coordinator).fetch(request)
        #expect(after.map(\.objectID) != before)
        let durations = after.map { $0.value(forKey: "duration") as? Int ?? -1 }
        #expect(durations == durations.sorted(by: >))
        #expect(after.first { $0.objectID == id }?.value(forKey: "duration") as? Int == 0)
        #expect(!durations.contains(5))
        #expect(Set(after.map(\.objectID)) == Set(before))
    }
}

@Suite("Cancelled scans")
struct CancelledScanTests {
    @Test func aFetchInACancelledTaskStopsWithCancellationError() async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        for index in 0..<20_000 { context.makeSession("g\(index)", title: "Talk \(index % 97)") }
        try context.save()
        let scan = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let request = FetchRequest(entityName: "Session")
            request.predicate = try ObjectPredicate(format: "title ENDSWITH '1'")
            request.sortKeys = [SortKey("title")]
            return try ManagedObjectContext(coordinator: coordinator).fetch(request).count
        }
        await #expect(throws: CancellationError.self) { try await scan.value }
        // The same fetch outside a cancelled task answers, and the store is unchanged.
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "title ENDSWITH '1'")
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: request) > 0)
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Session")) == 20_000)
    }
}

@Suite("Context lifetime")
struct ContextLifetimeTests {
    @Test func releasingAContextFreesObjectsThatReferToEachOther() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let setup = fixture.context()
        let room = setup.insertNewObject(forEntityName: "Room")
        room.setValue("Hall A", forKey: "name")
        for index in 0..<3 { setup.makeSession("g\(index)").setValue(room, forKey: "room") }
        try setup.save()

        weak var weakSession: ManagedObject?
        weak var weakRoom: ManagedObject?
        do {
            let context = fixture.context()
            let sessions = try context.fetch(FetchRequest(entityName: "Session"))
            weakSession = sessions.first
            weakRoom = sessions.first?.value(forKey: "room") as? ManagedObject
            // Session -> room -> sessions -> session: a reference cycle while the context lives.
            #expect(weakRoom?.objects(forKey: "sessions").count == 3)
        }
        #expect(weakSession == nil)
        #expect(weakRoom == nil)
        // The store still holds everything.
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Session")) == 3)
    }
}
