import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Transformable values kept as Core Data's default transformers keep them: `NSKeyedArchiver` archives.
@Suite("SQLite store: transformable values as keyed archives")
struct TransformableArchiveTests {
    static func model() -> ManagedObjectModel {
        let info = AttributeDescription(name: "info", type: .transformable)
        info.valueTransformerName = "NSSecureUnarchiveFromData"
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Note", properties: [AttributeDescription(name: "title", type: .string), info])
        ])
    }

    static func context(_ url: URL) throws -> ManagedObjectContext {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        return ManagedObjectContext(coordinator: coordinator)
    }

    /// Saves one note with `info`; returns its context.
    @discardableResult
    static func save(_ info: any Sendable, at url: URL) throws -> ManagedObjectContext {
        let context = try context(url)
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("n", forKey: "title")
        note.setValue(info, forKey: "info")
        try context.save()
        return context
    }

    /// The note's `info`, read through a new coordinator.
    static func info(_ url: URL) throws -> Any? {
        try context(url).fetch(FetchRequest(entityName: "Note")).first?.value(forKey: "info")
    }

    static func column(_ url: URL) throws -> Data {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        let statement = try connection.makeStatement("SELECT ZINFO FROM ZNOTE")
        #expect(try statement.step() == .row)
        return try #require(statement.data(at: 0))
    }

    static func setColumn(_ url: URL, to data: Data) throws {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        let update = try connection.prepare("UPDATE ZNOTE SET ZINFO = ?")
        try update.bind([.blob(data)])
        try update.run()
    }

    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let date = Date(timeIntervalSinceReferenceDate: 786_000_000.5)

    @Test func valuesAreWrittenAsArchivesFoundationsUnarchiverReads() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let info: [String: any Sendable] = [
            "tags": ["talk", "workshop"], "count": 3, "ratio": 0.5, "done": true, "when": Self.date,
            "id": Self.uuid, "link": URL(string: "https://fosdem.org/2026/")!, "bytes": Data([1, 2, 3]),
            "nested": [["a": 1] as [String: any Sendable], ["b": [2, 3]] as [String: any Sendable]] as [any Sendable],
        ]
        try Self.save(info, at: url)

        // What Core Data's NSSecureUnarchiveFromData does with the column, done by Foundation's unarchiver.
        let stored = try Self.column(url)
        let classes: [AnyClass] = [
            NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSUUID.self, NSURL.self,
            NSData.self,
        ]
        let unarchived = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: stored) as? NSDictionary)
        #expect(unarchived["tags"] as? [String] == ["talk", "workshop"])
        #expect((unarchived["count"] as? NSNumber)?.intValue == 3)
        #expect((unarchived["ratio"] as? NSNumber)?.doubleValue == 0.5)
        #expect((unarchived["done"] as? NSNumber)?.boolValue == true)
        #expect(
            (unarchived["when"] as? NSDate)?.timeIntervalSinceReferenceDate == Self.date.timeIntervalSinceReferenceDate)
        #expect((unarchived["id"] as? NSUUID)?.uuidString == Self.uuid.uuidString)
        #expect((unarchived["link"] as? NSURL)?.absoluteString == "https://fosdem.org/2026/")
        #expect((unarchived["bytes"] as? NSData).map { Data(referencing: $0) } == Data([1, 2, 3]))

        // And read back as the Swift values saved.
        let read = try #require(try Self.info(url) as? [String: any Sendable])
        #expect(read["tags"] as? [String] == ["talk", "workshop"])
        #expect(read["count"] as? Int == 3 && read["ratio"] as? Double == 0.5 && read["done"] as? Bool == true)
        #expect(read["when"] as? Date == Self.date && read["id"] as? UUID == Self.uuid)
        #expect(read["link"] as? URL == URL(string: "https://fosdem.org/2026/"))
        #expect(read["bytes"] as? Data == Data([1, 2, 3]))
        let nested = try #require(read["nested"] as? [any Sendable])
        #expect((nested.first as? [String: any Sendable])?["a"] as? Int == 1)
        #expect(
            ((nested.last as? [String: any Sendable])?["b"] as? [any Sendable])?.compactMap { $0 as? Int } == [2, 3])
    }

    @Test func readsArchivesFoundationsArchiverWrote() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.save("placeholder", at: url)
        let written: NSDictionary = [
            "names": NSMutableArray(array: ["a", "b"]), "set": NSSet(array: [NSNumber(value: 7)]),
            "title": NSMutableString(string: "Keynote"), "when": NSDate(timeIntervalSinceReferenceDate: 5),
            "id": NSUUID(uuidString: Self.uuid.uuidString)!,
            "relative": NSURL(string: "b/c", relativeTo: URL(string: "https://x.org/a/"))!,
        ]
        try Self.setColumn(
            url, to: try NSKeyedArchiver.archivedData(withRootObject: written, requiringSecureCoding: true))

        let read = try #require(try Self.info(url) as? [String: any Sendable])
        #expect(read["names"] as? [String] == ["a", "b"])
        #expect((read["set"] as? [any Sendable])?.compactMap { $0 as? Int } == [7])
        #expect(read["title"] as? String == "Keynote")
        #expect(read["when"] as? Date == Date(timeIntervalSinceReferenceDate: 5))
        #expect(read["id"] as? UUID == Self.uuid)
        #expect((read["relative"] as? URL)?.absoluteString == "https://x.org/a/b/c")
    }

    @Test func anArchiveOfAnotherClassIsWrittenBackUnchanged() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.save("placeholder", at: url)
        // An app's own class, which only the app can make.
        var writer = KeyedArchiveWriter()
        let root = writer.add(
            className: "Palette.Color", values: ["red": .real(0.5), "name": writer.string("ochre")])
        let archive = writer.encoded(root: root)
        try Self.setColumn(url, to: archive)

        let context = try Self.context(url)
        let note = try #require(try context.fetch(FetchRequest(entityName: "Note")).first)
        let kept = try #require(note.value(forKey: "info") as? UndecodedTransformable)
        #expect(kept.rootClassName == "Palette.Color" && kept.data == archive)
        note.setValue("renamed", forKey: "title")
        try context.save()
        #expect(try Self.column(url) == archive)
    }

    @Test func bytesACustomTransformerWroteAreKeptAsTheyWere() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.save("placeholder", at: url)
        // What an app's own transformer might write: JSON, which is neither an archive nor a property list.
        let json = Data(#"{"r":0.5,"g":0.25}"#.utf8)
        try Self.setColumn(url, to: json)

        let context = try Self.context(url)
        let note = try #require(try context.fetch(FetchRequest(entityName: "Note")).first)
        #expect(
            note.value(forKey: "info") as? UndecodedTransformable
                == UndecodedTransformable(data: json, rootClassName: nil))
        note.setValue("renamed", forKey: "title")
        try context.save()
        #expect(try Self.column(url) == json)
    }

    @Test func plainPropertyListsWrittenBeforeStillRead() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.save("placeholder", at: url)
        try Self.setColumn(
            url, to: try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0))
        #expect((try Self.info(url) as? [String: any Sendable])?["a"] as? Int == 1)
    }

    @Test func anArchiveThatHoldsItselfReadsAsAnUndecodedTransformable() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.save("placeholder", at: url)
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        writer.set(root, className: "NSArray", values: ["NS.objects": .array([.uid(root)])])
        let archive = writer.encoded(root: root)
        try Self.setColumn(url, to: archive)
        #expect((try Self.info(url) as? UndecodedTransformable)?.rootClassName == "NSArray")
    }

    @Test func aValueThatCannotBeArchivedFailsTheSave() throws {
        struct Opaque: Sendable {}
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        #expect {
            try Self.save(["x": Opaque()] as [String: any Sendable], at: url)
        } throws: { error in
            (error as? StoreError)?.code == .unsupportedRequest
        }
        #expect(try rawRows(url, "SELECT COUNT(*) FROM ZNOTE") == ["0"])
    }
}
