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
        for entity in model.entities where !entity.isAbstract {
            let objects = try context.fetch(FetchRequest(entityName: entity.name))
            #expect(try context.count(for: FetchRequest(entityName: entity.name)) == objects.count)
        }
    }

    @Test func knowledgeCHasSeventeenEntitiesAndFollowsRelationships() throws {
        let (model, context) = try Self.open("knowledgec-10.14.db")
        #expect(model.entities.count == 17)
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
    }

    @Test func aForeignFileIsRefused() throws {
        let folder = TemporaryFolder()
        let file = folder.file("plain.sqlite")
        try Data("not sqlite at all".utf8).write(to: file)
        #expect(throws: StoreError(code: .foreignFile, message: "")) {
            try ManagedObjectModel(contentsOfStoreAt: file)
        }
    }
}
