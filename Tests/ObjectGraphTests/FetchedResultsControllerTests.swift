import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// The fetched results controller: its results, its reports of changes, and a randomized comparison with fetching
/// again after every change.
@Suite("Fetched results controller")
struct FetchedResultsControllerTests {
    /// Records every report of a controller.
    final class Recorder: FetchedResultsControllerDelegate {
        typealias Result = ManagedObject
        var rounds = 0
        var objectChanges: [(ManagedObject, IndexPath?, FetchedResultsChangeType, IndexPath?)] = []
        var sectionChanges: [(String, Int, FetchedResultsChangeType)] = []
        var updates: [FetchedResultsUpdate] = []
        var order: [String] = []

        func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
            order.append("will")
        }

        func controller(
            _ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject,
            at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?
        ) {
            order.append("object")
            objectChanges.append((object, indexPath, type, newIndexPath))
        }

        func controller(
            _ controller: FetchedResultsController<ManagedObject>,
            didChange sectionInfo: FetchedResultsSectionInfo<ManagedObject>,
            atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
        ) {
            order.append("section")
            sectionChanges.append((sectionInfo.name, sectionIndex, type))
        }

        func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
            order.append("did")
            rounds += 1
        }

        func controller(
            _ controller: FetchedResultsController<ManagedObject>,
            didChangeContentWith update: FetchedResultsUpdate
        ) {
            updates.append(update)
        }

        func reset() {
            objectChanges = []
            sectionChanges = []
            updates = []
            order = []
        }
    }

    @discardableResult
    static func session(_ context: ManagedObjectContext, _ guid: String, duration: Int, title: String? = nil)
        -> ManagedObject
    {
        let session = context.makeSession(guid, title: title ?? guid)
        session.setValue(duration, forKey: "duration")
        return session
    }

    static func request(predicate: String? = nil, limit: Int = 0, offset: Int = 0) throws -> FetchRequest {
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("duration"), SortKey("title")]
        request.predicate = try predicate.map { try ObjectPredicate(format: $0) }
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    static func titles(_ objects: [ManagedObject]?) -> [String] {
        (objects ?? []).map { $0.value(forKey: "title") as? String ?? "?" }
    }

    // MARK: Results

    @Test func performFetchGivesObjectsSectionsAndIndexPaths() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let a = Self.session(context, "a", duration: 30, title: "alpha")
        let b = Self.session(context, "b", duration: 30, title: "beta")
        let c = Self.session(context, "c", duration: 45, title: "gamma")
        try context.save()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(), managedObjectContext: context, sectionNameKeyPath: "duration")
        #expect(controller.fetchedObjects == nil)
        #expect(controller.sections == nil)
        try controller.performFetch()
        #expect(controller.fetchedObjects == [a, b, c])
        let sections = try #require(controller.sections)
        #expect(sections.map(\.name) == ["30", "45"])
        #expect(sections.map(\.numberOfObjects) == [2, 1])
        #expect(sections[0].objects == [a, b])
        #expect(sections.map(\.indexTitle) == ["3", "4"])
        #expect(controller.sectionIndexTitles == ["3", "4"])
        #expect(controller.section(forSectionIndexTitle: "4", at: 1) == 1)
        #expect(controller.object(at: IndexPath(item: 0, section: 1)) === c)
        #expect(controller.indexPath(forObject: b) == IndexPath(item: 1, section: 0))
        let outsider = Self.session(fixture.context(), "x", duration: 1)
        #expect(controller.indexPath(forObject: outsider) == nil)
    }

    @Test func withoutSectionKeyPathThereIsOneSectionEvenWhenEmpty() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(),
            managedObjectContext: context)
        try controller.performFetch()
        #expect(controller.sections?.count == 1)
        #expect(controller.sections?.first?.name == "")
        #expect(controller.sections?.first?.numberOfObjects == 0)
        #expect(controller.fetchedObjects == [])
        let a = Self.session(context, "a", duration: 5)
        context.processPendingChanges()
        #expect(controller.object(at: IndexPath(row: 0, section: 0)) === a)
    }

    /// Core Data code clears the cache, changes the request and fetches again; with no cache kept, the new request
    /// is what counts.
    @Test func aChangedRequestFetchedAgainGivesTheNewResults() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        Self.session(context, "a", duration: 30, title: "alpha")
        Self.session(context, "b", duration: 45, title: "beta")
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(), managedObjectContext: context, cacheName: "Sessions")
        try controller.performFetch()
        #expect(Self.titles(controller.fetchedObjects) == ["alpha", "beta"])
        FetchedResultsController<ManagedObject>.deleteCache(withName: "Sessions")
        controller.fetchRequest.predicate = try ObjectPredicate(format: "duration > 40")
        try controller.performFetch()
        #expect(Self.titles(controller.fetchedObjects) == ["beta"])
        Self.session(context, "c", duration: 50, title: "gamma")
        Self.session(context, "d", duration: 10, title: "delta")
        context.processPendingChanges()
        #expect(Self.titles(controller.fetchedObjects) == ["beta", "gamma"])
    }

    @Test func typedRequestsFetchTheirClass() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let run = context.insertNewObject(forEntityName: "Run") as! Run
        run.processID = 7
        try context.save()
        let request = TypedFetchRequest<Run>(entityName: "Run")
        request.sortKeys = [SortKey("processID")]
        let runs: [Run] = try context.fetch(request)
        #expect(runs.map(\.processID) == [7])
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        try controller.performFetch()
        #expect(controller.fetchedObjects?.first?.processID == 7)
    }

    @Test func typedFetchOfAnotherClassThrowsInvalidFetchRequest() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        Self.session(context, "a", duration: 5)
        try context.save()
        let request = TypedFetchRequest<Run>(entityName: "Session")
        #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) { _ = try context.fetch(request) }
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) { try controller.performFetch() }
        #expect(controller.fetchedObjects == nil)
        #expect(!context.hasChanges)
    }

    @Test func performFetchOfUnknownEntityThrowsAndKeepsTheResults() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let a = Self.session(context, "a", duration: 5)
        let request = try Self.request()
        let controller = FetchedResultsController<ManagedObject>(fetchRequest: request, managedObjectContext: context)
        try controller.performFetch()
        request.entityName = "Nope"
        #expect(throws: ModelError(code: .unknownEntity, message: "")) { try controller.performFetch() }
        #expect(controller.fetchedObjects == [a])
        request.entityName = "Session"
        request.resultType = .dictionary
        #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) { try controller.performFetch() }
        #expect(controller.fetchedObjects == [a])
    }

    // MARK: Reports

    @Test func delegateHearsInsertsDeletesMovesUpdatesAndSections() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let a = Self.session(context, "a", duration: 30, title: "alpha")
        let b = Self.session(context, "b", duration: 30, title: "beta")
        let c = Self.session(context, "c", duration: 45, title: "gamma")
        try context.save()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(), managedObjectContext: context, sectionNameKeyPath: "duration")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(recorder.rounds == 0)

        // A new section with a new object.
        let d = Self.session(context, "d", duration: 60, title: "delta")
        context.processPendingChanges()
        #expect(recorder.order == ["will", "section", "object", "did"])
        #expect(recorder.sectionChanges.map(\.0) == ["60"])
        #expect(recorder.sectionChanges.map(\.1) == [2])
        #expect(recorder.sectionChanges.map(\.2) == [.insert])
        #expect(recorder.objectChanges.map(\.0) == [d])
        #expect(recorder.objectChanges.map(\.2) == [.insert])
        #expect(recorder.objectChanges.map(\.3) == [IndexPath(item: 0, section: 2)])

        // A title change that keeps the order: an update.
        recorder.reset()
        a.setValue("aardvark", forKey: "title")
        context.processPendingChanges()
        #expect(recorder.objectChanges.map(\.2) == [.update])
        #expect(recorder.objectChanges.map(\.1) == [IndexPath(item: 0, section: 0)])
        #expect(recorder.updates.first?.difference.isEmpty == true)

        // A title change past its neighbour: a move.
        recorder.reset()
        a.setValue("zebra", forKey: "title")
        context.processPendingChanges()
        #expect(recorder.objectChanges.map(\.2) == [.move])
        #expect(recorder.objectChanges.first?.1 == IndexPath(item: 0, section: 0))
        #expect(recorder.objectChanges.first?.3 == IndexPath(item: 1, section: 0))
        #expect(controller.fetchedObjects == [b, a, c, d])

        // The last object of a section moves to another: the section vanishes.
        recorder.reset()
        c.setValue(30, forKey: "duration")
        context.processPendingChanges()
        #expect(recorder.sectionChanges.map(\.2) == [.delete])
        #expect(recorder.sectionChanges.map(\.0) == ["45"])
        #expect(recorder.objectChanges.map(\.2) == [.move])
        #expect(controller.sections?.map(\.name) == ["30", "60"])

        // A deletion.
        recorder.reset()
        context.delete(b)
        context.processPendingChanges()
        #expect(recorder.objectChanges.map(\.2) == [.delete])
        #expect(recorder.objectChanges.map(\.1) == [IndexPath(item: 0, section: 0)])
        #expect(controller.fetchedObjects == [c, a, d])
        #expect(recorder.rounds == 5)

        // A change that does not touch the results reports nothing.
        recorder.reset()
        Self.session(context, "n", duration: 10).setValue(nil, forKey: "title")
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("x", forKey: "text")
        context.processPendingChanges()
        #expect(recorder.rounds == 6)  // the session without a title sorts first: one insert
        recorder.reset()
        note.setValue("y", forKey: "text")
        context.processPendingChanges()
        #expect(recorder.order.isEmpty)
    }

    @Test func objectsEnterAndLeaveWithThePredicate() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let a = Self.session(context, "a", duration: 30)
        try context.save()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(predicate: "duration > 20"), managedObjectContext: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        a.setValue(10, forKey: "duration")
        context.processPendingChanges()
        #expect(recorder.objectChanges.map(\.2) == [.delete])
        #expect(controller.fetchedObjects == [])
        a.setValue(40, forKey: "duration")
        context.processPendingChanges()
        #expect(recorder.objectChanges.map(\.2) == [.delete, .insert])
        #expect(controller.fetchedObjects == [a])
    }

    @Test func fetchLimitRefillsFromTheMatchingObjects() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let objects = (0..<5).map { Self.session(context, "s\($0)", duration: $0 * 10) }
        try context.save()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(limit: 2), managedObjectContext: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.fetchedObjects == [objects[0], objects[1]])
        context.delete(objects[0])
        context.processPendingChanges()
        #expect(controller.fetchedObjects == [objects[1], objects[2]])
        #expect(Set(recorder.objectChanges.map(\.2)) == [.delete, .insert])
    }

    @Test func savesAndMergesFromOtherContextsAreReported() async throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let a = Self.session(context, "a", duration: 30)
        try context.save()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(),
            managedObjectContext: context)
        try controller.performFetch()
        let updates = controller.updates()
        let other = fixture.context()
        let b = Self.session(other, "b", duration: 10)
        let otherA = try other.existingObject(with: a.objectID)
        otherA.setValue(5, forKey: "duration")
        var saved: [ContextDidSave] = []
        other.addObserver { if case .didSave(let event) = $0 { saved.append(event) } }
        try other.save()
        context.mergeChanges(fromContextDidSave: try #require(saved.first))
        #expect(controller.fetchedObjects?.map(\.objectID) == [a.objectID, b.objectID])
        var iterator = updates.makeAsyncIterator()
        let update = try #require(await iterator.next())
        #expect(update.objectChanges.map(\.type).sorted { "\($0)" < "\($1)" } == [.insert, .update])
        #expect([a.objectID].applying(update.difference) == [a.objectID, b.objectID])
    }

    @Test func newObjectsSavedChangeTheirIDsInTheSnapshot() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: try Self.request(),
            managedObjectContext: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let a = Self.session(context, "a", duration: 30)
        context.processPendingChanges()
        let temporary = a.objectID
        try context.save()
        let update = try #require(recorder.updates.last)
        #expect([temporary].applying(update.difference) == [a.objectID])
        #expect(!a.objectID.isTemporaryID)
    }

    // MARK: Against fetching again

    struct Configuration: Sendable, CustomStringConvertible {
        var sections: Bool
        var predicate: String?
        var limit = 0
        var offset = 0
        var kind: StoreKind = .inMemory
        var description: String {
            "sections \(sections), predicate \(predicate ?? "none"), limit \(limit), offset \(offset), \(kind)"
        }
    }

    static let configurations: [Configuration] = [
        Configuration(sections: false, predicate: nil),
        Configuration(sections: true, predicate: nil),
        Configuration(sections: true, predicate: "duration != 30 AND title != 'c'"),
        Configuration(sections: false, predicate: "duration != 20", limit: 7),
        Configuration(sections: true, predicate: "title != 'b'", limit: 9, offset: 4),
        Configuration(sections: true, predicate: "duration >= 20", kind: .sqlite),
        Configuration(sections: false, predicate: nil, limit: 5, kind: .binary),
    ]

    /// Random inserts, deletes, value changes, saves, undos, rollbacks and merges from another context: after each round the
    /// controller's objects and sections equal a new fetch's, its difference turns the old IDs into the new, and
    /// its per-object and per-section changes, applied as a table view applies batch updates, turn the old sections
    /// into the new.
    @Test(arguments: configurations)
    func resultsEqualFetchingAgainAfterRandomChanges(_ configuration: Configuration) throws {
        let fixture = Fixture(configuration.kind)
        try fixture.addStore()
        let context = fixture.context()
        let other = fixture.context()
        var random = SeededGenerator(seed: 27)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let titles = ["a", "b", "c", "d", "e"]
        let durations = [10, 20, 30, 40]
        var counter = 0
        for _ in 0..<30 {
            counter += 1
            Self.session(context, "g\(counter)", duration: pick(durations), title: pick(titles))
        }
        try context.save()
        let request = try Self.request(
            predicate: configuration.predicate, limit: configuration.limit,
            offset: configuration.offset)
        let controller = FetchedResultsController<ManagedObject>(
            fetchRequest: request, managedObjectContext: context,
            sectionNameKeyPath: configuration.sections ? "duration" : nil)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        // Both contexts change the same objects: each save keeps its own values.
        context.mergePolicy = .overwrite
        other.mergePolicy = .overwrite
        var saves: [ContextDidSave] = []
        other.addObserver { if case .didSave(let event) = $0 { saves.append(event) } }

        func live() throws -> [ManagedObject] {
            try context.fetch(request).filter { !$0.isDeleted }
        }
        var before = try #require(controller.fetchedObjects)
        var sectionsBefore = (controller.sections ?? []).map { $0.objects ?? [] }
        for round in 0..<150 {
            recorder.reset()
            let objects = try context.all("Session")
            switch random.next() % 10 {
            case 0, 1:
                counter += 1
                Self.session(context, "g\(counter)", duration: pick(durations), title: pick(titles))
            case 2:
                if !objects.isEmpty { context.delete(pick(objects)) }
            case 3, 4:
                if !objects.isEmpty { pick(objects).setValue(pick(durations), forKey: "duration") }
            case 5:
                if !objects.isEmpty { pick(objects).setValue(pick(titles), forKey: "title") }
            case 6:
                for _ in 0..<3 where !objects.isEmpty {
                    pick(objects).setValue(pick(titles), forKey: "title")
                    pick(objects).setValue(pick(durations), forKey: "duration")
                }
            case 7:
                try context.save()
            case 8:
                // Another context saves; this one merges.
                let theirs = try other.all("Session")
                counter += 1
                Self.session(other, "o\(counter)", duration: pick(durations), title: pick(titles))
                if !theirs.isEmpty {
                    let changed = pick(theirs)
                    if !changed.isDeleted, context.registeredObject(for: changed.objectID)?.hasChanges != true {
                        changed.setValue(pick(durations), forKey: "duration")
                    }
                }
                try other.save()
                context.mergeChanges(fromContextDidSave: try #require(saves.last))
            default:
                if random.next() % 4 == 0 { context.rollback() } else { context.undo() }
            }
            context.processPendingChanges()
            let after = try #require(controller.fetchedObjects)
            let expected = try live()
            let same = after == expected
            #expect(same, "round \(round): \(Self.titles(after)) vs \(Self.titles(expected))")
            let sectionsAfter = (controller.sections ?? []).map { $0.objects ?? [] }
            if configuration.sections {
                var grouped: [[ManagedObject]] = []
                for object in expected {
                    if let last = grouped.last?.last,
                        last.value(forKey: "duration") as? Int == object.value(forKey: "duration") as? Int
                    {
                        grouped[grouped.count - 1].append(object)
                    } else {
                        grouped.append([object])
                    }
                }
                let sameSections = sectionsAfter == grouped
                #expect(sameSections, "round \(round)")
            } else {
                let oneSection = sectionsAfter == [expected]
                #expect(oneSection, "round \(round)")
            }
            // The snapshot difference.
            let updates = recorder.updates
            #expect(updates.count <= 1)
            var ids = before.map(\.objectID)
            if let update = updates.first { ids = try #require(ids.applying(update.difference)) }
            #expect(ids == after.map(\.objectID), "round \(round)")
            // The per-object and per-section changes, as a table view applies them.
            let batchApplies =
                Self.applyingBatch(recorder, to: sectionsBefore, sectioned: configuration.sections)
                .map { $0.map(ObjectIdentifier.init) } == sectionsAfter.map { $0.map(ObjectIdentifier.init) }
            #expect(
                batchApplies,
                "round \(round): \(recorder.objectChanges.map { ($0.1, $0.2, $0.3) }) \(recorder.sectionChanges)")
            before = after
            sectionsBefore = sectionsAfter
        }
        // The stream of rounds closes with the controller; the context stays usable.
        #expect(controller.fetchedObjects?.count == (try live()).count)
    }

    /// Applies reported changes as UIKit's batch updates do: deletions at old index paths (and move sources), then
    /// insertions at new index paths (and move destinations), in ascending order; updates at old index paths must
    /// name the object that was there.
    static func applyingBatch(_ recorder: Recorder, to old: [[ManagedObject]], sectioned: Bool) -> [[ManagedObject]] {
        var removedPaths: Set<IndexPath> = []
        var inserts: [(IndexPath, ManagedObject)] = []
        for (object, path, type, newPath) in recorder.objectChanges {
            switch type {
            case .delete: removedPaths.insert(path!)
            case .insert: inserts.append((newPath!, object))
            case .move:
                removedPaths.insert(path!)
                inserts.append((newPath!, object))
            case .update:
                if old[path!.section][path!.item] !== object { return [[]] }
            }
        }
        let deletedSections = Set(recorder.sectionChanges.filter { $0.2 == .delete }.map(\.1))
        var sections: [[ManagedObject]] = []
        for (section, objects) in old.enumerated() {
            let kept = objects.enumerated().filter {
                !removedPaths.contains(IndexPath(item: $0.offset, section: section))
            }
            .map(\.element)
            if deletedSections.contains(section) {
                if !kept.isEmpty { return [[]] }
                continue
            }
            sections.append(kept)
        }
        for section in recorder.sectionChanges.filter({ $0.2 == .insert }).map(\.1).sorted() {
            sections.insert([], at: section)
        }
        for (path, object) in inserts.sorted(by: { ($0.0.section, $0.0.item) < ($1.0.section, $1.0.item) }) {
            guard path.section < sections.count, path.item <= sections[path.section].count else { return [[]] }
            sections[path.section].insert(object, at: path.item)
        }
        if !sectioned, sections.isEmpty { return [[]] }
        return sections
    }
}
