import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// Uniqueness constraints: saves that would give two objects of an entity (or its sub-entities) equal constrained
/// values fail, or are resolved by the merge policy.
@Suite("Uniqueness constraints")
struct UniquenessConstraintTests {
    /// Speakers unique by email (keynoters too: they inherit the constraint), each with talks; slots unique by day
    /// and room together.
    private static func model() -> ManagedObjectModel {
        let speaker = EntityDescription(name: "Speaker", properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "bio", type: .string),
            RelationshipDescription(name: "talks", destination: "Talk", inverse: "speaker", toMany: true),
            RelationshipDescription(name: "home", destination: "City"),
        ])
        speaker.uniquenessConstraints = [["email"]]
        let keynoter = EntityDescription(name: "Keynoter", properties: [
            AttributeDescription(name: "fee", type: .integer64),
        ])
        speaker.subentities = [keynoter]
        let talk = EntityDescription(name: "Talk", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "speaker", destination: "Speaker", inverse: "talks"),
        ])
        let city = EntityDescription(name: "City", properties: [AttributeDescription(name: "name", type: .string)])
        let slot = EntityDescription(name: "Slot", properties: [
            AttributeDescription(name: "day", type: .integer64, isOptional: false),
            AttributeDescription(name: "room", type: .string, isOptional: false),
            AttributeDescription(name: "start", type: .date),
        ])
        slot.uniquenessConstraints = [["day", "room"]]
        return ManagedObjectModel(entities: [speaker, keynoter, talk, city, slot])
    }

    /// A coordinator over one store of a kind, in a folder of its own.
    private struct Setup {
        let folder = TemporaryFolder()
        let coordinator: PersistentStoreCoordinator

        init(_ kind: StoreKind) throws {
            _ = StoreKind.all
            coordinator = PersistentStoreCoordinator(managedObjectModel: UniquenessConstraintTests.model())
            try coordinator.addPersistentStore(type: kind.type, at: kind.url("store", in: folder))
        }

        func context(_ policy: MergePolicy = .error) -> ManagedObjectContext {
            let context = ManagedObjectContext(coordinator: coordinator)
            context.mergePolicy = policy
            return context
        }

        func speakers() throws -> [(name: String, email: String?, bio: String?, talks: [String])] {
            let reader = context()  // kept alive while the speakers' talks are read
            return try reader.all("Speaker", sortedBy: "name").map { speaker in
                let talks = (speaker.value(forKey: "talks") as? Set<ManagedObject> ?? [])
                    .compactMap { $0.value(forKey: "title") as? String }.sorted()
                return (speaker.value(forKey: "name") as! String, speaker.value(forKey: "email") as? String,
                        speaker.value(forKey: "bio") as? String, talks)
            }
        }
    }

    @discardableResult
    private static func speaker(_ context: ManagedObjectContext, _ name: String, email: String?,
                                entity: String = "Speaker", bio: String? = nil,
                                talks: [String] = []) -> ManagedObject {
        let speaker = context.insertNewObject(forEntityName: entity)
        speaker.setValue(name, forKey: "name")
        speaker.setValue(email, forKey: "email")
        speaker.setValue(bio, forKey: "bio")
        for title in talks {
            let talk = context.insertNewObject(forEntityName: "Talk")
            talk.setValue(title, forKey: "title")
            talk.setValue(speaker, forKey: "speaker")
        }
        return speaker
    }

    // MARK: The default policy: the save fails, nothing is written

    @Test(arguments: StoreKind.all)
    func aNewObjectWithASavedObjectsValuesFailsTheSave(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let first = setup.context()
        Self.speaker(first, "Ada", email: "ada@example.org")
        try first.save()

        let second = setup.context()
        let duplicate = Self.speaker(second, "Ada L.", email: "ada@example.org", talks: ["Engines"])
        Self.speaker(second, "Grace", email: "grace@example.org")
        let error = try #require(throws: StoreError.self) { try second.save() }
        #expect(error.code == .constraintConflict)
        #expect(error.message.contains("email = ada@example.org"))
        let conflict = try #require(error.constraintConflicts.first)
        #expect(error.constraintConflicts.count == 1)
        #expect(conflict.entityName == "Speaker" && conflict.constraint == ["email"])
        #expect(conflict.values == ["ada@example.org"])
        // The new object is named by the ID it has in its context, the saved one by its own.
        #expect(conflict.conflictingObjectIDs == [duplicate.objectID])
        #expect(conflict.databaseObjectID != nil && conflict.databaseObjectID?.isTemporaryID == false)

        // Nothing was written, and the context keeps its changes.
        #expect(try setup.speakers().map(\.name) == ["Ada"])
        #expect(try setup.context().count(for: FetchRequest(entityName: "Talk")) == 0)
        #expect(second.hasChanges && duplicate.isInserted)

        // Changed to other values, it saves.
        duplicate.setValue("ada.l@example.org", forKey: "email")
        try second.save()
        #expect(try setup.speakers().map(\.name) == ["Ada", "Ada L.", "Grace"])
    }

    @Test(arguments: StoreKind.all)
    func newObjectsSharingValuesFailTheSave(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let context = setup.context()
        let one = Self.speaker(context, "One", email: "same@example.org")
        let two = Self.speaker(context, "Two", email: "same@example.org", entity: "Keynoter")  // inherited
        Self.speaker(context, "Three", email: nil)  // no value: not constrained
        Self.speaker(context, "Four", email: nil)
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .constraintConflict)
        #expect(error.constraintConflicts.map(\.conflictingObjectIDs) == [[one.objectID, two.objectID]])
        #expect(error.constraintConflicts.first?.databaseObjectID == nil)
        #expect(try setup.speakers().isEmpty)

        context.delete(two)
        try context.save()
        #expect(try setup.speakers().map(\.name) == ["Four", "One", "Three"])
    }

    @Test(arguments: StoreKind.all)
    func aConstraintOfSeveralAttributesNeedsThemAllEqual(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let context = setup.context()
        func slot(_ day: Int, _ room: String) {
            let slot = context.insertNewObject(forEntityName: "Slot")
            slot.setValue(day, forKey: "day")
            slot.setValue(room, forKey: "room")
        }
        slot(1, "A")
        slot(1, "B")
        slot(2, "A")
        try context.save()
        slot(2, "B")
        slot(2, "A")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.constraintConflicts.map(\.values) == [["2", "A"]])
        #expect(error.constraintConflicts.first?.constraint == ["day", "room"])
        #expect(try setup.context().count(for: FetchRequest(entityName: "Slot")) == 3)
    }

    @Test(arguments: StoreKind.all)
    func changingASavedObjectIntoAnothersValuesFailsEvenWithAResolvingPolicy(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let writer = setup.context()
        Self.speaker(writer, "Ada", email: "ada@example.org")
        let grace = Self.speaker(writer, "Grace", email: "grace@example.org")
        try writer.save()

        writer.mergePolicy = .mergeByPropertyObjectTrump
        grace.setValue("ada@example.org", forKey: "email")
        let error = try #require(throws: StoreError.self) { try writer.save() }
        #expect(error.code == .constraintConflict)
        #expect(error.constraintConflicts.first?.conflictingObjectIDs == [grace.objectID])
        #expect(try setup.speakers().map(\.email) == ["ada@example.org", "grace@example.org"])

        // Swapping two saved objects' values in one save is no conflict: the saved values are being replaced.
        let ada = try #require(try writer.all("Speaker", sortedBy: "name").first)
        ada.setValue("grace@example.org", forKey: "email")
        try writer.save()
        #expect(try setup.speakers().map(\.email) == ["grace@example.org", "ada@example.org"])
    }

    // MARK: Resolving policies

    @Test(arguments: StoreKind.all)
    func objectTrumpUpdatesTheSavedObjectWithTheNewObjectsValues(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let first = setup.context()
        Self.speaker(first, "Ada", email: "ada@example.org", bio: "Old bio", talks: ["Notes"])
        try first.save()

        let second = setup.context(.mergeByPropertyObjectTrump)
        let duplicate = Self.speaker(second, "Ada Lovelace", email: "ada@example.org", bio: "New bio",
                                     talks: ["Engines"])
        try second.save()
        #expect(duplicate.isDeleted || duplicate.managedObjectContext == nil)
        #expect(!second.hasChanges)

        let speakers = try setup.speakers()
        #expect(speakers.count == 1)
        #expect(speakers.first?.name == "Ada Lovelace" && speakers.first?.bio == "New bio")
        // The saved object keeps its talks and takes the new object's.
        #expect(speakers.first?.talks == ["Engines", "Notes"])
        #expect(try setup.context().count(for: FetchRequest(entityName: "Talk")) == 2)
    }

    @Test(arguments: StoreKind.all)
    func storeTrumpKeepsTheSavedValuesAndTakesTheRelationships(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let first = setup.context()
        Self.speaker(first, "Ada", email: "ada@example.org", bio: "Old bio", talks: ["Notes"])
        try first.save()

        let second = setup.context(.mergeByPropertyStoreTrump)
        Self.speaker(second, "Ada Lovelace", email: "ada@example.org", bio: "New bio", talks: ["Engines"])
        Self.speaker(second, "Grace", email: "grace@example.org")
        try second.save()
        let speakers = try setup.speakers()
        #expect(speakers.map(\.name) == ["Ada", "Grace"])
        #expect(speakers.first?.bio == "Old bio")
        #expect(speakers.first?.talks == ["Engines", "Notes"])
    }

    /// Every policy on one conflict with a saved object: `error` fails and changes nothing; the object-trump and
    /// overwrite policies take the new object's values, the store-trump and rollback policies keep the saved ones.
    @Test(arguments: MergePolicy.allCases)
    func eachPolicyResolvesAConflictWithASavedObjectAsCoreDataDoes(policy: MergePolicy) throws {
        let setup = try Setup(.sqlite)
        let first = setup.context()
        Self.speaker(first, "Ada", email: "ada@example.org", bio: "Old bio")
        try first.save()

        let second = setup.context(policy)
        let duplicate = Self.speaker(second, "Ada Lovelace", email: "ada@example.org", bio: "New bio")
        guard policy != .error else {
            let error = try #require(throws: StoreError.self) { try second.save() }
            #expect(error.code == .constraintConflict)
            // The conflict carries what Core Data's does: the shared values and both sides' snapshots.
            let conflict = try #require(error.constraintConflicts.first)
            #expect(conflict.constraintValues["email"] as? String == "ada@example.org")
            #expect(conflict.databaseSnapshot?["bio"] as? String == "Old bio")
            #expect(conflict.conflictingSnapshots.map { $0["bio"] as? String } == ["New bio"])
            #expect(duplicate.isInserted && duplicate.objectID.isTemporaryID)
            #expect(try setup.speakers().map(\.bio) == ["Old bio"])
            return
        }
        try second.save()
        let newValuesWin = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        #expect(try setup.speakers().map(\.bio) == [newValuesWin ? "New bio" : "Old bio"])
    }

    @Test func newDuplicatesMergeIntoTheFirstOne() throws {
        let setup = try Setup(.sqlite)
        let context = setup.context(.mergeByPropertyObjectTrump)
        let first = Self.speaker(context, "First", email: "x@example.org", talks: ["A"])
        Self.speaker(context, "Second", email: "x@example.org", bio: "Second's bio", talks: ["B"])
        Self.speaker(context, "Third", email: "x@example.org", talks: ["C"])
        try context.save()
        #expect(!first.isDeleted && first.managedObjectContext === context)
        let speakers = try setup.speakers()
        #expect(speakers.count == 1)
        // The last one's values win (its bio is nil: in-memory values overwrite, nil included).
        #expect(speakers.first?.name == "Third" && speakers.first?.bio == nil)
        #expect(speakers.first?.talks == ["A", "B", "C"])
    }

    // MARK: Other writers

    @Test func batchInsertsAreCheckedToo() throws {
        let setup = try Setup(.sqlite)
        let context = setup.context()
        Self.speaker(context, "Ada", email: "ada@example.org")
        try context.save()
        let request = BatchInsertRequest(entityName: "Speaker", objects: [
            ["name": "Grace", "email": "grace@example.org"],
            ["name": "Ada again", "email": "ada@example.org"],
        ])
        let error = try #require(throws: StoreError.self) { try setup.coordinator.execute(request) }
        #expect(error.code == .constraintConflict)
        #expect(try setup.speakers().map(\.name) == ["Ada"])
    }

    @Test(arguments: StoreKind.all)
    func batchInsertsUpsertWhenTheContextsValuesWin(kind: StoreKind) throws {
        let setup = try Setup(kind)
        let writer = setup.context()
        let ada = Self.speaker(writer, "Ada", email: "ada@example.org", bio: "Old bio", talks: ["Notes"])
        try writer.save()
        let request = BatchInsertRequest(entityName: "Speaker", objects: [
            ["name": "Ada Lovelace", "email": "ada@example.org", "bio": "New bio"],
            ["name": "Grace", "email": "grace@example.org"],
            ["name": "Grace Hopper", "email": "grace@example.org"],
            ["name": "Anonymous"],
        ])
        request.resultType = .objectIDs
        let ids = try #require(try setup.context(.mergeByPropertyObjectTrump).execute(request).objectIDs)
        #expect(ids.count == 4)
        #expect(ids[0] == ada.objectID)
        #expect(ids[1] == ids[2] && ids[1] != ids[3])
        let speakers = try setup.speakers()
        #expect(speakers.map(\.name) == ["Ada Lovelace", "Anonymous", "Grace Hopper"])
        // The saved object took the values and kept its relationships.
        #expect(speakers[0].bio == "New bio" && speakers[0].talks == ["Notes"])

        // Attributes a dictionary leaves out keep their saved values.
        let rename = BatchInsertRequest(entityName: "Speaker", objects: [["name": "A. Lovelace",
                                                                          "email": "ada@example.org"]])
        #expect(try setup.context(.mergeByPropertyObjectTrump).execute(rename).count == 1)
        let renamed = try setup.speakers().first
        #expect(renamed?.name == "A. Lovelace" && renamed?.bio == "New bio" && renamed?.talks == ["Notes"])
    }

    @Test func aBatchCannotUpsertIntoASavedObjectOfAnotherEntity() throws {
        let setup = try Setup(.sqlite)
        let writer = setup.context()
        Self.speaker(writer, "Ada", email: "ada@example.org", entity: "Keynoter", bio: "Old bio")
        try writer.save()
        // A Speaker row cannot become a Keynoter's: the conflict stands, and nothing is written.
        let request = BatchInsertRequest(entityName: "Speaker", objects: [
            ["name": "Grace", "email": "grace@example.org"],
            ["name": "Ada Lovelace", "email": "ada@example.org", "bio": "New bio"],
        ])
        let upserting = setup.context(.mergeByPropertyObjectTrump)
        let error = try #require(throws: StoreError.self) { try upserting.execute(request) }
        #expect(error.code == .constraintConflict)
        let speakers = try setup.speakers()
        #expect(speakers.map(\.name) == ["Ada"] && speakers.first?.bio == "Old bio")
    }

    @Test func batchInsertsLeaveSavedObjectsAloneWhenTheStoreWins() throws {
        let setup = try Setup(.sqlite)
        let writer = setup.context()
        let ada = Self.speaker(writer, "Ada", email: "ada@example.org", bio: "Old bio")
        try writer.save()
        let request = BatchInsertRequest(entityName: "Speaker", objects: [
            ["name": "Ada Lovelace", "email": "ada@example.org", "bio": "New bio"],
            ["name": "Grace", "email": "grace@example.org"],
            ["name": "Grace Hopper", "email": "grace@example.org"],
        ])
        request.resultType = .objectIDs
        let ids = try #require(try setup.context(.mergeByPropertyStoreTrump).execute(request).objectIDs)
        #expect(ids.first == ada.objectID && ids[1] == ids[2])
        let speakers = try setup.speakers()
        #expect(speakers.map(\.name) == ["Ada", "Grace"])
        #expect(speakers[0].bio == "Old bio")
    }

    @Test func constraintsNamingNoAttributeAreNotChecked() throws {
        // Constraints that name no attribute of the entity are not checked (and do not stop saves).
        let entity = EntityDescription(name: "Tag", properties: [AttributeDescription(name: "label", type: .string)])
        entity.uniquenessConstraints = [["missing"]]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [entity]))
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        for _ in 0..<2 { context.insertNewObject(forEntityName: "Tag").setValue("same", forKey: "label") }
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Tag")) == 2)
    }
}
