import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Derived attributes are recomputed on save and kept by every store type.
@Suite("Store conformance: derived attributes")
struct DerivedAttributeConformanceTests {
    /// Rooms with sessions; each expression kind is a derived attribute.
    static func makeModel() throws -> ManagedObjectModel {
        let sessionCount = DerivedAttributeDescription()
        sessionCount.name = "sessionCount"
        sessionCount.attributeType = .integer64
        sessionCount.derivationExpression = try ObjectExpression(format: "sessions.@count")
        let room = EntityDescription(
            name: "Room",
            properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "sessions", destination: "Session", inverse: "room", toMany: true),
                sessionCount,
                DerivedAttributeDescription(
                    name: "totalMinutes", type: .integer64,
                    derivationExpression: try ObjectExpression(format: "sessions.@sum.duration")),
            ])
        let session = EntityDescription(
            name: "Session",
            properties: [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "duration", type: .integer32, defaultValue: 0),
                RelationshipDescription(name: "room", destination: "Room", inverse: "sessions"),
                DerivedAttributeDescription(
                    name: "roomName", type: .string,
                    derivationExpression: try ObjectExpression(format: "room.name")),
                DerivedAttributeDescription(
                    name: "searchTitle", type: .string,
                    derivationExpression: try ObjectExpression(format: "canonical:(title)")),
                DerivedAttributeDescription(
                    name: "savedAt", type: .date,
                    derivationExpression: try ObjectExpression(format: "now()")),
            ])
        return ManagedObjectModel(entities: [room, session])
    }

    struct Store {
        let folder = TemporaryFolder()
        let coordinator: PersistentStoreCoordinator
        let url: URL
        let kind: StoreKind

        init(_ kind: StoreKind) throws {
            self.kind = kind
            url = kind.url("derived", in: folder)
            coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
            try coordinator.addPersistentStore(type: kind.type, configurationName: nil, at: url, options: [:])
        }

        func context() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }

        /// The saved objects of `entity` as another coordinator reads them from the store, by `key`.
        func reopened(_ entity: String, by key: String) throws -> [String: ManagedObject] {
            // An in-memory store lives in its coordinator only: read it through a new context there.
            var other = coordinator
            if kind.type != .inMemory {
                other = PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
                try other.addPersistentStore(type: kind.type, configurationName: nil, at: url, options: [:])
            }
            let context = ManagedObjectContext(coordinator: other)
            let objects = try context.fetch(FetchRequest(entityName: entity))
            // Keep the context alive with the objects: faults fire through it.
            keep.append(context)
            return Dictionary(uniqueKeysWithValues: objects.map { ($0.value(forKey: key) as! String, $0) })
        }

        private let keepBox = KeepBox()
        private var keep: [ManagedObjectContext] {
            get { keepBox.contexts }
            nonmutating set { keepBox.contexts = newValue }
        }
        final class KeepBox { var contexts: [ManagedObjectContext] = [] }
    }

    @discardableResult
    static func insertSchedule(in context: ManagedObjectContext) -> (hall: ManagedObject, talks: [ManagedObject]) {
        let hall = context.insertNewObject(forEntityName: "Room")
        hall.setValue("Grand Hall", forKey: "name")
        var talks: [ManagedObject] = []
        for (title, duration) in [("Über Swift", 30), ("ÄRGER mit Café", 45)] {
            let talk = context.insertNewObject(forEntityName: "Session")
            talk.setValue(title, forKey: "title")
            talk.setValue(duration, forKey: "duration")
            talk.setValue(hall, forKey: "room")
            talks.append(talk)
        }
        return (hall, talks)
    }

    @Test(arguments: StoreKind.all)
    func everyExpressionKindIsComputedOnSaveAndStored(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = store.context()
        let (hall, talks) = Self.insertSchedule(in: context)
        #expect(hall.value(forKey: "sessionCount") == nil, "derived values wait for the save")
        let before = Date()
        try context.save()
        let after = Date()
        #expect(hall.value(forKey: "sessionCount") as? Int == 2)
        #expect(hall.value(forKey: "totalMinutes") as? Int == 75)
        #expect(talks[0].value(forKey: "roomName") as? String == "Grand Hall")
        #expect(talks[0].value(forKey: "searchTitle") as? String == "uber swift")
        #expect(talks[1].value(forKey: "searchTitle") as? String == "arger mit cafe")
        let stamp = try #require(talks[0].value(forKey: "savedAt") as? Date)
        #expect(stamp >= before.addingTimeInterval(-1) && stamp <= after.addingTimeInterval(1))

        let rooms = try store.reopened("Room", by: "name")
        #expect(rooms["Grand Hall"]?.value(forKey: "sessionCount") as? Int == 2)
        #expect(rooms["Grand Hall"]?.value(forKey: "totalMinutes") as? Int == 75)
        let sessions = try store.reopened("Session", by: "title")
        #expect(sessions["Über Swift"]?.value(forKey: "roomName") as? String == "Grand Hall")
        #expect(sessions["ÄRGER mit Café"]?.value(forKey: "searchTitle") as? String == "arger mit cafe")
        #expect(sessions["Über Swift"]?.value(forKey: "savedAt") is Date)

        // The stored values answer predicates, in the store's own query language where it has one.
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "searchTitle BEGINSWITH 'arger' AND roomName == 'Grand Hall'")
        #expect(try store.context().fetch(request).map { $0.value(forKey: "title") as? String } == ["ÄRGER mit Café"])
    }

    @Test(arguments: StoreKind.all)
    func changesToSourcesAndRelationshipsAreRecomputedOnSave(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = store.context()
        let (hall, talks) = Self.insertSchedule(in: context)
        try context.save()
        let firstStamp = try #require(talks[0].value(forKey: "savedAt") as? Date)

        // A source attribute of the object itself.
        talks[0].setValue("Ça va, SwiftUI?", forKey: "title")
        // A source attribute one relationship away (the room feeds its sessions' room.name).
        hall.setValue("Small Hall", forKey: "name")
        // A source attribute of a to-many destination (a session feeds its room's @sum).
        talks[1].setValue(50, forKey: "duration")
        try context.save()
        #expect(talks[0].value(forKey: "searchTitle") as? String == "ca va, swiftui?")
        #expect(talks[1].value(forKey: "roomName") as? String == "Small Hall")
        #expect(hall.value(forKey: "totalMinutes") as? Int == 80)
        #expect(try #require(talks[0].value(forKey: "savedAt") as? Date) >= firstStamp)

        // The relationship itself: a session moves to a new room, another is deleted.
        let annex = context.insertNewObject(forEntityName: "Room")
        annex.setValue("Annex", forKey: "name")
        talks[0].setValue(annex, forKey: "room")
        try context.save()
        #expect(hall.value(forKey: "sessionCount") as? Int == 1)
        #expect(annex.value(forKey: "sessionCount") as? Int == 1)
        #expect(annex.value(forKey: "totalMinutes") as? Int == 30)
        #expect(talks[0].value(forKey: "roomName") as? String == "Annex")
        context.delete(talks[1])
        try context.save()
        #expect(hall.value(forKey: "sessionCount") as? Int == 0)
        #expect(hall.value(forKey: "totalMinutes") as? Int == 0)

        let rooms = try store.reopened("Room", by: "name")
        #expect(rooms["Small Hall"]?.value(forKey: "sessionCount") as? Int == 0)
        #expect(rooms["Annex"]?.value(forKey: "sessionCount") as? Int == 1)
        let sessions = try store.reopened("Session", by: "title")
        #expect(sessions["Ça va, SwiftUI?"]?.value(forKey: "roomName") as? String == "Annex")
        #expect(sessions["Ça va, SwiftUI?"]?.value(forKey: "searchTitle") as? String == "ca va, swiftui?")
    }

    @Test(arguments: StoreKind.all)
    func aRenamedRoomReachesSessionsThatAreFaults(kind: StoreKind) throws {
        let store = try Store(kind)
        do {
            let context = store.context()
            Self.insertSchedule(in: context)
            try context.save()
        }
        // A fresh context holds the room only; its sessions are read when the rename is saved.
        let context = store.context()
        let request = FetchRequest(entityName: "Room")
        let room = try #require(try context.fetch(request).first)
        room.setValue("Renamed", forKey: "name")
        try context.save()
        let sessions = try store.reopened("Session", by: "title")
        #expect(sessions["Über Swift"]?.value(forKey: "roomName") as? String == "Renamed")
    }

    @Test(arguments: StoreKind.all)
    func aValueTheAppSetsIsOverwrittenOnSave(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = store.context()
        let (hall, _) = Self.insertSchedule(in: context)
        hall.setValue(99, forKey: "sessionCount")
        try context.save()
        #expect(hall.value(forKey: "sessionCount") as? Int == 2)
        hall.setValue(7, forKey: "sessionCount")
        #expect(hall.hasChanges)
        try context.save()
        #expect(hall.value(forKey: "sessionCount") as? Int == 2)
        #expect(try store.reopened("Room", by: "name")["Grand Hall"]?.value(forKey: "sessionCount") as? Int == 2)
    }

    @Test(arguments: StoreKind.all)
    func aFailedSaveWritesNoDerivedValue(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = store.context()
        let (hall, talks) = Self.insertSchedule(in: context)
        try context.save()
        talks[0].setValue("Renamed talk", forKey: "title")
        let broken = context.insertNewObject(forEntityName: "Session")  // no title: the save fails
        broken.setValue(hall, forKey: "room")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.code == .missingMandatoryProperty)
        let rooms = try store.reopened("Room", by: "name")
        #expect(rooms["Grand Hall"]?.value(forKey: "sessionCount") as? Int == 2)
        let sessions = try store.reopened("Session", by: "title")
        #expect(sessions["Über Swift"]?.value(forKey: "searchTitle") as? String == "uber swift")
        #expect(sessions["Renamed talk"] == nil)
    }

    @Test func expressionsDerivedAttributesDoNotSupportAreRefusedWithTheirEntityAndKey() throws {
        for (format, word) in [
            ("nosuch.name", "nosuch"), ("room", "relationship"),
            ("sessions.@sum", "@sum"), ("title.count", "past attribute"), ("duration + 1", "do not support"),
            ("canonical:(sessions.@count)", "@count"), ("uppercase:('x')", "not a key path"),
        ] {
            let model = try Self.makeModel()
            let session = try #require(model.entitiesByName["Session"])
            session.properties.append(
                DerivedAttributeDescription(
                    name: "bad", type: .string, derivationExpression: try ObjectExpression(format: format)))
            let error = try #require(throws: ModelError.self, "\(format)") { try model.resolveRelationships() }
            #expect(error.code == .invalidDerivation)
            #expect(error.context.entityName == "Session" && error.context.key == "bad")
            #expect(error.message.contains(word), "\(error.message)")
        }
        let roomModel = try Self.makeModel()
        try #require(roomModel.entitiesByName["Room"]).properties.append(
            DerivedAttributeDescription(name: "bad", type: .integer64, derivationExpression: .keyPath("sessions")))
        let toMany = try #require(throws: ModelError.self) { try roomModel.resolveRelationships() }
        #expect(toMany.code == .invalidDerivation && toMany.message.contains("@count"), "\(toMany.message)")
        let model = try Self.makeModel()
        try #require(model.entitiesByName["Room"]).properties.append(DerivedAttributeDescription())
        #expect(throws: ModelError.self) { try model.resolveRelationships() }
    }
}
