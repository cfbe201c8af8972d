import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Entity version hashes: Core Data's algorithm, with the hashes stores written before still accepted.
@Suite("Version hashes")
struct VersionHashTests {
    static func model(extra: Bool = false) -> ManagedObjectModel {
        var properties: [PropertyDescription] = [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            RelationshipDescription(name: "room", destination: "Room", inverse: "talks"),
        ]
        if extra { properties.append(AttributeDescription(name: "level", type: .integer16)) }
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Talk", properties: properties),
            EntityDescription(
                name: "Room",
                properties: [
                    AttributeDescription(name: "name", type: .string),
                    RelationshipDescription(name: "talks", destination: "Talk", inverse: "room", toMany: true),
                ]),
        ])
    }

    /// Replaces the version hashes in a store file's metadata.
    static func setHashes(_ hashes: [String: Data], at url: URL) throws {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        let row = try connection.makeStatement("SELECT Z_PLIST FROM Z_METADATA")
        #expect(try row.step() == .row)
        let stored = try #require(row.data(at: 0))
        var metadata = try #require(
            try PropertyListSerialization.propertyList(from: stored, format: nil) as? [String: Any])
        metadata[StoreMetadata.modelVersionHashesKey] = hashes
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        let update = try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ?")
        try update.bind([.blob(plist)])
        try update.run()
    }

    @Test func aStoreWrittenWithTheEarlierHashesStillOpensAndAChangeIsStillSeen() throws {
        SQLiteStore.register()
        let folder = TemporaryFolder()
        let url = folder.file("talks.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            #expect(store.metadata.modelVersionHashes == Self.model().entityVersionHashesByName)
            #expect(
                store.metadata[StoreMetadata.modelVersionHashesDigestKey] as? String
                    == StoreMetadata.digest(of: Self.model().entityVersionHashesByName))
            try coordinator.remove(store)
        }
        let legacy = Dictionary(uniqueKeysWithValues: Self.model().entities.map { ($0.name, $0.legacyVersionHash) })
        #expect(legacy != Self.model().entityVersionHashesByName)
        try Self.setHashes(legacy, at: url)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        #expect {
            try PersistentStoreCoordinator(managedObjectModel: Self.model(extra: true))
                .addPersistentStore(type: .sqlite, at: url)
        } throws: { error in
            (error as? StoreError)?.code == .incompatibleModel
                && (error as? StoreError)?.message.contains("Talk") == true
        }
    }

    @Test func theHashCoversWhatCoreDatasCovers() {
        func hash(_ change: (EntityDescription) -> Void) -> Data {
            let model = Self.model()
            let talk = model.entitiesByName["Talk"]!
            change(talk)
            return talk.versionHash
        }
        let base = hash { _ in }
        // A uniqueness constraint, a version hash modifier (of the entity or of a property), a mandatory
        // attribute made optional, external storage: stored differently, so another hash.
        #expect(hash { $0.uniquenessConstraints = [["title"]] } != base)
        #expect(hash { $0.versionHashModifier = "2" } != base)
        #expect(hash { $0.attributesByName["title"]?.versionHashModifier = "2" } != base)
        #expect(hash { $0.attributesByName["title"]?.isOptional = true } != base)
        #expect(hash { $0.attributesByName["title"]?.preservesValueInHistoryOnDeletion = true } != base)
        // A default value, indexing, user info: not part of it, as in Core Data.
        #expect(hash { $0.attributesByName["title"]?.defaultValue = "untitled" } == base)
        #expect(hash { $0.attributesByName["title"]?.isIndexed = true } == base)
        #expect(hash { $0.userInfo = ["a": "b"] } == base)
    }
}
