import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing

@testable import ObjectGraphTestSupport

/// Transformable values in the XML store: base64 of a keyed archive, as Core Data's XML store keeps what its default
/// transformers make.
@Suite("XML store: transformable values")
struct XMLTransformableTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Note", properties: [AttributeDescription(name: "info", type: .transformable)])
        ])
    }

    /// Saves notes with these values to a new XML store; returns what a new coordinator reads back.
    static func roundTrip(_ values: [any Sendable], at url: URL) throws -> [Any?] {
        XMLStore.register()
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
            try coordinator.addPersistentStore(type: .xml, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for value in values { context.insertNewObject(forEntityName: "Note").setValue(value, forKey: "info") }
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .xml, at: url)
        return try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Note"))
            .map { $0.value(forKey: "info") }
    }

    @Test func collectionsAreKeptAsArchivesFoundationReads() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.xml")
        let read = try Self.roundTrip([["tags": ["a", "b"], "count": 2] as [String: any Sendable]], at: url)
        let info = try #require(read.first as? [String: any Sendable])
        #expect(info["tags"] as? [String] == ["a", "b"] && info["count"] as? Int == 2)

        let text = try String(contentsOf: url, encoding: .utf8)
        let encoded = try #require(text.firstMatch(of: /type="transformable">([^<]+)</)?.1)
        let archive = try #require(Data(base64Encoded: String(encoded)))
        let unarchived = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self], from: archive)
        #expect((unarchived as? NSDictionary)?["tags"] as? [String] == ["a", "b"])
    }

    @Test func dataStaysDataAndUndecodedTransformablesStayAsTheyWere() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.xml")
        var writer = KeyedArchiveWriter()
        let archive = writer.encoded(root: writer.add(className: "Palette.Color", values: ["red": .real(1)]))
        let read = try Self.roundTrip(
            [Data("archived".utf8), UndecodedTransformable(data: archive, rootClassName: "Palette.Color")], at: url)
        #expect(read.contains { $0 as? Data == Data("archived".utf8) })
        #expect(read.contains { ($0 as? UndecodedTransformable)?.data == archive })
    }
}
