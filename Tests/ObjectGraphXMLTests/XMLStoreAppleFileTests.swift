import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing
@testable import ObjectGraphTestSupport

/// The real XML store Xcode wrote (a mapping model's `xcmapping.xml`), opened with a model matching its contents.
///
/// Core Data's own entity version hashes are in the file, and they are not ours, so the store is opened with
/// `.ignoresModelVersion` (and `.readOnly`).
@Suite("XML store: a file Apple wrote", SharedFiles.required)
struct XMLStoreAppleFileTests {
    func open() throws -> (ManagedObjectContext, PersistentStore, PersistentStoreCoordinator) {
        XMLStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try MappingModelFixture.make())
        let store = try coordinator.addPersistentStore(
            type: .xml, at: SharedFiles.url(SharedFiles.appleXMLStore),
            options: [.readOnly: true, .ignoresModelVersion: true])
        return (ManagedObjectContext(coordinator: coordinator), store, coordinator)
    }

    @Test func opensWithItsUUIDMetadataAndEveryObject() throws {
        let (context, store, _) = try open()
        #expect(store.identifier == "DC851FD8-0A13-4992-BE44-005301B59894")
        #expect(store.metadata["NSPersistenceFrameworkVersion"] as? Int == 866)
        let hashes = try #require(store.metadata.modelVersionHashes)
        #expect(
            hashes.keys.sorted() == [
                "XDDevAttributeMapping", "XDDevEntityMapping", "XDDevMappingModel",
                "XDDevPropertyMapping", "XDDevRelationshipMapping",
            ])
        #expect(hashes.values.allSatisfy { $0.count == 32 })
        #expect((store as? AtomicStore)?.cacheNodeCount == 11)
        #expect(try context.all("XDDevMappingModel").count == 1)
        #expect(try context.all("XDDevEntityMapping").count == 3)
        #expect(try context.all("XDDevAttributeMapping").count == 5)
        #expect(try context.all("XDDevRelationshipMapping").count == 2)
        #expect(try context.all("XDDevPropertyMapping").count == 7)  // the abstract parent, through sub-entities
    }

    @Test func valuesAndRelationshipsAreRight() throws {
        let (context, _, _) = try open()
        let mappings = try context.all("XDDevEntityMapping")
        let user = try #require(mappings.first { $0.objectID.referenceKey == 103 })
        #expect(user.value(forKey: "migrationPolicyClassName") as? String == "CoreDataDemo.CustomMigration")
        #expect(user.value(forKey: "sourceName") as? String == "User")
        #expect(user.value(forKey: "mappingNumber") as? Int == 1)
        #expect(user.value(forKey: "autogenerateExpression") as? Bool == true)
        #expect(
            user.objects(forKey: "attributeMappings").map { $0.value(forKey: "name") as? String }
                == ["bonusPoints", "lastName", "firstName", "username"])
        #expect(user.objects(forKey: "relationshipMappings").map { $0.value(forKey: "name") as? String } == ["books"])
        let model = try #require(user.value(forKey: "mappingModel") as? ManagedObject)
        #expect(model.objectID.referenceKey == 106)
        #expect(model.objects(forKey: "entityMappings").map(\.objectID.referenceKey) == [110, 103])
        let source = try #require(model.value(forKey: "sourceModelData") as? Data)
        #expect(source.starts(with: Data("bplist00".utf8)))
        #expect(
            (model.value(forKey: "destinationModelPath") as? String)?.hasSuffix("LibraryDataModel v2.xcdatamodel")
                == true)
        let unattached = try #require(mappings.first { $0.objectID.referenceKey == 112 })
        #expect(unattached.value(forKey: "mappingModel") == nil)
        #expect(unattached.objects(forKey: "attributeMappings").isEmpty)
        let bonus = try #require(
            try context.all("XDDevAttributeMapping").first {
                $0.value(forKey: "name") as? String == "bonusPoints"
            })
        #expect((bonus.value(forKey: "valueExpressionData") as? Data)?.starts(with: Data("bplist00".utf8)) == true)
        #expect((bonus.value(forKey: "entityMapping") as? ManagedObject)?.objectID == user.objectID)
    }

    @Test func savesAreRefusedAndTheFileIsUntouched() throws {
        let before = try Data(contentsOf: SharedFiles.url(SharedFiles.appleXMLStore))
        let (context, _, _) = try open()
        let mapping = try context.all("XDDevEntityMapping")[0]
        mapping.setValue("Changed", forKey: "name")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .readOnlyStore)
        #expect(try Data(contentsOf: SharedFiles.url(SharedFiles.appleXMLStore)) == before)
    }

    @Test func itsHashesAreNotOursSoTheModelCheckRefusesItByDefault() throws {
        XMLStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try MappingModelFixture.make())
        #expect(throws: StoreError(code: .incompatibleModel, message: "")) {
            try coordinator.addPersistentStore(
                type: .xml, at: SharedFiles.url(SharedFiles.appleXMLStore),
                options: [.readOnly: true])
        }
    }

    @Test func aCopySavedByUsReadsBackWithOurHashes() throws {
        let folder = TemporaryFolder()
        let copy = folder.file("copy.xml")
        try FileManager.default.copyItem(at: SharedFiles.url(SharedFiles.appleXMLStore), to: copy)
        XMLStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try MappingModelFixture.make())
        let store = try coordinator.addPersistentStore(type: .xml, at: copy, options: [.ignoresModelVersion: true])
        let before = try (store as? AtomicStore)?.allRecords() ?? []
        let context = ManagedObjectContext(coordinator: coordinator)
        let mapping = try #require(try context.all("XDDevEntityMapping").first { $0.objectID.referenceKey == 112 })
        mapping.setValue("Renamed", forKey: "name")
        try context.save()
        let again = PersistentStoreCoordinator(managedObjectModel: try MappingModelFixture.make())
        let reopened = try again.addPersistentStore(type: .xml, at: copy)  // our version hashes now
        let after = try (reopened as? AtomicStore)?.allRecords() ?? []
        #expect(reopened.identifier == store.identifier)
        #expect(after.map(\.objectID) == before.map(\.objectID))
        #expect(after.map { $0.values.keys.sorted() } == before.map { $0.values.keys.sorted() })
        #expect(after.first { $0.objectID.referenceKey == 112 }?["name"] as? String == "Renamed")
        #expect((reopened as? AtomicStore)?.nextReferenceKey == 113)
    }
}
