import Foundation
import ObjectGraph

/// A coordinator with one store of a kind holding `Item`s (`name` preserved in tombstones, `count`).
struct HistoryFixture {
    let folder = TemporaryFolder()
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore

    static func model() -> ManagedObjectModel {
        let name = AttributeDescription(name: "name", type: .string)
        name.preservesValueInHistoryOnDeletion = true
        let item = EntityDescription(
            name: "Item",
            properties: [
                name, AttributeDescription(name: "count", type: .integer64),
                AttributeDescription(name: "scratch", type: .string).transient(),
            ])
        return ManagedObjectModel(entities: [item])
    }

    init(_ kind: StoreKind, tracking: Bool = true, url: URL? = nil, readOnly: Bool = false) throws {
        _ = StoreKind.all
        coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        var options: PersistentStoreOptions = [.persistentHistoryTracking: tracking]
        if readOnly { options[.readOnly] = true }
        store = try coordinator.addPersistentStore(
            type: kind.type, at: url ?? kind.url("history", in: folder), options: options)
    }

    func context(author: String? = nil, name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(coordinator: coordinator)
        context.transactionAuthor = author
        context.name = name
        return context
    }
}

extension ManagedObjectContext {
    @discardableResult
    func makeItem(_ name: String, count: Int = 0) -> ManagedObject {
        let item = insertNewObject(forEntityName: "Item")
        item.setValue(name, forKey: "name")
        item.setValue(count, forKey: "count")
        return item
    }
}
