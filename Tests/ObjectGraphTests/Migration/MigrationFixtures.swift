import Foundation
import ObjectGraph

@testable import ObjectGraphTestSupport

/// Two versions of a small model: people with pets and friends, whose full name is split in version 2.
enum PeopleModels {
    static func v1() -> ManagedObjectModel {
        let person = EntityDescription(
            name: "Person",
            properties: [
                AttributeDescription(name: "fullName", type: .string, isOptional: false),
                AttributeDescription(name: "age", type: .integer32, defaultValue: 0),
                AttributeDescription(name: "city", type: .string),
                RelationshipDescription(
                    name: "pets", destination: "Pet", inverse: "owner", toMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true),
            ])
        let pet = EntityDescription(
            name: "Pet",
            properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "owner", destination: "Person", inverse: "pets"),
            ])
        return ManagedObjectModel(entities: [person, pet])
    }

    /// Version 1 with lightweight changes: `city` renamed `town`, a new optional `nickname`, `age` 64-bit.
    static func v1b() -> ManagedObjectModel {
        let town = AttributeDescription(name: "town", type: .string)
        town.renamingIdentifier = "city"
        let person = EntityDescription(
            name: "Person",
            properties: [
                AttributeDescription(name: "fullName", type: .string, isOptional: false),
                AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
                town,
                AttributeDescription(name: "nickname", type: .string),
                RelationshipDescription(
                    name: "pets", destination: "Pet", inverse: "owner", toMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true),
            ])
        let pet = EntityDescription(
            name: "Pet",
            properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "owner", destination: "Person", inverse: "pets"),
            ])
        return ManagedObjectModel(entities: [person, pet])
    }

    /// Version 2: `fullName` split into `firstName` and `lastName` (mandatory), `city` gone, pets renamed animals.
    static func v2() -> ManagedObjectModel {
        let person = EntityDescription(
            name: "Person",
            properties: [
                AttributeDescription(name: "firstName", type: .string, isOptional: false),
                AttributeDescription(name: "lastName", type: .string, isOptional: false),
                AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
                RelationshipDescription(
                    name: "animals", destination: "Animal", inverse: "owner", toMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true),
            ])
        let animal = EntityDescription(
            name: "Animal",
            properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "owner", destination: "Person", inverse: "animals"),
            ])
        return ManagedObjectModel(entities: [person, animal])
    }

    /// The explicit mapping from version 1 to 2: a custom policy splits the name; relationships go through
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:`.
    static func explicitMapping() throws -> MappingModel {
        let person = EntityMapping(
            name: "PersonToPerson", mappingType: .transform, sourceEntityName: "Person",
            destinationEntityName: "Person",
            attributeMappings: [try PropertyMapping(name: "age", valueExpressionFormat: "$source.age")],
            relationshipMappings: [
                try PropertyMapping(
                    name: "animals",
                    valueExpressionFormat: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:"
                        + "sourceInstances:\", \"PetToAnimal\", $source.pets)"),
                try PropertyMapping(
                    name: "friends",
                    valueExpressionFormat: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:"
                        + "sourceInstances:\", \"PersonToPerson\", $source.friends)"),
            ],
            entityMigrationPolicyClassName: "Tests.SplitNamePolicy")
        let pet = EntityMapping(
            name: "PetToAnimal", mappingType: .transform, sourceEntityName: "Pet", destinationEntityName: "Animal",
            attributeMappings: [try PropertyMapping(name: "name", valueExpressionFormat: "$source.name")],
            relationshipMappings: [
                try PropertyMapping(
                    name: "owner",
                    valueExpressionFormat: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:"
                        + "sourceInstances:\", \"PersonToPerson\", $source.owner)")
            ])
        EntityMigrationPolicy.register(SplitNamePolicy.self, forClassName: "Tests.SplitNamePolicy")
        return MappingModel(entityMappings: [person, pet])
    }

    /// Writes three people (two friends, one with two pets) into a new store.
    static func writeSource(type: PersistentStoreType, at url: URL, model: ManagedObjectModel = v1()) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let ada = context.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada Lovelace", forKey: "fullName")
        ada.setValue(36, forKey: "age")
        ada.setValue("London", forKey: "city")
        let alan = context.insertNewObject(forEntityName: "Person")
        alan.setValue("Alan Mathison Turing", forKey: "fullName")
        alan.setValue(41, forKey: "age")
        let grace = context.insertNewObject(forEntityName: "Person")
        grace.setValue("Grace Hopper", forKey: "fullName")
        ada.setValue([alan], forKey: "friends")
        for name in ["Rex", "Tom"] {
            let pet = context.insertNewObject(forEntityName: "Pet")
            pet.setValue(name, forKey: "name")
            pet.setValue(ada, forKey: "owner")
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// A context on a store, read back.
    static func open(
        type: PersistentStoreType, at url: URL, model: ManagedObjectModel,
        options: PersistentStoreOptions = [:]
    ) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        return ManagedObjectContext(coordinator: coordinator)
    }

    /// Every file of a folder with its bytes, to show that a failed migration changed nothing.
    static func snapshot(_ folder: URL) -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: Data] = [:]
        for name in names {
            files[name] = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
        }
        return files
    }

    /// Whether every file of `before` still has its bytes and no other file appeared but SQLite's `-wal` and
    /// `-shm` companions (a read-only WAL connection makes them, empty of changes).
    static func unchanged(_ folder: URL, since before: [String: Data]) -> Bool {
        let now = snapshot(folder)
        let added = Set(now.keys).subtracting(before.keys)
        return now.filter { before[$0.key] != nil } == before
            && added.allSatisfy { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }
    }
}

/// Splits `fullName` into `firstName` (the first word) and `lastName` (the rest).
final class SplitNamePolicy: EntityMigrationPolicy {
    override func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping,
        manager: MigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        let words = (source.value(forKey: "fullName") as? String ?? "").split(separator: " ", maxSplits: 1)
        for destination in manager.destinationInstances(forEntityMappingNamed: mapping.name, sourceInstances: [source])
        {
            destination.setValue(words.first.map(String.init) ?? "", forKey: "firstName")
            destination.setValue(words.dropFirst().first.map(String.init) ?? "", forKey: "lastName")
        }
    }
}
