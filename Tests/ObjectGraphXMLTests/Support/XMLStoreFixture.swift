import Foundation
import ObjectGraph
import ObjectGraphXML
@testable import ObjectGraphTestSupport

/// Opens stores of a kind in one folder with a fresh coordinator each time.
struct XMLStoreFixture {
    let folder = TemporaryFolder()
    let model: () -> ManagedObjectModel

    init(model: @escaping () -> ManagedObjectModel = { AllTypesModel.make() }) {
        XMLStore.register()
        self.model = model
    }

    var url: URL { folder.file("store.xml") }

    /// A new coordinator with the store at ``url`` added.
    func open(options: PersistentStoreOptions = [:]) throws -> (ManagedObjectContext, PersistentStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(type: .xml, at: url, options: options)
        return (ManagedObjectContext(coordinator: coordinator), store)
    }
}
