import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphPostgres
@testable import ObjectGraphTestSupport

/// Saves that write many rows at once: updates go out as one `UPDATE … FROM (VALUES …)` per entity and order
/// columns as one per column, so these check what another coordinator reads back, and that a refused save
/// writes none of it.
@Suite("PostgreSQL batched writes", needsPostgres)
struct PostgresBatchedWriteTests {
    static func coordinator(_ name: String, in folder: TemporaryFolder, model: ManagedObjectModel) throws
        -> PersistentStoreCoordinator
    {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: StoreKind.postgres.url(name, in: folder))
        return coordinator
    }

    /// People by name with their values (and their pets' names, in order, when `withPets`), as a second
    /// coordinator reads them.
    ///
    /// The context is kept alive until every value is read: objects reach their context through a weak link, and
    /// a fault that fires once its context is gone has no context to make related objects in (its relationships
    /// read empty).
    static func people(_ coordinator: PersistentStoreCoordinator, withPets: Bool = false) throws
        -> [String: [String: String]]
    {
        let context = ManagedObjectContext(coordinator: coordinator)
        let people = try context.all("Person")
        defer { withExtendedLifetime(context) {} }
        return Dictionary(
            uniqueKeysWithValues: people.map { person in
                let values = ["age", "score", "nickname", "birthday", "isActive"].compactMap { key in
                    person.value(forKey: key).map { "\(key)=\($0)" }
                }
                return (
                    person.value(forKey: "name") as? String ?? "?",
                    [
                        "values": values.joined(separator: " "),
                        "pets": (withPets ? person.objects(forKey: "pets") : [])
                            .compactMap { $0.value(forKey: "name") as? String }.joined(separator: ","),
                    ]
                )
            })
    }

    @Test func manyUpdatesInOneSaveAreReadBackByAnotherCoordinator() throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let writer = try Self.coordinator("updates", in: folder, model: PeopleModel.make())
        let reader = try Self.coordinator("updates", in: folder, model: PeopleModel.make())
        let context = ManagedObjectContext(coordinator: writer)
        for index in 0..<1_500 {
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("p\(index)", forKey: "name")
            person.setValue(index, forKey: "age")
            person.setValue(Double(index) / 2, forKey: "score")
            person.setValue("nick \(index)", forKey: "nickname")
        }
        try context.save()
        // More rows than one statement's VALUES list takes; every nickname and score becomes NULL, so the first
        // row of each statement types those columns by its casts alone.
        for person in try context.all("Person") {
            let age = person.value(forKey: "age") as? Int ?? -1
            person.setValue(age + 10_000, forKey: "age")
            person.setValue(nil, forKey: "nickname")
            person.setValue(nil, forKey: "score")
            person.setValue(age % 2 == 0, forKey: "isActive")
            person.setValue(Date(timeIntervalSinceReferenceDate: Double(age)), forKey: "birthday")
        }
        try context.save()
        let read = try Self.people(reader)
        #expect(read.count == 1_500)
        #expect(read["p0"]?["values"] == "age=10000 birthday=\(Date(timeIntervalSinceReferenceDate: 0)) isActive=true")
        #expect(
            read["p1499"]?["values"]
                == "age=11499 birthday=\(Date(timeIntervalSinceReferenceDate: 1499)) isActive=false")
        // Versions moved on: the reader's objects are at version 2 and a stale update is refused.
        let stale = ManagedObjectContext(coordinator: reader)
        let person = try #require(try stale.all("Person", sortedBy: "name").first)
        _ = person.value(forKey: "age")
        let again = ManagedObjectContext(coordinator: writer)
        let fresh = try #require(try again.all("Person", sortedBy: "name").first)
        fresh.setValue(1, forKey: "age")
        try again.save()
        person.setValue(2, forKey: "age")
        #expect(throws: StoreError(code: .mergeConflict, message: "")) { try stale.save() }
        #expect(try Self.people(reader)["p0"]?["values"]?.hasPrefix("age=1 ") == true)
    }

    @Test func reorderedToManyRelationshipsKeepTheirOrderForAnotherCoordinator() throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let writer = try Self.coordinator("orders", in: folder, model: PeopleModel.make())
        let reader = try Self.coordinator("orders", in: folder, model: PeopleModel.make())
        let context = ManagedObjectContext(coordinator: writer)
        var owners: [ManagedObject] = []
        for index in 0..<3 {
            let owner = context.insertNewObject(forEntityName: "Person")
            owner.setValue("owner\(index)", forKey: "name")
            let pets = (0..<4).map { number in
                let pet = context.insertNewObject(forEntityName: "Pet")
                pet.setValue("o\(index)p\(number)", forKey: "name")
                return pet
            }
            owner.setValue(pets, forKey: "pets")
            owners.append(owner)
        }
        try context.save()
        #expect(try Self.people(reader, withPets: true)["owner1"]?["pets"] == "o1p0,o1p1,o1p2,o1p3")
        // Reverse every owner's pets and move one pet to another owner, in one save.
        for owner in owners {
            let pets = owner.value(forKey: "pets") as? [ManagedObject] ?? []
            owner.setValue(Array(pets.reversed()), forKey: "pets")
        }
        let moved = try #require((owners[0].value(forKey: "pets") as? [ManagedObject])?.first)
        var second = owners[2].value(forKey: "pets") as? [ManagedObject] ?? []
        second.insert(moved, at: 1)
        owners[2].setValue(second, forKey: "pets")
        try context.save()
        let read = try Self.people(reader, withPets: true)
        #expect(read["owner0"]?["pets"] == "o0p2,o0p1,o0p0")
        #expect(read["owner1"]?["pets"] == "o1p3,o1p2,o1p1,o1p0")
        #expect(read["owner2"]?["pets"] == "o2p3,o0p3,o2p2,o2p1,o2p0")
    }
}
