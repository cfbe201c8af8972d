import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Model")
struct ModelTests {
    /// Objects find properties by name through a small table, or by hashing when two names share its slots (the same
    /// length and first, second and last bytes); both ways find every property and nothing else.
    @Test(arguments: [["title", "minutes", "room"], ["abxd", "abyd", "title"]])
    func propertiesAreFoundByNameWhetherOrNotTheirNamesShareASlot(names: [String]) throws {
        #expect((KeyMatcher(names) == nil) == names.contains("abxd"))
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Thing", properties: names.map { AttributeDescription(name: $0, type: .string) })
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let thing = context.insertNewObject(forEntityName: "Thing")
        for name in names { thing.setValue("value of \(name)", forKey: name) }
        #expect(names.map { thing.value(forKey: $0) as? String } == names.map { "value of \($0)" })
        #expect(try names.map { try thing.predicateValue(forKey: $0) as? String } == names.map { "value of \($0)" })
        for missing in ["abzd", "titles", "", "Title"] {
            #expect(throws: (any Error).self) { try thing.predicateValue(forKey: missing) }
        }
        try context.save()
        let predicate = try ObjectPredicate(format: "%K == %@", names[1], "value of \(names[1])")
        #expect(try predicate.evaluate(with: thing))
    }

    @Test func entitiesInheritProperties() {
        let model = TestModel.make()
        let workshop = model.entitiesByName["Workshop"]!
        #expect(workshop.superentity?.name == "Session")
        #expect(workshop.propertiesByName["title"] != nil)
        #expect(workshop.attributesByName["capacity"]?.attributeType == .integer16)
        #expect(workshop.isKind(of: model.entitiesByName["Session"]!))
        #expect(model.entitiesByName["Session"]!.selfAndDescendants.map(\.name) == ["Session", "Workshop"])
    }

    @Test func configurationsListTheirEntities() {
        let model = TestModel.make()
        #expect(model.configurations == ["Schedule", "Personal"])
        #expect(model.entities(forConfigurationName: "Personal")?.map(\.name).contains("Favorite") == true)
        #expect(model.configuration("Schedule", contains: "Favorite") == false)
        #expect(model.configuration(nil, contains: "Favorite"))
        #expect(model.entities(forConfigurationName: "Missing") == nil)
    }

    @Test func mergingModelsJoinsConfigurationsAndRefusesDuplicates() throws {
        let a = ManagedObjectModel(entities: [EntityDescription(name: "A")])
        a.setEntities(a.entities, forConfigurationName: "Shared")
        let b = ManagedObjectModel(entities: [EntityDescription(name: "B")])
        b.setEntities(b.entities, forConfigurationName: "Shared")
        let merged = try ManagedObjectModel(byMerging: [a, b])
        #expect(Set(merged.entitiesByName.keys) == ["A", "B"])
        #expect(merged.entities(forConfigurationName: "Shared")?.map(\.name) == ["A", "B"])
        let duplicate = ManagedObjectModel(entities: [EntityDescription(name: "A")])
        #expect(throws: ModelError(code: .duplicateEntity, message: "")) {
            try ManagedObjectModel(byMerging: [a, duplicate])
        }
    }

    @Test func templatesNameMissingVariables() throws {
        let model = TestModel.make()
        let error = try #require(throws: ModelError.self) {
            try model.fetchRequestFromTemplate(withName: "SessionsInRoom", substitutionVariables: [:])
        }
        #expect(error.code == .missingVariable)
        #expect(error.variableNames == ["ROOM"])
        #expect(error.message.contains("$ROOM"))
        #expect(throws: ModelError(code: .unknownTemplate, message: "")) {
            try model.fetchRequestFromTemplate(withName: "Nope", substitutionVariables: [:])
        }
        let request = try model.fetchRequestFromTemplate(withName: "SessionsInRoom",
                                                         substitutionVariables: ["ROOM": "Saal 1"])
        #expect(request.entityName == "Session")
        #expect(request.predicate?.referencedVariables.isEmpty == true)
    }

    @Test func versionHashesAreStableAndSensitive() {
        let one = TestModel.make(), two = TestModel.make()
        #expect(one.entityVersionHashesByName == two.entityVersionHashesByName)
        #expect(one.entitiesByName["Session"]!.versionHash.count == 32)
        let changed = TestModel.make()
        (changed.entitiesByName["Room"]!.properties[0] as! AttributeDescription).attributeType = .integer64
        #expect(changed.entitiesByName["Room"]!.versionHash != one.entitiesByName["Room"]!.versionHash)
        #expect(changed.entitiesByName["Session"]!.versionHash == one.entitiesByName["Session"]!.versionHash)
    }

    @Test func danglingDestinationsAreReported() {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "A", properties: [RelationshipDescription(name: "b", destination: "Missing")]),
        ])
        #expect(throws: ModelError(code: .unknownDestination, message: "")) { try model.resolveRelationships() }
    }

    @Test func coercionConvertsOnlyWithoutLoss() {
        #expect(AttributeType.integer16.coerce(Int32(5)) as? Int == 5)
        #expect(AttributeType.integer16.coerce(70_000) == nil)
        #expect(AttributeType.integer64.coerce(3.5) == nil)
        #expect(AttributeType.double.coerce(3) as? Double == 3)
        #expect(AttributeType.string.coerce(5) == nil)
        #expect(AttributeType.boolean.coerce(1) as? Bool == true)
        #expect(AttributeType.uuid.coerce("not a uuid") == nil)
    }

    @Test func managedObjectIDsParseTheirURIs() {
        let id = ManagedObjectID(entityName: "Session", storeIdentifier: "ABC", referenceKey: 12)
        #expect(id.uriRepresentation().absoluteString == "x-coredata://ABC/Session/p12")
        #expect(ManagedObjectID(uriRepresentation: id.uriRepresentation()) == id)
        #expect(ManagedObjectID(uriRepresentation: URL(string: "x-coredata://ABC/Session/q12")!) == nil)
        #expect(ManagedObjectID(uriRepresentation: URL(string: "x-coredata://ABC/Session/pX")!) == nil)
    }
}
