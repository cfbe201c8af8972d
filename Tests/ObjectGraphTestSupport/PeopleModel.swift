import Foundation
import ObjectGraph
import ObjectGraphPostgres
import ObjectGraphSQLite

/// The predicate corpus's people as a model: `Person` with a to-one `address` and an ordered to-many `pets`.
enum PeopleModel {
    static func make() -> ManagedObjectModel {
        let person = EntityDescription(
            name: "Person",
            properties: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "age", type: .integer64),
                AttributeDescription(name: "score", type: .double),
                AttributeDescription(name: "birthday", type: .date),
                AttributeDescription(name: "isActive", type: .boolean),
                AttributeDescription(name: "tags", type: .transformable),
                AttributeDescription(name: "nickname", type: .string),
                AttributeDescription(name: "email", type: .string),
                AttributeDescription(name: "room", type: .string),
                RelationshipDescription(name: "address", destination: "Address", inverse: "person"),
                RelationshipDescription(
                    name: "pets", destination: "Pet", inverse: "owner", toMany: true, isOrdered: true),
            ])
        let address = EntityDescription(
            name: "Address",
            properties: [
                AttributeDescription(name: "city", type: .string),
                AttributeDescription(name: "zip", type: .string),
                RelationshipDescription(name: "person", destination: "Person", inverse: "address"),
            ])
        let pet = EntityDescription(
            name: "Pet",
            properties: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "species", type: .string),
                AttributeDescription(name: "age", type: .integer64),
                RelationshipDescription(name: "owner", destination: "Person", inverse: "pets"),
            ])
        return ManagedObjectModel(entities: [person, address, pet])
    }

    /// A coordinator with one store of `type` holding the fixture people.
    static func populatedCoordinator(type: PersistentStoreType, url: URL?) throws -> PersistentStoreCoordinator {
        SQLiteStore.register()
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: make())
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for values in PredicateFixtures.people() {
            let person = context.insertNewObject(forEntityName: "Person")
            for key in ["name", "age", "score", "birthday", "isActive", "tags", "nickname", "email", "room"] {
                guard let value = values[key], !(value is NSNull) else { continue }
                person.setValue(value, forKey: key)
            }
            if let fields = values["address"] as? [String: Any] {
                let address = context.insertNewObject(forEntityName: "Address")
                address.setValue(fields["city"], forKey: "city")
                address.setValue(fields["zip"], forKey: "zip")
                person.setValue(address, forKey: "address")
            }
            var pets: [ManagedObject] = []
            for fields in values["pets"] as? [[String: Any]] ?? [] {
                let pet = context.insertNewObject(forEntityName: "Pet")
                for (key, value) in fields { pet.setValue(value, forKey: key) }
                pets.append(pet)
            }
            person.setValue(pets, forKey: "pets")
        }
        try context.save()
        return coordinator
    }
}
