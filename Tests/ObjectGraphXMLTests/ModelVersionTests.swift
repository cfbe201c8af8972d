import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing

@testable import ObjectGraphTestSupport

/// Every version of a versioned model bundle, and finding the version that wrote a store.
struct ModelVersionTests {
    static func contents(_ attributes: [String], identifier: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" \
        userDefinedModelVersionIdentifier="\(identifier)">
            <entity name="Creature" representedClassName="Creature">
        \(attributes.map { "        <attribute name=\"\($0)\" optional=\"YES\" attributeType=\"Integer 64\"/>" }
            .joined(separator: "\n"))
            </entity>
        </model>
        """
    }

    /// A bundle with `Model`, `Model 2` and `Model 10` (written out of order), the current version named or not.
    static func makeBundle(in folder: TemporaryFolder, current: String?) throws -> URL {
        let bundle = folder.file("Model.xcdatamodeld")
        let versions = [("Model 10", ["a", "b", "c"], "v10"), ("Model", ["a"], ""), ("Model 2", ["a", "b"], "two")]
        for (name, attributes, identifier) in versions {
            let version = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(contents(attributes, identifier: identifier).utf8)
                .write(to: version.appendingPathComponent("contents"))
        }
        if let current {
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current)</string></dict></plist>
                """
            try Data(plist.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        }
        return bundle
    }

    @Test func versionsAreReadOldestFirstWithTheirIdentifiers() throws {
        let folder = TemporaryFolder()
        let bundle = try Self.makeBundle(in: folder, current: "Model 2.xcdatamodel")
        let versions = try ManagedObjectModel.versions(in: bundle)
        #expect(versions.map(\.name) == ["Model", "Model 2", "Model 10"])
        #expect(versions.map(\.identifier) == ["Model", "two", "v10"])
        #expect(versions.map(\.isCurrent) == [false, true, false])
        #expect(versions.map { $0.model.entitiesByName["Creature"]?.attributesByName.count } == [1, 2, 3])
        #expect(versions[1].model.versionIdentifiers == ["two"])
        // contentsOf: keeps choosing the current version.
        #expect(try ManagedObjectModel(contentsOf: bundle).entitiesByName["Creature"]?.attributesByName.count == 2)
    }

    @Test func withoutACurrentVersionTheNewestIsCurrent() throws {
        let folder = TemporaryFolder()
        let versions = try ManagedObjectModel.versions(in: Self.makeBundle(in: folder, current: nil))
        #expect(versions.map(\.isCurrent) == [false, false, true])
    }

    @Test func aMissingBundleThrowsInvalidModelFile() throws {
        let folder = TemporaryFolder()
        #expect(throws: ModelError(code: .invalidModelFile, message: "")) {
            try ManagedObjectModel.versions(in: folder.file("Nothing.xcdatamodeld"))
        }
        let empty = folder.file("Empty.xcdatamodeld")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: ModelError(code: .invalidModelFile, message: "")) {
            try ManagedObjectModel.versions(in: empty)
        }
    }

    @Test func theVersionThatWroteAStoreIsFoundFromItsMetadata() throws {
        let folder = TemporaryFolder()
        let bundle = try Self.makeBundle(in: folder, current: nil)
        let versions = try ManagedObjectModel.versions(in: bundle)
        XMLStore.register()
        let url = folder.file("store.xml")
        let writer = PersistentStoreCoordinator(managedObjectModel: versions[1].model)
        let store = try writer.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext(coordinator: writer)
        context.insertNewObject(forEntityName: "Creature").setValue(7, forKey: "b")
        try context.save()
        let metadata = writer.metadata(for: store)

        for (index, version) in versions.enumerated() {
            #expect(
                version.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
                    == (index == 1))
        }
        let found = ManagedObjectModel.mergedModel(from: versions.map(\.model), forStoreMetadata: metadata)
        #expect(found === versions[1].model)
        #expect(
            try ManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata)?
                .entitiesByName["Creature"]?.attributesByName.keys.sorted() == ["a", "b"])
        #expect(
            ManagedObjectModel.mergedModel(
                from: [versions[0].model, versions[2].model],
                forStoreMetadata: metadata) == nil)
        #expect(ManagedObjectModel.mergedModel(from: versions.map(\.model), forStoreMetadata: StoreMetadata()) == nil)
    }

    @Test(SharedFiles.required) func theRealEvolutionBundleHasTwoVersions() throws {
        let versions = try ManagedObjectModel.versions(in: SharedFiles.url(SharedFiles.evolutionBundle))
        #expect(versions.map(\.name) == ["Advanced.EvolutionDemo", "Advanced.EvolutionDemo.V2"])
        #expect(versions.map(\.isCurrent) == [false, true])
        #expect(versions.allSatisfy { $0.model.entitiesByName["Creature"] != nil })
    }
}
