import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Composite attributes (Core Data's `NSCompositeAttributeDescription`): a dictionary value whose elements are
/// stored, queried and sorted through namespaced key paths, in every store type.
@Suite("Composite attributes")
struct CompositeAttributeTests {
    @Test(arguments: StoreKind.all)
    func valuesRoundTripAndKeyPathsQueryAndSortTheElements(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
        let url = kind.url("quakes", in: folder)
        try coordinator.addPersistentStore(type: kind.type, at: url)
        let writer = ManagedObjectContext(coordinator: coordinator)
        QuakeModel.insertQuakes(into: writer)
        try writer.save()

        // A new coordinator (but for the in-memory store): what comes back is what the store kept, not what the
        // first one cached.
        var reopened = coordinator
        if kind.type != .inMemory {
            reopened = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
            try reopened.addPersistentStore(type: kind.type, at: url)
        }
        let context = ManagedObjectContext(coordinator: reopened)
        let byCode = FetchRequest(entityName: "Quake")
        byCode.sortKeys = [SortKey("code")]
        let quakes = try context.fetch(byCode)
        try #require(quakes.count == 3)
        let a = quakes[0]
        let magnitude = try #require(a.value(forKey: "magnitude") as? [String: any Sendable])
        #expect(magnitude["richter"] as? Double == 4.6)
        #expect(magnitude["scale"] as? String == "ML")
        #expect(magnitude["recordedAt"] as? Date == QuakeModel.recorded)
        #expect(a.value(forKeyPath: "location.coordinate.latitude") as? Double == 47.37)
        #expect(a.value(forKeyPath: "location.depth") as? Int == 10)
        #expect(quakes[1].value(forKeyPath: "magnitude.scale") as? String == "Mw")
        #expect(quakes[1].value(forKeyPath: "magnitude.recordedAt") == nil)
        #expect(quakes[1].value(forKey: "location") == nil)
        #expect(quakes[2].value(forKey: "magnitude") == nil)

        let strong = FetchRequest(entityName: "Quake")
        strong.predicate = try ObjectPredicate(format: "magnitude.richter > 4.5 AND magnitude.scale != 'ML'")
        #expect(try context.fetch(strong).map { $0.value(forKey: "code") as? String } == ["b"])
        let north = FetchRequest(entityName: "Quake")
        north.predicate = try ObjectPredicate(format: "location.coordinate.latitude BETWEEN {47, 48}")
        #expect(try context.fetch(north).map { $0.value(forKey: "code") as? String } == ["a"])
        let byRichter = FetchRequest(entityName: "Quake")
        byRichter.predicate = try ObjectPredicate(format: "magnitude != nil")
        byRichter.sortKeys = [SortKey("magnitude.richter", ascending: false)]
        #expect(try context.fetch(byRichter).map { $0.value(forKey: "code") as? String } == ["b", "a"])
        #expect(try context.count(for: north) == 1)
    }

    @Test(arguments: StoreKind.all)
    func settingOneElementKeepsTheOthersAndIsSaved(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
        try coordinator.addPersistentStore(type: kind.type, at: kind.url("quakes", in: folder))
        let writer = ManagedObjectContext(coordinator: coordinator)
        QuakeModel.insertQuakes(into: writer)
        try writer.save()
        let request = FetchRequest(entityName: "Quake")
        request.predicate = try ObjectPredicate(format: "code == 'a'")
        let a = try #require(try writer.fetch(request).first)
        a.setValue(5.2, forKeyPath: "magnitude.richter")
        a.setValue(-3, forKeyPath: "location.coordinate.longitude")
        #expect(a.changedValues().keys.sorted() == ["location", "magnitude"])
        try writer.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let saved = try #require(try reader.fetch(request).first)
        #expect(saved.value(forKeyPath: "magnitude.richter") as? Double == 5.2)
        #expect(saved.value(forKeyPath: "magnitude.scale") as? String == "ML")
        // An Int given for a Double element is stored as the element's type.
        #expect(saved.value(forKeyPath: "location.coordinate.longitude") as? Double == -3)
        #expect(saved.value(forKeyPath: "location.coordinate.latitude") as? Double == 47.37)
    }

    @Test func aMissingRequiredElementFailsValidationAndSavesNothing() throws {
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
        try coordinator.addPersistentStore(type: .binary, at: folder.file("quakes.bin"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let quake = context.insertNewObject(forEntityName: "Quake")
        quake.setValue(["richter": 3.0], forKey: "magnitude")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.allErrors.map(\.code) == [.missingMandatoryProperty])
        #expect(error.allErrors.first?.context.key == "magnitude.scale")
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Quake")) == 0)
    }

    @Test func valuesAreConvertedToTheElementTypesAndUnknownElementsRefused() throws {
        let model = QuakeModel.model()
        let magnitude = try #require(model.entitiesByName["Quake"]?.attributesByName["magnitude"])
        let composite = try #require(magnitude as? CompositeAttributeDescription)
        #expect(composite.attributeType == .composite)
        #expect(composite.leafElements.map(\.path) == [["richter"], ["scale"], ["recordedAt"]])
        let location = try #require(model.entitiesByName["Quake"]?.attributesByName["location"])
        #expect(
            (location as? CompositeAttributeDescription)?.leafElements.map(\.path)
                == [["coordinate", "latitude"], ["coordinate", "longitude"], ["depth"]])

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let context = ManagedObjectContext(coordinator: coordinator)
        let quake = context.insertNewObject(forEntityName: "Quake")
        quake.setValue(["richter": 4, "scale": "ML"] as [String: Any], forKey: "magnitude")
        #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 4)
        // The version hash covers the elements: a model whose composite differs has another hash.
        let other = QuakeModel.model()
        let otherComposite =
            other.entitiesByName["Quake"]?.attributesByName["magnitude"] as? CompositeAttributeDescription
        otherComposite?.elements.append(AttributeDescription(name: "station", type: .string))
        #expect(other.entityVersionHashesByName["Quake"] != QuakeModel.model().entityVersionHashesByName["Quake"])
        // A key naming no element, or an element value of the wrong type, is not a value of the composite.
        let unknown = try #require(throws: ValidationError.self) {
            try quake.validateValue(["station": "ZUR", "scale": "ML"], forKey: "magnitude")
        }
        #expect(unknown.code == .wrongType && unknown.context.key == "magnitude")
        let wrongType = try #require(throws: ValidationError.self) {
            try quake.validateValue(["richter": "strong", "scale": "ML"], forKey: "magnitude")
        }
        #expect(wrongType.code == .wrongType)
        try quake.validateValue(["richter": 4.6, "scale": "ML"], forKey: "magnitude")
    }
}

extension CompositeAttributeTests {
    /// Version 2 of the quake model: `magnitude` gains `station` and loses `scale`, and `location` is gone.
    static func modelWithStation() -> ManagedObjectModel {
        let model = QuakeModel.model()
        let quake = model.entitiesByName["Quake"]!
        let magnitude = quake.attributesByName["magnitude"] as! CompositeAttributeDescription
        magnitude.elements.removeAll { $0.name == "scale" }
        magnitude.elements.append(AttributeDescription(name: "station", type: .string))
        quake.properties.removeAll { $0.name == "location" }
        return model
    }

    /// An element added to a composite, one removed and a composite removed are a lightweight migration: the other
    /// elements' values stay, the new element is nil, and the new element is then stored.
    @Test(arguments: [StoreKind.sqlite, StoreKind.binary, StoreKind.xml])
    func aChangedCompositeMigratesLightly(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = kind.url("quakes", in: folder)
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
            try coordinator.addPersistentStore(type: kind.type, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            QuakeModel.insertQuakes(into: context)
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.modelWithStation())
        try coordinator.addPersistentStore(
            type: kind.type, at: url,
            options: [
                .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
                // Atomic files keep no model: the one that wrote them is offered.
                .migrationSourceModels: [QuakeModel.model()],
            ])
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Quake")
        request.sortKeys = [SortKey("code")]
        let quakes = try context.fetch(request)
        #expect(quakes.map { $0.value(forKeyPath: "magnitude.richter") as? Double } == [4.6, 6.1, nil])
        #expect(quakes[0].value(forKeyPath: "magnitude.scale") == nil)
        #expect(quakes[0].value(forKeyPath: "magnitude.recordedAt") as? Date == QuakeModel.recorded)
        #expect(quakes[0].value(forKeyPath: "magnitude.station") == nil)
        quakes[0].setValue("ZUR", forKeyPath: "magnitude.station")
        try context.save()
        let stations = FetchRequest(entityName: "Quake")
        stations.predicate = try ObjectPredicate(format: "magnitude.station == 'ZUR'")
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: stations) == 1)
    }
}

extension CompositeAttributeTests {
    static func populated(_ kind: StoreKind, _ folder: TemporaryFolder) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
        try coordinator.addPersistentStore(type: kind.type, at: kind.url("quakes", in: folder))
        let context = ManagedObjectContext(coordinator: coordinator)
        QuakeModel.insertQuakes(into: context)
        try context.save()
        return coordinator
    }

    /// Batch inserts and updates take a composite's dictionary as a context's objects do.
    @Test(arguments: StoreKind.all)
    func batchRequestsStoreCompositeValues(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let coordinator = try Self.populated(kind, folder)
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try context.execute(
            BatchInsertRequest(
                entityName: "Quake",
                objects: [["code": "d", "magnitude": ["richter": 3, "scale": "ML"] as [String: any Sendable]]]))
        let update = BatchUpdateRequest(entityName: "Quake")
        update.predicate = try ObjectPredicate(format: "code == 'c'")
        update.propertiesToUpdate = ["magnitude": ["richter": 2.5, "scale": "Md"] as [String: any Sendable]]
        _ = try context.execute(update)
        let reader = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Quake")
        request.predicate = try ObjectPredicate(format: "magnitude.richter < 4")
        request.sortKeys = [SortKey("magnitude.richter")]
        let found = try reader.fetch(request)
        #expect(found.map { $0.value(forKey: "code") as? String } == ["c", "d"])
        #expect(found.map { $0.value(forKeyPath: "magnitude.richter") as? Double } == [2.5, 3])
        #expect(found.map { $0.value(forKeyPath: "magnitude.scale") as? String } == ["Md", "ML"])
    }

    /// Dictionary results name elements by key path, group by them and aggregate them; a whole composite is its
    /// dictionary.
    @Test(arguments: StoreKind.all)
    func dictionaryResultsGroupAndAggregateElements(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let coordinator = try Self.populated(kind, folder)
        let context = ManagedObjectContext(coordinator: coordinator)
        let extra = context.insertNewObject(forEntityName: "Quake")
        extra.setValue("e", forKey: "code")
        extra.setValue(["richter": 5.4, "scale": "ML"], forKey: "magnitude")
        try context.save()

        let perScale = FetchRequest(entityName: "Quake")
        perScale.resultType = .dictionary
        perScale.predicate = try ObjectPredicate(format: "magnitude.scale != nil")
        perScale.propertiesToGroupBy = ["magnitude.scale"]
        perScale.propertiesToFetch = [
            "magnitude.scale",
            ExpressionDescription(
                name: "strongest",
                expression: ObjectExpression(
                    forFunction: "max:",
                    arguments: [
                        ObjectExpression(forKeyPath: "magnitude.richter")
                    ]), resultType: .double),
        ]
        perScale.sortKeys = [SortKey("magnitude.scale")]
        let rows = try context.fetchDictionaries(perScale)
        #expect(rows.map { $0["magnitude.scale"] as? String } == ["ML", "Mw"])
        #expect(rows.map { $0["strongest"] as? Double } == [5.4, 6.1])

        let whole = FetchRequest(entityName: "Quake")
        whole.resultType = .dictionary
        whole.predicate = try ObjectPredicate(format: "code == 'b'")
        whole.propertiesToFetch = ["code", "magnitude"]
        let row = try #require(try context.fetchDictionaries(whole).first)
        let magnitude = try #require(row["magnitude"] as? [String: any Sendable])
        #expect(magnitude["richter"] as? Double == 6.1 && magnitude["scale"] as? String == "Mw")
    }

    /// A uniqueness constraint on an element: a second object with the same value is a constraint conflict.
    @Test(arguments: StoreKind.all)
    func aUniquenessConstraintOnAnElementIsChecked(kind: StoreKind) throws {
        let model = QuakeModel.model()
        model.entitiesByName["Quake"]!.uniquenessConstraints = [["magnitude.scale"]]
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: kind.type, at: kind.url("quakes", in: folder))
        let context = ManagedObjectContext(coordinator: coordinator)
        QuakeModel.insertQuakes(into: context)
        try context.save()
        let twin = context.insertNewObject(forEntityName: "Quake")
        twin.setValue("twin", forKey: "code")
        twin.setValue(["richter": 1.0, "scale": "Mw"], forKey: "magnitude")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .constraintConflict)
        #expect(error.constraintConflicts.first?.constraint == ["magnitude.scale"])
        #expect(error.constraintConflicts.first?.constraintValues["magnitude.scale"] as? String == "Mw")
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Quake")) == 3)
    }
}

extension CompositeAttributeTests {
    /// A derived attribute may read an element of a composite, here or through a to-one relationship; an element
    /// the composite lacks is a model error.
    @Test func derivedAttributesReadElements() throws {
        let model = QuakeModel.model()
        let quake = try #require(model.entitiesByName["Quake"])
        quake.properties.append(
            DerivedAttributeDescription(
                name: "scaleName", type: .string, derivationExpression: try ObjectExpression(format: "magnitude.scale"))
        )
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        QuakeModel.insertQuakes(into: context)
        try context.save()
        let request = FetchRequest(entityName: "Quake")
        request.sortKeys = [SortKey("code")]
        #expect(try context.fetch(request).map { $0.value(forKey: "scaleName") as? String } == ["ML", "Mw", nil])

        let broken = QuakeModel.model()
        broken.entitiesByName["Quake"]!.properties.append(
            DerivedAttributeDescription(
                name: "station", type: .string, derivationExpression: try ObjectExpression(format: "magnitude.station"))
        )
        let error = try #require(throws: ModelError.self) { try broken.resolveRelationships() }
        #expect(error.code == .invalidDerivation)
        #expect(error.message.contains("composite 'magnitude' has no element 'station'"), "\(error.message)")
    }
}
