import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing
@testable import ObjectGraphTestSupport

@Suite("Model files: reading")
struct ModelFileReadingTests {
    @Test func readsTheFullElementSet() throws {
        let model = try ModelFileFixtures.read(ModelFileFixtures.fullElementSet)
        #expect(model.entities.map(\.name) == ["Item", "Book", "Owner"])
        #expect(model.versionIdentifiers == ["v7"])
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.managedObjectClassName == "ItemMO")
        #expect(item.isAbstract)
        #expect(item.renamingIdentifier == "OldItem")
        #expect(item.versionHashModifier == "2")
        #expect(item.userInfo == ["entity.key": "entity value"])
        #expect(item.uniquenessConstraints == [["i32", "str"]])
        #expect(
            item.indexes == [
                FetchIndexDescription(
                    name: "byI32", propertyNames: ["i32", "str"],
                    descending: ["str"])
            ])
        #expect(item.subentities.map(\.name) == ["Book"])
        #expect(model.entitiesByName["Book"]?.superentity === item)
        #expect(model.entitiesByName["Owner"]?.managedObjectClassName == "NSManagedObject")

        let attributes = item.attributesByName
        let i16 = try #require(attributes["i16"])
        #expect(i16.attributeType == .integer16 && !i16.isOptional && i16.usesScalarValueType)
        #expect(i16.defaultValue as? Int == 7 && i16.minimumValue as? Int == -5 && i16.maximumValue as? Int == 500)
        #expect(attributes["i32"]?.isIndexed == true && attributes["i32"]?.isOptional == true)
        #expect(attributes["i64"]?.defaultValue as? Int == Int.min)
        #expect(attributes["dec"]?.defaultValue as? Decimal == Decimal(string: "12.5"))
        #expect(attributes["dec"]?.minimumValue as? Decimal == Decimal(string: "0.5"))
        #expect(
            attributes["dbl"]?.defaultValue as? Double == 0.1 && attributes["dbl"]?.maximumValue as? Double == 1e300)
        #expect(attributes["flt"]?.defaultValue as? Float == 1.5)
        let string = try #require(attributes["str"])
        #expect(string.defaultValue as? String == "Hello \"World\"")
        #expect(string.minimumValue as? Int == 1 && string.maximumValue as? Int == 40)
        #expect(string.regularExpression == "[A-Z]+ & <x>")
        #expect(string.renamingIdentifier == "oldStr")
        #expect(string.userInfo == ["z.key": "last", "a key with spaces": "tab\tnewline\n"])
        #expect(attributes["flag"]?.defaultValue as? Bool == true)
        let when = try #require(attributes["when"])
        #expect(when.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 631_152_000))
        #expect(when.minimumValue as? Date == Date(timeIntervalSince1970: 0))
        #expect(when.maximumValue as? Date == Date(timeIntervalSinceReferenceDate: 1_000_000_000.5))
        #expect(
            attributes["blob"]?.allowsExternalBinaryDataStorage == true && attributes["blob"]?.minimumValue as? Int == 2
        )
        #expect(attributes["uuid"]?.defaultValue == nil)
        #expect(attributes["link"]?.defaultValue as? URL == URL(string: "https://example.com/x"))
        #expect(attributes["thing"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(attributes["thing"]?.attributeValueClassName == "[String]")
        #expect(attributes["computed"]?.attributeType == .undefined && attributes["computed"]?.isTransient == true)
        #expect(attributes["oid"]?.attributeType == .objectID)

        let owner = try #require(item.relationshipsByName["owner"])
        #expect(!owner.isToMany && owner.deleteRule == .deny && owner.inverseRelationship?.name == "items")
        let owners = try #require(model.entitiesByName["Owner"])
        let items = try #require(owners.relationshipsByName["items"])
        #expect(items.isToMany && items.isOrdered && items.minCount == 1 && items.maxCount == 10 && !items.isOptional)
        #expect(items.deleteRule == .cascade && items.inverseRelationship === owner)
        #expect(owners.relationshipsByName["friends"]?.deleteRule == .noAction)
        #expect(owners.relationshipsByName["friends"]?.isToMany == true)
        #expect(owners.relationshipsByName["best"]?.isTransient == true)
        let siblings = try #require(item.propertiesByName["siblings"] as? FetchedPropertyDescription)
        #expect(
            siblings.destinationEntityName == "Item" && siblings.predicate == nil && siblings.userInfo == ["k": "v"])

        #expect(model.configurations == ["Library", "People"])
        #expect(model.entities(forConfigurationName: "Library")?.map(\.name) == ["Item", "Book"])
        #expect(model.fetchRequestTemplateNames == ["allBooks", "owners"])
        let allBooks = try #require(model.fetchRequestTemplatesByName["allBooks"])
        #expect(allBooks.entityName == "Book" && allBooks.fetchLimit == 20)
        #expect(!allBooks.includesSubentities && !allBooks.returnsObjectsAsFaults && allBooks.includesPendingChanges)
    }

    @Test(SharedFiles.required) func readsCoreStoresModel() throws {
        let model = try ManagedObjectModel(contentsOf: SharedFiles.url(SharedFiles.coreStoreModel))
        #expect(model.entities.map(\.name) == ["TestEntity1AAA", "TestEntity2"])
        #expect(model.configurations == ["Config1", "Config2"])
        #expect(model.entities(forConfigurationName: "Config1")?.map(\.name) == ["TestEntity1AAA"])
        #expect(model.entities(forConfigurationName: "Config2")?.map(\.name) == ["TestEntity2"])
        let first = try #require(model.entitiesByName["TestEntity1AAA"])
        #expect(first.managedObjectClassName == ".TestEntity1")
        #expect(first.attributesByName.count == 8)
        #expect(first.attributesByName["testEntityID"]?.attributeType == .integer64)
        #expect(first.attributesByName["testDecimal"]?.attributeType == .decimal)
        #expect(first.attributesByName.values.allSatisfy { $0.isOptional })
        let unordered = try #require(first.relationshipsByName["testToManyUnordered"])
        #expect(unordered.isToMany && !unordered.isOrdered && unordered.inverseRelationship?.name == "testToOne")
        let ordered = try #require(model.entitiesByName["TestEntity2"]?.relationshipsByName["testToManyOrdered"])
        #expect(ordered.isToMany && ordered.isOrdered && ordered.destinationEntity?.name == "TestEntity2")
        #expect(model.entitiesByName["TestEntity2"]?.relationshipsByName["testToOne"]?.isToMany == false)
    }

    /// Needs the real predicate parser (`ObjectPredicate(format:)`): the file's templates have predicate strings.
    @Test(SharedFiles.required) func readsMogeneratorsModelWithInheritanceAndTemplates() throws {
        let model = try ManagedObjectModel(contentsOf: SharedFiles.url(SharedFiles.mogeneratorModel))
        #expect(model.entities.count == 9)
        let human = try #require(model.entitiesByName["Human"])
        #expect(human.subentities.map(\.name) == ["Child", "Parent", "Uncle"])
        #expect(
            model.entitiesByName["EntitySansCustomClass2"]?.subentities.map(\.name)
                == ["ConcreteEntityWithCustomClass1", "ConcreteEntityWithCustomClass2"])
        #expect(model.entitiesByName["Parent"]?.attributesByName["age"] != nil)  // inherited
        #expect(human.userInfo["key with.dots..."] == "value with \"quotes\"")
        #expect(human.userInfo["additionalHeaderFileName"] == "Gender.h")
        let age = try #require(human.attributesByName["age"])
        #expect(!age.isOptional && age.minimumValue as? Int == 0 && age.defaultValue as? Int == 0)
        #expect(age.userInfo == ["mogenerator.readonly": "true"])
        let parent = try #require(model.entitiesByName["Parent"])
        #expect(parent.attributesByName["myInt16Transient"]?.isTransient == true)
        #expect(parent.attributesByName["myTransformableSansClassName"]?.attributeType == .transformable)
        #expect(parent.relationshipsByName["orderedChildren"]?.inverseRelationship?.name == "parent")
        #expect(
            model.fetchRequestTemplateNames == [
                "allHumans", "byHumanName", "byParent", "byParentName",
                "oneByHumanName",
            ])
        let byParentName = try #require(model.fetchRequestTemplatesByName["byParentName"])
        #expect(byParentName.entityName == "Child")
        #expect(byParentName.predicate?.referencedVariables == ["parentName"])
        #expect(byParentName.predicate?.predicateFormat.contains("parent.parentName") == true)
        #expect(model.fetchRequestTemplatesByName["allHumans"]?.predicate == nil)
    }

    @Test(SharedFiles.required) func readsTheNewestVersionOfABundleWithoutCurrentVersion() throws {
        let model = try ManagedObjectModel(contentsOf: SharedFiles.url(SharedFiles.evolutionBundle))
        #expect(model.entities.map(\.name) == ["Creature"])
        let creature = try #require(model.entities.first)
        #expect(creature.attributesByName["dnaCode"]?.attributeType == .integer64)
        #expect(creature.attributesByName["dnaCode"]?.isOptional == false)
        #expect(creature.attributesByName["numberOfFlagella"]?.usesScalarValueType == true)
    }

    @Test func picksTheCurrentVersionElseTheNewestByNaturalOrder() throws {
        let folder = TemporaryFolder()
        let bundle = folder.file("Model.xcdatamodeld")
        for (version, entity) in [
            ("Model", "First"), ("Model 2", "Second"), ("Model 10", "Tenth"),
            ("Model 9", "Ninth"),
        ] {
            let directory = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(ModelFileFixtures.singleEntity(entity).utf8).write(
                to: directory.appendingPathComponent("contents"))
        }
        #expect(try ManagedObjectModel(contentsOf: bundle).entities.map(\.name) == ["Tenth"])
        let current = bundle.appendingPathComponent(".xccurrentversion")
        try Data(ModelFileFixtures.currentVersion(nil).utf8).write(to: current)
        #expect(try ManagedObjectModel(contentsOf: bundle).entities.map(\.name) == ["Tenth"])
        try Data(ModelFileFixtures.currentVersion("Model 2.xcdatamodel").utf8).write(to: current)
        #expect(try ManagedObjectModel(contentsOf: bundle).entities.map(\.name) == ["Second"])
        let version = bundle.appendingPathComponent("Model 9.xcdatamodel")
        #expect(try ManagedObjectModel(contentsOf: version).entities.map(\.name) == ["Ninth"])
        let contents = version.appendingPathComponent("contents")
        #expect(try ManagedObjectModel(contentsOf: contents).entities.map(\.name) == ["Ninth"])
        try Data(ModelFileFixtures.currentVersion("Missing.xcdatamodel").utf8).write(to: current)
        #expect(throws: ModelError(code: .invalidModelFile, message: "")) { try ManagedObjectModel(contentsOf: bundle) }
    }

    @Test func aModelReadFromAFileWorksWithAStore() throws {
        let folder = TemporaryFolder()
        let model = try ModelFileFixtures.read(ModelFileFixtures.fullElementSet)
        XMLStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .xml, configurationName: "Library", at: folder.file("library.xml"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = context.insertNewObject(forEntityName: "Book")
        #expect(book.value(forKey: "i16") as? Int == 7)
        #expect(book.value(forKey: "when") as? Date == Date(timeIntervalSinceReferenceDate: 631_152_000))
        book.setValue(12, forKey: "pages")
        book.setValue("ABC & <x>", forKey: "str")
        try context.save()
        let again = PersistentStoreCoordinator(
            managedObjectModel: try ModelFileFixtures.read(ModelFileFixtures.fullElementSet))
        try again.addPersistentStore(type: .xml, configurationName: "Library", at: folder.file("library.xml"))
        let books = try ManagedObjectContext(coordinator: again).all("Book")
        #expect(books.map { $0.value(forKey: "pages") as? Int } == [12])
    }
}
