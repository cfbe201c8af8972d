import Foundation
import ModelCodegen
import ObjectGraph
import ObjectGraphXML
import Testing

/// The source ClassGenerator writes: Xcode's shapes for every kind of property, which entities, the failure paths.
@Suite("Class generator")
struct ClassGeneratorTests {
    static func source(_ options: CodegenOptions = CodegenOptions()) throws -> String {
        try ClassGenerator(contentsOf: GeneratedClassTests.modelURL, options: options).source()
    }

    /// The declaration lines of the generated source (blank lines, comments and bodies left out).
    static func declarations(_ source: String) -> [String] {
        source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("public ") || $0.hasPrefix("extension ") }
    }

    @Test func everyAttributeTypeGetsItsSwiftTypeAndOptionality() throws {
        let lines = Self.declarations(try Self.source())
        for expected in [
            "public var count16: Int16 {", "public var count32: Int32 {", "public var count64: Int64 {",
            "public var maybeCount: Int32? {",  // optional, though scalar
            "public var boxedCount: Int64? {",  // not scalar: Xcode's NSNumber?
            "public var price: Decimal? {", "public var weight: Double {", "public var ratio: Float {",
            "public var name: String {", "public var title: String {", "public var note: String? {",
            "public var isActive: Bool {", "public var isChecked: Bool? {", "public var added: Date? {",
            "public var blob: Data? {", "public var identifier: UUID? {", "public var link: URL? {",
            "public var extra: Any? {", "public var `default`: String? {",
            "public var size: [String: any Sendable]? {",  // a composite: Xcode's [String: Any]?
        ] {
            #expect(lines.contains(expected), "missing \(expected)")
        }
    }

    @Test func relationshipsGetTypesAndCoreDatasAccessors() throws {
        let lines = Self.declarations(try Self.source())
        for expected in [
            "public var shelf: Shelf? {", "public var tags: Set<Tag> {", "public var parts: [Part] {",
            "public var notes: Set<Remark> {", "public var item: Item? {",
            "public func addToTags(_ value: Tag) {", "public func removeFromTags(_ value: Tag) {",
            "public func addToTags(_ values: Set<Tag>) {", "public func removeFromTags(_ values: Set<Tag>) {",
            "public func addToParts(_ values: [Part]) {", "public func insertIntoParts(_ value: Part, at index: Int) {",
            "public func insertIntoParts(_ values: [Part], at indexes: IndexSet) {",
            "public func removeFromParts(at index: Int) {", "public func removeFromParts(at indexes: IndexSet) {",
            "public func replaceParts(at index: Int, with value: Part) {",
        ] {
            #expect(lines.contains(expected), "missing \(expected)")
        }
        // Unordered relationships have no positions.
        #expect(!lines.contains { $0.contains("insertIntoTags") || $0.contains("replaceTags") })
    }

    @Test func classesInheritanceCategoriesAndRegistration() throws {
        let source = try Self.source()
        let lines = Self.declarations(source)
        #expect(lines.contains("public class Item: ManagedObject {}"))
        #expect(lines.contains("public class Book: Item {}"))
        #expect(lines.contains("public class Shelf: ManagedObject {}"))
        #expect(lines.contains("public static func fetchRequest() -> TypedFetchRequest<Book> {"))
        // A category's class is the application's; a Manual/None entity gets nothing.
        #expect(!source.contains("class Remark") && lines.contains("extension Remark {"))
        #expect(!source.contains("Plain"))
        // A subentity declares only its own properties: its parent's class has the others.
        let book = try #require(source.range(of: "extension Book {\n"))
        let bookBody = String(source[book.upperBound...]).components(separatedBy: "\n}\n")[0]
        #expect(bookBody.contains("var pages: Int32") && !bookBody.contains("var title"))
        for registration in [
            "register(Item.self, forClassName: \"ModelCodegenTests.Item\")",
            "register(Shelf.self, forClassName: \".Shelf\")", "register(Tag.self, forEntityName: \"Tag\")",
            "register(Remark.self, forClassName: \"Remark\")",
        ] {
            #expect(source.contains(registration), "missing \(registration)")
        }
        #expect(lines.contains("public static func registerCatalogClasses() {"))
    }

    @Test func optionsSelectEveryEntityAndTheAccessLevel() throws {
        let all = Self.declarations(try Self.source(CodegenOptions(entities: .all)))
        #expect(all.contains("public class Plain: ManagedObject {}"))
        #expect(all.contains("public var value: String? {"))
        let internalSource = try Self.source(CodegenOptions(accessLevel: .internal))
        #expect(!internalSource.contains("public ") && internalSource.contains("\nclass Item: ManagedObject {}"))
        let config = try JSONDecoder().decode(CodegenOptions.self, from: Data(#"{"entities": "all"}"#.utf8))
        #expect(config == CodegenOptions(entities: .all, accessLevel: .public))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodegenOptions.self, from: Data(#"{"entities": "some"}"#.utf8))
        }
    }

    @Test func theGeneratedSourceIsDeterministic() throws {
        #expect(try Self.source() == Self.source())
    }

    // MARK: Failure paths

    /// A scratch `.xcdatamodel` folder with the given contents.
    static func scratchModel(_ contents: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codegen-\(UUID().uuidString)")
            .appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    static func entity(_ attributes: String, name: String = "Thing", extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <model><entity name="\(name)" representedClassName="\(name)" codeGenerationType="class"\(extra)>\(attributes)
        </entity></model>
        """
    }

    static func failure(_ contents: String) throws -> CodegenError? {
        let model = try scratchModel(contents)
        defer { try? FileManager.default.removeItem(at: model.deletingLastPathComponent()) }
        do {
            _ = try ClassGenerator(contentsOf: model).source()
            return nil
        } catch {
            return error
        }
    }

    @Test func aMalformedModelFileIsAnErrorNamingTheFile() throws {
        let error = try #require(try Self.failure("<model><entity name=\"Thing\"><attribute name=\"x\""))
        #expect(error.file.hasSuffix("Broken.xcdatamodel"))
        #expect(error.description.hasPrefix(error.file + ": error: "))
        #expect(error.message.contains("contents"))
        let unknownType = try #require(try Self.failure(Self.entity(#"<attribute name="x" attributeType="Money"/>"#)))
        #expect(unknownType.message.contains("Money"))
    }

    @Test func namesThatCannotBeGeneratedAreErrorsNamingTheEntity() throws {
        let clash = try #require(try Self.failure(Self.entity(#"<attribute name="entity" attributeType="String"/>"#)))
        #expect(clash.message.contains("entity Thing") && clash.message.contains("ManagedObject member"))
        let badClass = try #require(
            try Self.failure(
                """
                <model><entity name="Thing" representedClassName="My-Thing" codeGenerationType="class"/></model>
                """))
        #expect(badClass.message.contains("My-Thing"))
        let badSetting = try #require(
            try Self.failure(#"<model><entity name="Thing" codeGenerationType="classes"/></model>"#))
        #expect(badSetting.message.contains("classes") && badSetting.message.contains("Thing"))
    }
}
