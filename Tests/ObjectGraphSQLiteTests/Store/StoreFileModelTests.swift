import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Reading the model of real Core Data SQLite stores from the stores themselves.
@Suite(
    "Model from a store file",
    .enabled(
        if: sharedFixturesDirectory().map {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("coredata/DataUsage.sqlite").path)
        } ?? false,
        "../shared/coredata is absent (a fresh clone has no shared/): skipped"))
struct StoreFileModelTests {
    static func url(_ name: String) throws -> URL {
        try #require(sharedFixturesDirectory()).appendingPathComponent("coredata/\(name)")
    }

    /// Opens the store read-only with its own model; every entity can be counted and fetched.
    static func open(_ name: String) throws -> (ManagedObjectModel, ManagedObjectContext) {
        SQLiteStore.register()
        let url = try url(name)
        let model = try ManagedObjectModel(contentsOfStoreAt: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [.readOnly: true, .ignoresModelVersion: true])
        return (model, ManagedObjectContext(coordinator: coordinator))
    }

    @Test func dataUsageHasNineEntitiesFromItsCache() throws {
        let (model, context) = try Self.open("DataUsage.sqlite")
        #expect(model.entities.count == 9)
        let event = try #require(model.entitiesByName["CheckUpEvent"])
        #expect(event.attributesByName["syndromeID"]?.attributeType == .string)
        let relationship = try #require(event.relationshipsByName["hasTshootingData"])
        #expect(relationship.destinationEntityName == "TshootingData")
        #expect(relationship.inverseName == "withCheckUpEvent")
        // The packed flags (_P): a mandatory to-one, an ordered to-many, a transient relationship.
        let happened = try #require(model.entitiesByName["Event"])
        #expect(happened.relationshipsByName["hasScene"]?.isOptional == false)
        #expect(happened.relationshipsByName["happenedOnNet"]?.isOrdered == true)
        #expect(model.entitiesByName["LiveUsage"]?.relationshipsByName["hintedBy"]?.isTransient == true)
        for entity in model.entities where !entity.isAbstract {
            let objects = try context.fetch(FetchRequest(entityName: entity.name))
            #expect(try context.count(for: FetchRequest(entityName: entity.name)) == objects.count)
        }
    }

    @Test func knowledgeCHasSeventeenEntitiesAndFollowsRelationships() throws {
        let (model, context) = try Self.open("knowledgec-10.14.db")
        #expect(model.entities.count == 17)
        // The user info of the cached model's entities (here the tombstones of persistent history).
        #expect(
            model.entitiesByName["Event"]?.userInfo["NSPersistentHistoryTombstoneAttributes"]
                == "uuid,shouldSync,streamName")
        // Defaults (an NSNumber 0 of a Boolean attribute reads as false) and indexed attributes.
        let keyPath = try #require(model.entitiesByName["ContextualKeyPath"])
        #expect(keyPath.attributesByName["isEphemeral"]?.defaultValue as? Bool == false)
        #expect(model.entitiesByName["Event"]?.attributesByName["startDate"]?.isIndexed == true)
        #expect(model.entitiesByName["Event"]?.attributesByName["confidence"]?.isIndexed == false)
        // Uniqueness constraints (NSUniqueTuples), configurations and the version identifier.
        let constraints = Dictionary(
            uniqueKeysWithValues: model.entities.filter { !$0.uniquenessConstraints.isEmpty }.map {
                ($0.name, $0.uniquenessConstraints)
            })
        #expect(
            constraints == [
                "Object": [["uuid"]], "StructuredMetadata": [["metadataHash"]], "KeyValue": [["domain", "key"]],
                "SyncPeer": [["uuid"]],
            ])
        #expect(model.configurations.sorted() == ["CloudKit", "Local"])
        #expect(
            Set(model.entities(forConfigurationName: "CloudKit")?.map(\.name) ?? [])
                == ["AdditionChangeSet", "DeletionChangeSet"])
        #expect(model.entities(forConfigurationName: "Local")?.count == 15)
        #expect(model.versionIdentifiers == ["28"])
        // The attributes' flags (NSFlagsKey): the CloudKit record fields are kept in deletions' tombstones; no
        // binary attribute allows external storage.
        #expect(
            model.entitiesByName["DeletionChangeSet"]?.attributesByName["ckRecordSystemFields"]?
                .preservesValueInHistoryOnDeletion == true)
        #expect(
            model.entitiesByName["DeletionChangeSet"]?.attributesByName["changeSet"]?
                .preservesValueInHistoryOnDeletion == false)
        #expect(
            !model.entities.flatMap(\.attributesByName.values).contains { $0.allowsExternalBinaryDataStorage })
        // Optionality from the packed flags (_P): 26 mandatory attributes, whose archives carry no NSIsOptional.
        #expect(model.entitiesByName["Event"]?.attributesByName["startDate"]?.isOptional == false)
        #expect(model.entitiesByName["Event"]?.attributesByName["confidence"]?.isOptional == true)
        let own = model.entities.flatMap(\.properties).compactMap { $0 as? AttributeDescription }
        #expect(own.filter { !$0.isOptional }.count == 26)
        // Fetch indexes (NSFetchIndexDescription), compound ones in order; 9 in the cache.
        #expect(model.entities.reduce(0) { $0 + $1.indexes.count } == 9)
        #expect(
            model.entitiesByName["Event"]?.indexes.contains(
                FetchIndexDescription(name: "compoundIndex", propertyNames: ["streamName", "startDate", "endDate"]))
                == true)
        // Archived as mutable strings (NS.string objects), not plain ones.
        #expect(model.entitiesByName["Event"]?.versionHashModifier == "index1")
        #expect(model.entitiesByName["AdditionChangeSet"]?.versionHashModifier == "rdar://41988633")
        var followed = 0
        for entity in model.entities where !entity.isAbstract {
            let objects = try context.fetch(FetchRequest(entityName: entity.name))
            for object in objects.prefix(20) {
                for relationship in entity.relationshipsByName.values {
                    if relationship.isToMany {
                        followed += object.objects(forKey: relationship.name).count
                    } else if object.value(forKey: relationship.name) != nil {
                        followed += 1
                    }
                }
            }
        }
        #expect(followed > 0)
        let toMany = model.entities.flatMap { $0.relationshipsByName.values }.filter(\.isToMany)
        #expect(toMany.contains { $0.inverseRelationship?.isToMany == true })  // a many-to-many pair
    }

    @Test func notesWithoutACacheIsInferredFromItsTables() throws {
        let url = try Self.url("NotesV7.storedata")
        let model = try ManagedObjectModel(contentsOfStoreAt: url)
        #expect(model.entitiesByName["Account"] != nil)
        #expect(model.entitiesByName["IMAPAccount"]?.superentity?.name == "Account")
        #expect(model.entities.allSatisfy { $0.userInfo["ObjectGraphInferred"] == "YES" })
        // Entity columns (Z6_FOLDER) are not attributes: they name the destination of the to-one beside them.
        let note = try #require(model.entitiesByName["Note"])
        #expect(note.attributesByName.keys.allSatisfy { !$0.contains("_") })
        #expect(note.relationshipsByName["folder"]?.destinationEntityName == "Folder")
        #expect(note.relationshipsByName["folder"]?.inverseName == "notes")
        #expect(note.relationshipsByName["body"]?.destinationEntityName == "NoteBody")
        #expect(note.relationshipsByName["body"]?.inverseName == "note")
        let account = try #require(model.entitiesByName["Account"])
        #expect(account.relationshipsByName["trashfolder"]?.destinationEntityName == "TrashFolder")
        #expect(note.relationshipsByName.values.allSatisfy { $0.userInfo["ObjectGraphInferred"] == "YES" })
    }

    /// The inferred model opens the store, and its relationships lead where Apple's Notes put them: each note in
    /// folder "Notes", each with its body (a one-to-one), the folder holding its three notes, the account's root
    /// folder, a folder's parent.
    @Test func notesInferredRelationshipsAreFollowed() throws {
        let (_, context) = try Self.open("NotesV7.storedata")
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        #expect(notes.count == 3)
        for note in notes {
            let folder = try #require(note.value(forKey: "folder") as? ManagedObject)
            #expect(folder.value(forKey: "name") as? String == "Notes")
            let body = try #require(note.value(forKey: "body") as? ManagedObject)
            #expect(body.entity.name == "NoteBody" && body.value(forKey: "note") as? ManagedObject === note)
            #expect(body.value(forKey: "htmlstring") is String)
            #expect(folder.objects(forKey: "notes").count == 3)
        }
        let accounts = try context.fetch(FetchRequest(entityName: "Account"))
        #expect(accounts.count == 2)
        let roots = accounts.compactMap { ($0.value(forKey: "rootfolder") as? ManagedObject)?.value(forKey: "name") }
        #expect(roots.compactMap { $0 as? String } == ["RootFolder", "RootFolder"])
        let trash = accounts.compactMap { $0.value(forKey: "trashfolder") as? ManagedObject }
        #expect(trash.count == 2 && trash.allSatisfy { $0.entity.name == "TrashFolder" })
        let folders = try context.fetch(FetchRequest(entityName: "Folder"))
        let recovered = try #require(folders.first { $0.value(forKey: "name") as? String == "Recovered Items" })
        let parent = try #require(recovered.value(forKey: "parent") as? ManagedObject)
        #expect(parent.value(forKey: "name") as? String == "RootFolder")
        #expect(parent.objects(forKey: "foldersByParent").contains { $0 === recovered })
    }

    /// Inference checked against the model a store caches: with the cache set aside, the tables alone give every
    /// stored to-one relationship (same name, same destination tree) and every many-to-many pair, but those whose
    /// column names no entity (DataUsage's `Event.happenedOnNet`, to WiFiData): they stay integer attributes.
    @Test(arguments: [("knowledgec-10.14.db", [String]()), ("DataUsage.sqlite", ["Event.happenedOnNet"])])
    func inferenceFindsTheRelationshipsTheCachedModelHas(file: String, unnamed: [String]) throws {
        let url = try Self.url(file)
        let cached = try ManagedObjectModel(contentsOfStoreAt: url)
        var inspection = try StoreFileModelReader.inspect(url)
        inspection.cache = nil
        let inferred = ManagedObjectModel(entities: StoreSchemaInference.entities(from: inspection))
        try inferred.resolveRelationships()
        var checked = 0
        var missed: [String] = []
        for entity in cached.entities {
            for relationship in entity.relationshipsByName.values where !relationship.isTransient {
                guard relationship.entity === entity else { continue }  // each where it is declared
                let inverse = relationship.inverseRelationship
                let isManyToMany = relationship.isToMany && inverse?.isToMany == true
                guard !relationship.isToMany || isManyToMany else { continue }
                let inferredEntity = try #require(inferred.entitiesByName[entity.name])
                let found = [inferredEntity, inferredEntity.rootEntity].compactMap {
                    $0.relationshipsByName[relationship.name.lowercased()]
                }.first
                guard let match = found else {
                    let column = inferredEntity.rootEntity.attributesByName[relationship.name.lowercased()]
                    #expect(column?.attributeType == .integer64, "\(entity.name).\(relationship.name)")
                    missed.append("\(entity.name).\(relationship.name)")
                    continue
                }
                #expect(match.isToMany == relationship.isToMany, "\(entity.name).\(relationship.name)")
                let expected = try #require(relationship.destinationEntity)
                let destination = try #require(match.destinationEntity)
                #expect(destination.rootEntity.name == expected.rootEntity.name, "\(entity.name).\(relationship.name)")
                checked += 1
            }
        }
        #expect(checked > 0)
        #expect(missed == unnamed)
    }

    @Test func aForeignFileIsRefused() throws {
        let folder = TemporaryFolder()
        let file = folder.file("plain.sqlite")
        try Data("not sqlite at all".utf8).write(to: file)
        #expect(throws: StoreError(code: .foreignFile, message: "")) {
            try ManagedObjectModel(contentsOfStoreAt: file)
        }
    }

    /// The version hashes computed from the model each store keeps are those Core Data wrote into its metadata:
    /// Core Data's own algorithm, so the store opens with its model without `.ignoresModelVersion`.
    @Test(arguments: ["DataUsage.sqlite", "knowledgec-10.14.db"])
    func versionHashesAreCoreDatas(file: String) throws {
        SQLiteStore.register()
        let url = try Self.url(file)
        let model = try ManagedObjectModel(contentsOfStoreAt: url)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(
            type: .sqlite, at: url, options: [.readOnly: true], model: model)
        let stored = try #require(metadata.modelVersionHashes)
        #expect(stored.count == model.entities.count)
        #expect(model.entityVersionHashesByName == stored)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(model.matchesExactly(storeMetadata: metadata))
        // The digest of the hashes, where Core Data wrote one (DataUsage, by a later Core Data than knowledgeC's).
        if let digest = metadata[StoreMetadata.modelVersionHashesDigestKey] as? String {
            #expect(StoreMetadata.digest(of: stored) == digest)
        } else {
            #expect(file == "knowledgec-10.14.db")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [.readOnly: true])
    }
}
