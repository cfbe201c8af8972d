import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Heavyweight migration with the migration manager, between every pair of file store types.
struct MigrationManagerTests {
    static let fileKinds: [StoreKind] = {
        _ = StoreKind.all; return [.binary, .xml, .sqlite]
    }()
    static let pairs: [(StoreKind, StoreKind)] = fileKinds.flatMap { source in fileKinds.map { (source, $0) } }

    @Test(arguments: pairs)
    func anExplicitMappingSplitsNamesAndKeepsRelationships(source: StoreKind, destination: StoreKind) throws {
        let folder = TemporaryFolder()
        let sourceURL = folder.file("v1.\(source.fileExtension)")
        let destinationURL = folder.file("v2.\(destination.fileExtension)")
        try PeopleModels.writeSource(type: source.type, at: sourceURL)
        let before = PeopleModels.snapshot(folder.url)

        let manager = MigrationManager(sourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v2())
        var progress: [Float] = []
        manager.progressHandler = { progress.append($0) }
        try manager.migrateStore(
            from: sourceURL, type: source.type, mapping: try PeopleModels.explicitMapping(),
            to: destinationURL, type: destination.type)
        #expect(progress.last == 1)
        #expect(progress == progress.sorted())
        #expect(PeopleModels.snapshot(folder.url).filter { before[$0.key] != nil } == before)

        let context = try PeopleModels.open(type: destination.type, at: destinationURL, model: PeopleModels.v2())
        let people = try context.all("Person", sortedBy: "firstName")
        #expect(people.map { $0.value(forKey: "firstName") as? String } == ["Ada", "Alan", "Grace"])
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Mathison Turing", "Hopper"])
        #expect(people.map { $0.value(forKey: "age") as? Int } == [36, 41, 0])
        #expect(
            people[0].objects(forKey: "animals").compactMap { $0.value(forKey: "name") as? String }.sorted()
                == ["Rex", "Tom"])
        #expect(people[0].objects(forKey: "friends") == [people[1]])
        #expect(people[1].objects(forKey: "friends") == [people[0]])
        let animals = try context.all("Animal", sortedBy: "name")
        #expect(animals.map { ($0.value(forKey: "owner") as? ManagedObject) === people[0] } == [true, true])
    }

    /// The explicit mapping set up property by property, as Core Data code builds `NSEntityMapping()` and
    /// `NSPropertyMapping()`, migrates the same.
    @Test func aMappingBuiltPropertyByPropertyMigratesTheSame() throws {
        let folder = TemporaryFolder()
        let sourceURL = folder.file("v1.sqlite")
        let destinationURL = folder.file("v2.sqlite")
        try PeopleModels.writeSource(type: .sqlite, at: sourceURL)
        let explicit = try PeopleModels.explicitMapping()
        let rebuilt = MappingModel()
        for original in explicit.entityMappings {
            let mapping = EntityMapping()
            #expect(mapping.name.isEmpty && mapping.mappingType == .undefined && mapping.sourceEntityName == nil)
            mapping.name = original.name
            mapping.mappingType = original.mappingType
            mapping.sourceEntityName = original.sourceEntityName
            mapping.destinationEntityName = original.destinationEntityName
            mapping.entityMigrationPolicyClassName = original.entityMigrationPolicyClassName
            func copies(_ properties: [PropertyMapping]) -> [PropertyMapping] {
                properties.map { property in
                    let copy = PropertyMapping()
                    copy.name = property.name
                    copy.valueExpression = property.valueExpression
                    return copy
                }
            }
            mapping.attributeMappings = copies(original.attributeMappings)
            mapping.relationshipMappings = copies(original.relationshipMappings)
            rebuilt.entityMappings.append(mapping)
        }
        let manager = MigrationManager(sourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v2())
        try manager.migrateStore(
            from: sourceURL, type: .sqlite, mapping: rebuilt, to: destinationURL, type: .sqlite)
        let context = try PeopleModels.open(type: .sqlite, at: destinationURL, model: PeopleModels.v2())
        let people = try context.all("Person", sortedBy: "firstName")
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Mathison Turing", "Hopper"])
        #expect(people[0].objects(forKey: "friends") == [people[1]])
        #expect(try context.count(for: FetchRequest(entityName: "Animal")) == 2)
    }

    @Test(arguments: pairs)
    func anInferredMappingRenamesAndWidens(source: StoreKind, destination: StoreKind) throws {
        let folder = TemporaryFolder()
        let sourceURL = folder.file("v1.\(source.fileExtension)")
        let destinationURL = folder.file("v1b.\(destination.fileExtension)")
        try PeopleModels.writeSource(type: source.type, at: sourceURL)
        let manager = MigrationManager(sourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v1b())
        try manager.migrateStore(
            from: sourceURL, type: source.type, mapping: nil, to: destinationURL,
            type: destination.type)
        let context = try PeopleModels.open(type: destination.type, at: destinationURL, model: PeopleModels.v1b())
        let people = try context.all("Person", sortedBy: "fullName")
        #expect(people.map { $0.value(forKey: "town") as? String } == ["London", nil, nil])
        #expect(people.map { $0.value(forKey: "nickname") as? String } == [nil, nil, nil])
        #expect(people[0].objects(forKey: "pets").count == 2)
        #expect(
            people[0].objects(forKey: "friends").map { $0.value(forKey: "fullName") as? String }
                == ["Alan Mathison Turing"])
        #expect(try context.count(for: FetchRequest(entityName: "Pet")) == 2)
    }

    @Test func theInferredMappingNamesItsMappingsAndExpressions() throws {
        let mapping = try MappingModel.inferredMappingModel(
            forSourceModel: PeopleModels.v1(),
            destinationModel: PeopleModels.v1b())
        #expect(mapping.entityMappings.map(\.name) == ["PersonToPerson", "PetToPet"])
        #expect(mapping.entityMappings.map(\.mappingType) == [.transform, .copy])
        let person = mapping.entityMappings[0]
        #expect(person.attributeMappingsByName["town"]?.valueExpression?.expressionFormat == "$source.city")
        #expect(person.attributeMappingsByName["nickname"]?.valueExpression == nil)
        #expect(
            person.relationshipMappingsByName["pets"]?.valueExpression?.expressionFormat
                == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"pets\", "
                + "$source.pets)")
        let toV2 = try MappingModel.inferredMappingModel(
            forSourceModel: PeopleModels.v1(),
            destinationModel: PeopleModels.v1())
        #expect(toV2.entityMappings.allSatisfy { $0.mappingType == .copy })
    }

    @Test func aNewMandatoryAttributeWithoutDefaultCannotBeInferred() throws {
        #expect(throws: MigrationError(code: .invalidMappingModel, message: "")) {
            try MappingModel.inferredMappingModel(
                forSourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v2())
        }
    }

    @Test(arguments: fileKinds)
    func aFailedMigrationLeavesTheSourceUntouchedAndNoDestination(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let sourceURL = folder.file("v1.\(kind.fileExtension)")
        let destinationURL = folder.file("v2.\(kind.fileExtension)")
        try PeopleModels.writeSource(type: kind.type, at: sourceURL)
        let before = PeopleModels.snapshot(folder.url)
        // Without the policy, lastName stays nil: the destination does not validate.
        let mapping = try PeopleModels.explicitMapping()
        mapping.entityMappings[0].entityMigrationPolicyClassName = nil
        let manager = MigrationManager(sourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v2())
        #expect(throws: MigrationError(code: .validationFailed, message: "")) {
            try manager.migrateStore(
                from: sourceURL, type: kind.type, mapping: mapping, to: destinationURL,
                type: kind.type)
        }
        #expect(PeopleModels.unchanged(folder.url, since: before))
        #expect(!FileManager.default.fileExists(atPath: destinationURL.path))
        let context = try PeopleModels.open(type: kind.type, at: sourceURL, model: PeopleModels.v1())
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 3)
    }

    @Test func anUnregisteredPolicyOrAWrongModelFailsBeforeWriting() throws {
        _ = StoreKind.all
        let folder = TemporaryFolder()
        let sourceURL = folder.file("v1.sqlite")
        try PeopleModels.writeSource(type: .sqlite, at: sourceURL)
        let before = PeopleModels.snapshot(folder.url)
        let mapping = try PeopleModels.explicitMapping()
        mapping.entityMappings[0].entityMigrationPolicyClassName = "Nowhere.Policy"
        let manager = MigrationManager(sourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v2())
        #expect(throws: MigrationError(code: .policyNotFound, message: "")) {
            try manager.migrateStore(
                from: sourceURL, type: .sqlite, mapping: mapping,
                to: folder.file("v2.sqlite"), type: .sqlite)
        }
        let wrongSource = MigrationManager(sourceModel: PeopleModels.v2(), destinationModel: PeopleModels.v1())
        #expect(throws: MigrationError(code: .missingSourceModel, message: "")) {
            try wrongSource.migrateStore(
                from: sourceURL, type: .sqlite, mapping: MappingModel(),
                to: folder.file("v0.sqlite"), type: .sqlite)
        }
        let broken = MappingModel(entityMappings: [
            EntityMapping(name: "X", mappingType: .copy, sourceEntityName: "Person", destinationEntityName: "Robot")
        ])
        #expect(throws: MigrationError(code: .invalidMappingModel, message: "")) {
            try manager.migrateStore(
                from: sourceURL, type: .sqlite, mapping: broken,
                to: folder.file("v2.sqlite"), type: .sqlite)
        }
        #expect(throws: MigrationError(code: .sourceNotFound, message: "")) {
            try manager.migrateStore(
                from: folder.file("none.sqlite"), type: .sqlite, mapping: nil,
                to: folder.file("v2.sqlite"), type: .sqlite)
        }
        #expect(PeopleModels.unchanged(folder.url, since: before))
    }

    @Test func aPolicyCanCancelTheMigration() throws {
        _ = StoreKind.all
        let folder = TemporaryFolder()
        let sourceURL = folder.file("v1.xml")
        try PeopleModels.writeSource(type: .xml, at: sourceURL)
        EntityMigrationPolicy.register(CancellingPolicy.self, forClassName: "CancellingPolicy")
        let mapping = try MappingModel.inferredMappingModel(
            forSourceModel: PeopleModels.v1(),
            destinationModel: PeopleModels.v1b())
        mapping.entityMappings[1].entityMigrationPolicyClassName = "CancellingPolicy"
        let manager = MigrationManager(sourceModel: PeopleModels.v1(), destinationModel: PeopleModels.v1b())
        #expect(throws: MigrationError(code: .cancelled, message: "")) {
            try manager.migrateStore(
                from: sourceURL, type: .xml, mapping: mapping, to: folder.file("v1b.xml"),
                type: .xml)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("v1b.xml").path))
    }

    @Test func expressionsParseInNSExpressionFormat() throws {
        let call = try ObjectExpression(
            format: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", "
                + "\"UserToUser\", $source.friends)")
        #expect(call.selectorCall?.selector == "destinationInstancesForEntityMappingNamed:sourceInstances:")
        #expect(call.selectorCall?.arguments.count == 2)
        #expect(
            try ObjectExpression(format: "$source.firstName")
                == .member(
                    of: .variable("source"),
                    keyPath: "firstName"))
        #expect(throws: ObjectPredicateError.self) { try ObjectExpression(format: "FUNCTION($manager)") }
        #expect(throws: ObjectPredicateError.self) { try ObjectExpression(format: "a == b") }
    }
}

/// Cancels the migration as soon as its mapping begins.
final class CancellingPolicy: EntityMigrationPolicy {
    struct Stop: Error {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        manager.cancelMigration(error: Stop())
    }
}
