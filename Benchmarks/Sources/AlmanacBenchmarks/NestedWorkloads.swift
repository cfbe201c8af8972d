import BenchmarkSupport
import Foundation
import ObjectGraph
import ObjectGraphSQLite

/// Workloads of nested contexts (issue 27).
enum NestedWorkloads {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("almanac-nested-\(getpid())")

    static func removeFolder() { try? FileManager.default.removeItem(at: folder) }

    /// A child context's save of 10k changed objects into its parent, vs the same changes saved from a context to
    /// the SQLite store; the target is the (≤ 0.25x). Each side fetches the objects and changes one value of
    /// each untimed, then times its save alone (the parent records the pushed changes for undo, as by default).
    static let childSave = Workload(name: "child save of 10k changes into parent vs SQLite save",
                                    target: .ratioAtMost(0.25)) { quick in
        let count = quick ? 2_000 : 10_000
        SQLiteStore.register()
        removeFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: CoreWorkloads.model())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("nested.sqlite"))
        let setup = ManagedObjectContext(coordinator: coordinator)
        setup.isUndoRegistrationEnabled = false
        CoreWorkloads.insert(CoreWorkloads.rows(count), into: setup)
        try setup.save()
        var run = 0
        /// Fetches every session in `context` and gives each a new duration.
        func change(in context: ManagedObjectContext) throws {
            run += 1
            let objects = try context.fetch(FetchRequest(entityName: "Session"))
            precondition(objects.count == count)
            for (index, object) in objects.enumerated() { object.setValue(index + run * 1000, forKey: "duration") }
        }
        return Workload.Timed(sampledOurs: {
            let parent = ManagedObjectContext(coordinator: coordinator)
            let child = ManagedObjectContext(parent: parent)
            try change(in: child)
            let seconds = try Figure.seconds { try child.save() }
            precondition(parent.updatedObjects.count == count)
            return seconds
        }, sampledAnchor: {
            let context = ManagedObjectContext(coordinator: coordinator)
            try change(in: context)
            return try Figure.seconds { try context.save() }
        }, note: "\(count / 1000)k objects, 1 attribute changed each")
    }
}
