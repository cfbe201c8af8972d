import Foundation
import ObjectGraph
import ObjectGraphSQLite
import ObjectGraphXML
import Testing

@testable import ObjectGraphTestSupport

/// Reading Xcode's `.xcmappingmodel` (a Core Data XML store of mapping objects) and migrating with it.
struct MappingModelFileTests {
    /// The real mapping store, as the `xcmapping.xml` of a `.xcmappingmodel` folder in a temporary folder.
    static func mappingFolder(in folder: TemporaryFolder) throws -> URL {
        let bundle = folder.file("v1_to_v2.xcmappingmodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: SharedFiles.url(SharedFiles.appleXMLStore),
            to: bundle.appendingPathComponent("xcmapping.xml"))
        return bundle
    }

    @Test(SharedFiles.required) func theRealMappingModelListsItsMappingsInOrder() throws {
        let folder = TemporaryFolder()
        let mapping = try MappingModel(contentsOf: Self.mappingFolder(in: folder))
        #expect(mapping.entityMappings.map(\.name) == ["UserToUser", "BookToBook"])
        let user = mapping.entityMappings[0]
        #expect(user.sourceEntityName == "User")
        #expect(user.destinationEntityName == "User")
        #expect(user.mappingType == .transform)
        #expect(user.entityMigrationPolicyClassName == "CoreDataDemo.CustomMigration")
        #expect(user.attributeMappings.map(\.name) == ["bonusPoints", "firstName", "lastName", "username"])
        #expect(
            user.attributeMappingsByName["bonusPoints"]?.valueExpression?.expressionFormat
                == "FUNCTION($entityPolicy, \"toInt16WithValue:\", $source.bonusPoints)")
        #expect(user.attributeMappingsByName["firstName"]?.valueExpression?.expressionFormat == "$source.firstName")
        #expect(
            user.relationshipMappingsByName["books"]?.valueExpression?.expressionFormat
                == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"books\", "
                + "$source.books)")
        #expect(mapping.entityMappings[1].attributeMappings.map(\.name) == ["title"])
        // The file itself reads the same as its folder.
        #expect(try MappingModel(contentsOf: SharedFiles.url(SharedFiles.appleXMLStore)).entityMappings.count == 2)
    }

    @Test func aMissingOrForeignFileThrowsInvalidMappingFile() throws {
        let folder = TemporaryFolder()
        #expect(throws: MigrationError(code: .invalidMappingFile, message: "")) {
            try MappingModel(contentsOf: folder.file("none.xcmappingmodel"))
        }
        let foreign = folder.file("foreign.xml")
        try Data("<plist version=\"1.0\"><dict/></plist>".utf8).write(to: foreign)
        #expect(throws: MigrationError(code: .invalidMappingFile, message: "")) {
            try MappingModel(contentsOf: foreign)
        }
        #expect(throws: MigrationError(code: .invalidMappingFile, message: "")) {
            try ObjectExpression(archivedData: Data("bplist00 not really".utf8))
        }
    }

    static func library(bonusType: AttributeType) -> ManagedObjectModel {
        let user = EntityDescription(
            name: "User",
            properties: [
                AttributeDescription(name: "firstName", type: .string),
                AttributeDescription(name: "lastName", type: .string),
                AttributeDescription(name: "username", type: .string),
                AttributeDescription(name: "bonusPoints", type: bonusType),
                RelationshipDescription(name: "books", destination: "Book", inverse: "users", toMany: true),
            ])
        let book = EntityDescription(
            name: "Book",
            properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "users", destination: "User", inverse: "books", toMany: true),
            ])
        return ManagedObjectModel(entities: [user, book])
    }

    @Test(SharedFiles.required) func theRealMappingMigratesALibraryWithItsPolicyFunction() throws {
        SQLiteStore.register()
        XMLStore.register()
        let folder = TemporaryFolder()
        let mapping = try MappingModel(contentsOf: Self.mappingFolder(in: folder))
        EntityMigrationPolicy.register(ToInt16Policy.self, forClassName: "CoreDataDemo.CustomMigration")
        let sourceURL = folder.file("v1.sqlite")
        let writer = PersistentStoreCoordinator(managedObjectModel: Self.library(bonusType: .string))
        try writer.addPersistentStore(type: .sqlite, at: sourceURL)
        let context = ManagedObjectContext(coordinator: writer)
        let user = context.insertNewObject(forEntityName: "User")
        user.setValue("Ada", forKey: "firstName")
        user.setValue("42", forKey: "bonusPoints")
        let book = context.insertNewObject(forEntityName: "Book")
        book.setValue("Notes", forKey: "title")
        user.setValue([book], forKey: "books")
        try context.save()

        let manager = MigrationManager(
            sourceModel: Self.library(bonusType: .string),
            destinationModel: Self.library(bonusType: .integer16))
        try manager.migrateStore(
            from: sourceURL, type: .sqlite, mapping: mapping, to: folder.file("v2.xml"),
            type: .xml)
        let reader = PersistentStoreCoordinator(managedObjectModel: Self.library(bonusType: .integer16))
        try reader.addPersistentStore(type: .xml, at: folder.file("v2.xml"))
        let readerContext = ManagedObjectContext(coordinator: reader)
        let users = try readerContext.fetch(FetchRequest(entityName: "User"))
        #expect(users.map { $0.value(forKey: "bonusPoints") as? Int } == [42])
        #expect(users.first?.objects(forKey: "books").map { $0.value(forKey: "title") as? String } == ["Notes"])
    }
}

/// The demo's `CustomMigration` policy: `toInt16WithValue:` turns the string of bonus points into a number.
final class ToInt16Policy: EntityMigrationPolicy {
    override func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        guard selector == "toInt16WithValue:" else {
            return try super.value(forFunction: selector, arguments: arguments, manager: manager)
        }
        guard let text = arguments.first as? String, let value = Int16(text) else { return nil }
        return Int(value)
    }
}
