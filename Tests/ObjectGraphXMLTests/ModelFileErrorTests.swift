import Foundation
import ObjectGraph
import ObjectGraphXML
import SafeXML
import Testing
@testable import ObjectGraphTestSupport

@Suite("Model files: errors")
struct ModelFileErrorTests {
    /// A model file with `body` inside `<model>`.
    func model(_ body: String) -> String {
        "<?xml version=\"1.0\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\">\n\(body)\n</model>"
    }

    /// Reads `text` and returns the model error, checking its code and that it names `line`.
    func failure(_ text: String, line: Int, mentions words: [String] = []) throws -> ModelError {
        let error = try #require(throws: ModelError.self) { try ModelFileFixtures.read(text, name: "Broken/contents") }
        #expect(error.code == .invalidModelFile)
        #expect(error.message.contains("Broken/contents:\(line):"), "\(error.message)")
        for word in words { #expect(error.message.contains(word), "\(error.message)") }
        return error
    }

    /// Found by the binary store fuzzer, the same read here: an empty model file left the 4 KiB buffer that
    /// Foundation's `Data(contentsOf:)` reads an empty file into on Linux. 10,000 reads leaked 40 MB.
    @Test(.enabled(if: ResidentMemory.bytes > 0)) func emptyModelFilesAreRefusedAndLeaveNoMemoryBehind() throws {
        let folder = TemporaryFolder()
        let url = folder.file("contents")
        try Data().write(to: url)
        let error = try #require(throws: ModelError.self) { try ManagedObjectModel(contentsOf: url) }
        #expect(error.code == .invalidModelFile)
        let growth = ResidentMemory.growth(below: 20_000_000) {
            for _ in 0..<10_000 { _ = try? ManagedObjectModel(contentsOf: url) }
        }
        #expect(growth < 20_000_000, "resident memory grew by \(growth) bytes")
    }

    @Test func danglingDestinationNamesTheElementAndLine() throws {
        _ = try failure(
            model(
                """
                <entity name="A">
                    <relationship name="toB" optional="YES" maxCount="1" destinationEntity="B"/>
                </entity>
                """), line: 4, mentions: ["relationship", "toB", "B"])
    }

    @Test func unknownParentEntity() throws {
        _ = try failure(model("<entity name=\"A\" parentEntity=\"Nowhere\"/>"), line: 3, mentions: ["Nowhere"])
    }

    @Test func inheritanceCycle() throws {
        _ = try failure(
            model(
                """
                <entity name="A" parentEntity="B"/>
                <entity name="B" parentEntity="A"/>
                """), line: 3, mentions: ["inherits from itself"])
    }

    @Test func unknownInverse() throws {
        _ = try failure(
            model(
                """
                <entity name="A">
                    <relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="nope"/>
                </entity>
                <entity name="B"/>
                """), line: 4, mentions: ["nope"])
    }

    @Test func malformedPredicateString() throws {
        let error = try failure(
            model(
                """
                <entity name="A"/>
                <fetchRequest name="broken" entity="A" predicateString="name == == (("/>
                """), line: 4, mentions: ["broken", "predicateString"])
        #expect(error.cause != nil)
    }

    @Test func unknownAttributeTypeAndDeleteRule() throws {
        _ = try failure(
            model("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Integer 128\"/>\n</entity>"),
            line: 4, mentions: ["Integer 128"])
        _ = try failure(
            model(
                """
                <entity name="A">
                <relationship name="a" maxCount="1" deletionRule="Explode" destinationEntity="A"/>
                </entity>
                """), line: 4, mentions: ["Explode"])
    }

    @Test func malformedNumbers() throws {
        _ = try failure(
            model(
                "<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Integer 16\" "
                    + "defaultValueString=\"70000\"/>\n</entity>"), line: 4, mentions: ["defaultValueString"])
        _ = try failure(
            model(
                "<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Double\" "
                    + "minValueString=\"low\"/>\n</entity>"), line: 4, mentions: ["minValueString"])
    }

    @Test func unknownConfigurationMemberAndTemplateEntity() throws {
        _ = try failure(
            model(
                "<entity name=\"A\"/>\n<configuration name=\"C\">\n<memberEntity name=\"Z\"/>\n"
                    + "</configuration>"), line: 5, mentions: ["memberEntity", "Z"])
        _ = try failure(model("<fetchRequest name=\"t\" entity=\"Q\"/>"), line: 3, mentions: ["fetchRequest", "Q"])
    }

    @Test func duplicateEntitiesAndProperties() throws {
        _ = try failure(model("<entity name=\"A\"/>\n<entity name=\"A\"/>"), line: 4, mentions: ["twice"])
        _ = try failure(
            model(
                "<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"String\"/>\n"
                    + "<attribute name=\"x\" attributeType=\"String\"/>\n</entity>"), line: 3,
            mentions: ["twice"])
    }

    @Test func notAModelFile() throws {
        _ = try failure("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>", line: 2, mentions: ["plist"])
        let error = try failure("<model><entity name=\"A\">", line: 1)
        #expect((error.cause as? XMLError)?.code == .notWellFormed)
        #expect(throws: ModelError(code: .invalidModelFile, message: "")) {
            try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld"))
        }
    }

    @Test func entityDeclarationsAreRefused() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE model [ <!ENTITY a "aaaa"> <!ENTITY b "&a;&a;&a;&a;"> ]>
            <model><entity name="&b;"/></model>
            """
        let error = try #require(throws: ModelError.self) { try ModelFileFixtures.read(bomb) }
        #expect(error.code == .invalidModelFile)
        #expect((error.cause as? XMLError)?.code == .entityDeclarationForbidden)
    }

    @Test func unknownElementsAndAttributesAreIgnored() throws {
        let model = try ModelFileFixtures.read(
            model(
                """
                <entity name="A" fancy="yes">
                    <attribute name="x" optional="YES" attributeType="String" spotlightIndexingEnabled="YES"/>
                    <somethingNew><deep/></somethingNew>
                </entity>
                <futureTopLevel/>
                """))
        #expect(model.entities.map(\.name) == ["A"])
        #expect(model.entities[0].attributesByName["x"]?.isOptional == true)
    }
}
