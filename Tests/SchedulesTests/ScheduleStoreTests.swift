import Foundation
import ObjectGraph
@testable import ObjectGraphTestSupport
import Schedules
import Testing

@Suite("Schedule file stores")
struct ScheduleStoreTests {
    static let dataFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/schedules")

    func coordinator() -> PersistentStoreCoordinator {
        ScheduleFileStore.registerTypes()
        return PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
    }

    @Test(arguments: [("swift-server-days-2026.xml", PersistentStoreType.frabXML, 18),
                      ("plumbing-camp-2026.json", .frabJSON, 14),
                      ("open-data-evening-2026.ics", .iCalendar, 9)])
    func sampleFilesLoadAsStores(file: String, type: PersistentStoreType, sessions: Int) throws {
        let coordinator = coordinator()
        let url = Self.dataFolder.appendingPathComponent(file)
        let store = try coordinator.addPersistentStore(type: type, configurationName: "Schedule", at: url,
                                                       options: [.readOnly: true])
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("start"), SortKey("guid")]
        let fetched = try context.fetch(request)
        #expect(fetched.count == sessions)
        let first = fetched[0]
        #expect((first.value(forKey: "conference") as? ManagedObject)?.value(forKey: "acronym") != nil)
        #expect(first.value(forKey: "room") is ManagedObject)
        let room = try #require(first.value(forKey: "room") as? ManagedObject)
        #expect(room.objects(forKey: "sessions").contains(first))
        #expect(store.identifier == (try coordinator.loadDetachedStore(type: type, configurationName: "Schedule", at: url,
                                                                        options: [.readOnly: true]).identifier))
        first.setValue("changed", forKey: "title")
        #expect(throws: StoreError(code: .readOnlyStore, message: "")) { try context.save() }
    }

    @Test func aFileOfAnotherFormatIsRefused() throws {
        let coordinator = coordinator()
        let url = Self.dataFolder.appendingPathComponent("plumbing-camp-2026.json")
        #expect(throws: StoreError(code: .foreignFile, message: "")) {
            try coordinator.addPersistentStore(type: .frabXML, configurationName: "Schedule", at: url,
                                               options: [.readOnly: true])
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    /// Found by the binary store fuzzer, the same read here: an empty schedule file left the 4 KiB buffer that
    /// Foundation's `Data(contentsOf:)` reads an empty file into on Linux. 10,000 opens leaked 40 MB.
    @Test(.enabled(if: ResidentMemory.bytes > 0)) func emptyFilesAreRefusedAndLeaveNoMemoryBehind() throws {
        let folder = TemporaryFolder()
        let url = folder.file("empty.xml")
        try Data().write(to: url)
        let coordinator = coordinator()
        #expect(throws: StoreError(code: .foreignFile, message: "")) {
            try coordinator.addPersistentStore(type: .frabXML, configurationName: "Schedule", at: url,
                                               options: [.readOnly: true])
        }
        let growth = ResidentMemory.growth(below: 20_000_000) {
            for _ in 0..<10_000 {
                _ = try? coordinator.addPersistentStore(type: .frabXML, configurationName: "Schedule", at: url,
                                                        options: [.readOnly: true])
            }
        }
        #expect(growth < 20_000_000, "resident memory grew by \(growth) bytes")
    }

    @Test func templatesFindSessions() throws {
        let coordinator = coordinator()
        for (file, type) in [("swift-server-days-2026.xml", PersistentStoreType.frabXML),
                             ("plumbing-camp-2026.json", .frabJSON)] {
            try coordinator.addPersistentStore(type: type, configurationName: "Schedule",
                                               at: Self.dataFolder.appendingPathComponent(file),
                                               options: [.readOnly: true])
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        let model = coordinator.managedObjectModel
        let inRoom = try context.fetch(try model.fetchRequestFromTemplate(withName: "SessionsInRoom",
                                                                           substitutionVariables: ["ROOM": "Hall A"]))
        #expect(!inRoom.isEmpty)
        #expect(inRoom.allSatisfy { ($0.value(forKey: "room") as? ManagedObject)?.value(forKey: "name") as? String == "Hall A" })
        let search = try context.fetch(try model.fetchRequestFromTemplate(withName: "SearchSessions",
                                                                           substitutionVariables: ["TEXT": "grace"]))
        #expect(!search.isEmpty)
        let day = try context.fetch(try model.fetchRequestFromTemplate(withName: "SessionsOnDay",
                                                                        substitutionVariables: ["DAY": "2026-11-24"]))
        #expect(!day.isEmpty)
        #expect(throws: ModelError(code: .missingVariable, message: "")) {
            try model.fetchRequestFromTemplate(withName: "SessionsBetween", substitutionVariables: ["START": Date()])
        }
    }
}
