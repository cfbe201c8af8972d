import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

@Suite("Lightweight migration")
struct MigrationTests {
    static func model(version: Int) -> ManagedObjectModel {
        var properties: [PropertyDescription] = [AttributeDescription(name: "name", type: .string)]
        if version == 1 {
            properties.append(AttributeDescription(name: "oldLabel", type: .string))
            properties.append(AttributeDescription(name: "dropped", type: .integer32))
        } else {
            let label = AttributeDescription(name: "label", type: .string)
            label.renamingIdentifier = "oldLabel"
            properties.append(label)
            properties.append(AttributeDescription(name: "rating", type: .integer32))
            properties.append(AttributeDescription(name: "level", type: .integer16, isOptional: false, defaultValue: 3))
        }
        var entities = [EntityDescription(name: "Item", properties: properties)]
        if version == 2 {
            entities.append(EntityDescription(name: "Tag", properties: [AttributeDescription(name: "title", type: .string)]))
        }
        return ManagedObjectModel(entities: entities)
    }

    private func open(_ url: URL, version: Int, options: PersistentStoreOptions = [:]) throws -> PersistentStoreCoordinator {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model(version: version))
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return coordinator
    }

    @Test func changedModelIsRefusedWithoutMigrationAndMigratedWithIt() throws {
        let folder = TemporaryFolder()
        let url = folder.file("items.sqlite")
        do {
            let coordinator = try open(url, version: 1)
            let context = ManagedObjectContext(coordinator: coordinator)
            let item = context.insertNewObject(forEntityName: "Item")
            item.setValue("first", forKey: "name")
            item.setValue("L", forKey: "oldLabel")
            item.setValue(5, forKey: "dropped")
            try context.save()
        }
        let before = try Data(contentsOf: url)
        #expect(throws: StoreError(code: .incompatibleModel, message: "")) { _ = try open(url, version: 2) }
        #expect(try Data(contentsOf: url) == before)
        let options: PersistentStoreOptions = [.migratePersistentStoresAutomatically: true,
                                               .inferMappingModelAutomatically: true]
        let coordinator = try open(url, version: 2, options: options)
        #expect(coordinator.persistentStores[0].metadata.modelVersionHashes == coordinator.managedObjectModel.entityVersionHashesByName)
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try #require(try context.all("Item").first)
        #expect(item.value(forKey: "name") as? String == "first")
        #expect(item.value(forKey: "label") as? String == "L")
        #expect(item.value(forKey: "rating") == nil)
        #expect(item.value(forKey: "level") as? Int == 3)
        let tag = context.insertNewObject(forEntityName: "Tag")
        tag.setValue("new", forKey: "title")
        item.setValue(4, forKey: "rating")
        try context.save()
        let reopened = try open(url, version: 2)
        let again = ManagedObjectContext(coordinator: reopened)
        #expect(try again.all("Tag").count == 1)
        #expect(try again.all("Item").first?.value(forKey: "rating") as? Int == 4)
    }
}
