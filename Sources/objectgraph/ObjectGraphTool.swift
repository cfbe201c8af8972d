import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphSQLite
import ObjectGraphXML

/// `objectgraph`: look into Core Data SQLite stores without their model.
@main
struct ObjectGraphTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph",
        abstract: "Read Core Data SQLite stores without their model.",
        subcommands: [Model.self, Query.self, Convert.self])

    /// Opens a store read-only with the model read from it.
    static func open(_ path: String) throws -> (ManagedObjectModel, PersistentStoreCoordinator, PersistentStore) {
        SQLiteStore.register()
        XMLStore.register()
        let url = URL(fileURLWithPath: path)
        let model = try ManagedObjectModel(contentsOfStoreAt: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: url, options: [.readOnly: true, .ignoresModelVersion: true])
        return (model, coordinator, store)
    }

    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the model a store holds.")
        @Argument(help: "A Core Data SQLite store.") var file: String
        @Flag(help: "Print it as an Xcode model's contents file.") var xcdatamodel = false

        func run() throws {
            let model = try ManagedObjectModel(contentsOfStoreAt: URL(fileURLWithPath: file))
            if xcdatamodel {
                print(String(decoding: try model.xmlData(), as: UTF8.self))
                return
            }
            for entity in model.entities {
                print(entity.name + (entity.superentity.map { " : \($0.name)" } ?? ""))
                for property in entity.properties {
                    switch property {
                    case let composite as CompositeAttributeDescription:
                        let elements = composite.leafElements.map {
                            $0.path.joined(separator: ".") + ": " + $0.attribute.attributeType.rawValue
                        }
                        print("  \(composite.name): Composite (" + elements.joined(separator: ", ") + ")")
                    case let attribute as AttributeDescription:
                        print("  \(attribute.name): \(attribute.attributeType.rawValue)")
                    case let relationship as RelationshipDescription:
                        print(
                            "  \(relationship.name) -> \(relationship.destinationEntityName)"
                                + (relationship.isToMany ? " (to-many)" : "")
                                + (relationship.inverseName.map { " inverse \($0)" } ?? ""))
                    default:
                        continue
                    }
                }
            }
        }
    }

    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the objects of an entity.")
        @Argument(help: "A Core Data SQLite store.") var file: String
        @Argument(help: "The entity.") var entity: String
        @Option(name: .customLong("where"), help: "A predicate, such as \"age > 30\".") var predicate: String?
        @Option(help: "The attribute to sort by.") var sort: String?
        @Option(help: "json or csv.") var format: String = "json"

        func run() throws {
            let (model, coordinator, _) = try ObjectGraphTool.open(file)
            guard let description = model.entitiesByName[entity] else {
                throw ValidationError("The store has no entity '\(entity)'.")
            }
            let request = FetchRequest(entityName: entity)
            if let predicate { request.predicate = try ObjectPredicate(format: predicate) }
            if let sort { request.sortKeys = [SortKey(sort)] }
            let context = ManagedObjectContext(coordinator: coordinator)
            // A composite attribute is a column per element, named by its key path (magnitude.richter).
            let keys = description.attributesByName.keys.sorted().flatMap { name -> [String] in
                guard let composite = description.attributesByName[name] as? CompositeAttributeDescription else {
                    return [name]
                }
                return composite.leafElements.map { ([name] + $0.path).joined(separator: ".") }
            }
            let rows = try context.fetch(request).map { object in
                keys.map { key in object.value(forKeyPath: key).map { String(describing: $0) } }
            }
            if format == "csv" {
                print(keys.joined(separator: ","))
                for row in rows {
                    print(
                        row.map { value in
                            guard let value else { return "" }
                            return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                        }.joined(separator: ","))
                }
            } else {
                let objects = rows.map { row in
                    Dictionary(
                        uniqueKeysWithValues: zip(keys, row).compactMap { key, value in value.map { (key, $0) } })
                }
                let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .prettyPrinted])
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Copy a store into another store type.")
        @Argument(help: "A Core Data SQLite store.") var file: String
        @Option(help: "xml, binary or sqlite.") var to: String
        @Argument(help: "The new file.") var output: String

        func run() throws {
            let types: [String: PersistentStoreType] = ["xml": .xml, "binary": .binary, "sqlite": .sqlite]
            guard let type = types[to] else { throw ValidationError("--to takes xml, binary or sqlite.") }
            let (_, coordinator, store) = try ObjectGraphTool.open(file)
            try coordinator.migratePersistentStore(store, to: URL(fileURLWithPath: output), type: type)
        }
    }
}
