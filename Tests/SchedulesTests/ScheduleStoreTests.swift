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

    static let twoRooms = frabXML(
        conference: "<time_zone_name>UTC</time_zone_name>",
        days: """
            <day index="1" date="2020-01-01">
            <room name="B"><event guid="S1"><start>09:00</start><duration>01:00</duration><title>One</title>\
            <track>T2</track><slug>one</slug><persons><person id="1">Ada</person><person id="2">Bo</person></persons>\
            <links><link href="https://example.org/1">Slides</link><link href="https://example.org/2">Video</link>\
            </links></event>
            <event guid="S2"><start>10:00</start><duration>01:00</duration><title>Two</title><track>T1</track>\
            <persons><person id="2">Bo</person></persons></event></room>
            <room name="A"><event guid="S3"><start>09:00</start><duration>01:00</duration><title>Three</title>\
            <track>T2</track><persons><person id="1">Ada</person></persons></event></room>
            </day>
            <day index="2" date="2020-01-02">
            <room name="B"><event guid="S4"><start>09:00</start><duration>01:00</duration><title>Four</title>\
            <track>T2</track></event></room>
            </day>
            """)

    /// Both sides of every relationship, each to-many list in the file's order, and session reference keys in the
    /// file's order: what the records of a schedule file store are made with.
    @Test func recordsLinkBothSidesInTheFilesOrder() throws {
        let folder = TemporaryFolder()
        let url = folder.file("two-rooms.xml")
        try Self.twoRooms.write(to: url)
        let coordinator = coordinator()
        try coordinator.addPersistentStore(
            type: .frabXML, configurationName: "Schedule", at: url, options: [.readOnly: true])
        let context = ManagedObjectContext(coordinator: coordinator)
        func titles(_ objects: [ManagedObject]) -> [String] {
            objects.map { $0.value(forKey: "title") as? String ?? "?" }
        }
        func named(_ entity: String, _ name: String) throws -> ManagedObject {
            let request = FetchRequest(entityName: entity)
            request.predicate = try ObjectPredicate(format: "name == %@", argumentArray: [name])
            return try #require(try context.fetch(request).first)
        }
        let sessions = try context.fetch(FetchRequest(entityName: "Session"))
            .sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }
        #expect(titles(sessions) == ["One", "Two", "Three", "Four"])
        #expect(titles(try named("Room", "B").objects(forKey: "sessions")) == ["One", "Two", "Four"])
        #expect(titles(try named("Room", "A").objects(forKey: "sessions")) == ["Three"])
        #expect(titles(try named("Track", "T2").objects(forKey: "sessions")) == ["One", "Three", "Four"])
        #expect(titles(try named("Person", "Ada").objects(forKey: "sessions")) == ["One", "Three"])
        #expect(titles(try named("Person", "Bo").objects(forKey: "sessions")) == ["One", "Two"])
        let one = sessions[0]
        #expect(one.objects(forKey: "persons").map { $0.value(forKey: "name") as? String } == ["Ada", "Bo"])
        #expect(one.objects(forKey: "links").map { $0.value(forKey: "title") as? String } == ["Slides", "Video"])
        #expect(one.objects(forKey: "links").allSatisfy { $0.value(forKey: "session") as? ManagedObject == one })
        #expect((one.value(forKey: "track") as? ManagedObject)?.value(forKey: "name") as? String == "T2")
        #expect(one.value(forKey: "slug") as? String == "one")
        let conference = try #require(one.value(forKey: "conference") as? ManagedObject)
        #expect(titles(conference.objects(forKey: "sessions")) == ["One", "Two", "Three", "Four"])
        #expect(conference.objects(forKey: "days").map { $0.value(forKey: "index") as? Int } == [1, 2])
        let day2 = try #require(sessions[3].value(forKey: "day") as? ManagedObject)
        #expect(titles(day2.objects(forKey: "sessions")) == ["Four"])
    }

    /// A model (an Xcode model given to the daemon) whose session lacks properties the reader fills: the file
    /// still loads, with every value the model has a property for.
    @Test func aModelWithoutSomeSessionPropertiesStillLoads() throws {
        let folder = TemporaryFolder()
        let url = folder.file("two-rooms.xml")
        try Self.twoRooms.write(to: url)
        ScheduleFileStore.registerTypes()
        let model = ScheduleModel.make()
        let session = try #require(model.entitiesByName["Session"])
        session.properties = session.properties.filter { !["slug", "feedbackURL"].contains($0.name) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(
            try coordinator.addPersistentStore(
                type: .frabXML, configurationName: "Schedule", at: url, options: [.readOnly: true]) as? AtomicStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("start"), SortKey("title")]
        let sessions = try context.fetch(request)
        #expect(sessions.map { $0.value(forKey: "title") as? String } == ["One", "Three", "Two", "Four"])
        #expect(sessions[0].objects(forKey: "persons").count == 2)
        #expect((sessions[0].value(forKey: "room") as? ManagedObject)?.value(forKey: "name") as? String == "B")
        // The store's record keeps the value the model has no property for, beside the others.
        let one = try #require(store.cacheNode(for: sessions[0].objectID))
        #expect(one["slug"] as? String == "one")
        #expect(one["title"] as? String == "One")
        #expect(one["room"] as? ManagedObjectID == (sessions[0].value(forKey: "room") as? ManagedObject)?.objectID)
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
