import Foundation
import ObjectGraph
import ObjectGraphXML
import SafeXML
import Testing
@testable import ObjectGraphTestSupport

/// Damaged, hostile and foreign files are refused with an error code, leave no store attached and never crash.
@Suite("XML store: damaged and hostile files")
struct XMLStoreDamagedFileTests {
    /// A small valid store file.
    func sampleFile(_ fixture: XMLStoreFixture) throws -> Data {
        let (context, _) = try fixture.open()
        for index in 0..<5 {
            let tag = context.insertNewObject(forEntityName: "Tag")
            tag.setValue("tag \(index)", forKey: "label")
            let sample = context.insertNewObject(forEntityName: "Sample")
            sample.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "dateValue")
            sample.setValue(Set([tag]), forKey: "tags")
        }
        try context.save()
        return try Data(contentsOf: fixture.url)
    }

    /// Writes `bytes` as the store and opens it; returns the error.
    func refusal(_ bytes: Data, _ fixture: XMLStoreFixture) throws -> StoreError {
        try bytes.write(to: fixture.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: fixture.model())
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: .xml, at: fixture.url)
        }
        #expect(coordinator.persistentStores.isEmpty)
        return error
    }

    @Test(arguments: [0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
    func truncatedFilesAreRefused(fraction: Double) throws {
        let fixture = XMLStoreFixture()
        let data = try sampleFile(fixture)
        let error = try refusal(data.prefix(Int(Double(data.count) * fraction)), fixture)
        #expect(error.code == .corruptFile)
    }

    @Test(arguments: 1...8)
    func randomBytesAfterTheRootTagAreRefused(seed: Int) throws {
        let fixture = XMLStoreFixture()
        let data = try sampleFile(fixture)
        let start = try #require(data.range(of: Data("<database>".utf8))).upperBound
        var generator = SystemRandomNumberGenerator()
        var bytes = data.prefix(upTo: start)
        bytes.append(contentsOf: (0..<(seed * 37)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let error = try refusal(bytes, fixture)
        #expect(error.code == .corruptFile)
    }

    @Test func damagedValuesAndReferencesAreRefused() throws {
        let fixture = XMLStoreFixture()
        let text = String(decoding: try sampleFile(fixture), as: UTF8.self)
        let damages: [(String, String)] = [
            ("type=\"date\">", "type=\"date\">not a number"),
            ("id=\"z1\"", "id=\"q1\""),
            ("idrefs=\"z", "idrefs=\"z999"),
            ("<nextObjectID>", "<nextObjectID>x"),
            ("<UUID>", "<UUID></UUID><ignored>"),
        ]
        for (original, replacement) in damages {
            let damaged = text.replacingOccurrences(of: original, with: replacement)
            let error = try refusal(Data(damaged.utf8), fixture)
            #expect(error.code == .corruptFile, "\(replacement)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func malformedXMLIsRefusedWithTheParserErrorAsCause() throws {
        let fixture = XMLStoreFixture()
        let error = try refusal(Data("<database><databaseInfo></database>".utf8), fixture)
        #expect(error.code == .corruptFile)
        #expect((error.cause as? XMLError)?.code == .notWellFormed)
    }

    @Test func entityBombsAreRefused() throws {
        let fixture = XMLStoreFixture()
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE database [
              <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
              <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
              <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
            ]>
            <database><databaseInfo><UUID>&c;</UUID></databaseInfo></database>
            """
        let error = try refusal(Data(bomb.utf8), fixture)
        #expect(error.code == .corruptFile)
        #expect((error.cause as? XMLError)?.code == .entityDeclarationForbidden)
    }

    @Test func externalEntitiesAreRefused() throws {
        let fixture = XMLStoreFixture()
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE database [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <database><databaseInfo><UUID>&secret;</UUID></databaseInfo></database>
            """
        let error = try refusal(Data(external.utf8), fixture)
        #expect(error.code == .corruptFile)
        let code = (error.cause as? XMLError)?.code
        #expect(code == .entityDeclarationForbidden || code == .externalEntity)
        #expect(!error.message.contains("root:"))
    }

    @Test func foreignRootElementsAreForeignFiles() throws {
        let fixture = XMLStoreFixture()
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>a</key><string>b</string></dict></plist>
            """
        #expect(try refusal(Data(plist.utf8), fixture).code == .foreignFile)
        let model = try Data(
            contentsOf: SharedFiles.isAvailable
                ? SharedFiles.url(SharedFiles.coreStoreModel)
                : fixture.url
        ).prefix(SharedFiles.isAvailable ? Int.max : 0)
        if !model.isEmpty { #expect(try refusal(model, fixture).code == .foreignFile) }
    }

    @Test func binaryStoresAndEmptyFilesAreNotXMLStores() throws {
        let fixture = XMLStoreFixture()
        #expect(try refusal(Data(), fixture).code == .corruptFile)
        #expect(try refusal(Data([0x4F, 0x47, 0x00, 0x01, 0xFF]), fixture).code == .corruptFile)
    }

    @Test func aStoreWithoutDatabaseInfoIsRefused() throws {
        let fixture = XMLStoreFixture()
        let error = try refusal(Data("<database><object type=\"TAG\" id=\"z1\"/></database>".utf8), fixture)
        #expect(error.code == .corruptFile)
    }
}
