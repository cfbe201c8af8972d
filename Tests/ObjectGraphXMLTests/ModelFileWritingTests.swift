import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing
@testable import ObjectGraphTestSupport

@Suite("Model files: writing and round trips")
struct ModelFileWritingTests {
    /// Reads the written data back and checks it describes the same model, and that writing is deterministic.
    func checkRoundTrip(_ model: ManagedObjectModel) throws {
        let written = try model.xmlData()
        #expect(try model.xmlData() == written)
        let reread = try ManagedObjectModel(xmlData: written, name: "written/contents")
        let expected = ModelDescription.lines(model)
        let actual = ModelDescription.lines(reread)
        #expect(actual == expected)
        for (left, right) in zip(expected, actual) where left != right {
            Issue.record("differs:\n  \(left)\n  \(right)")
        }
        #expect(try reread.xmlData() == written)
    }

    @Test func theFullElementSetRoundTrips() throws {
        try checkRoundTrip(try ModelFileFixtures.read(ModelFileFixtures.fullElementSet))
    }

    @Test func aModelBuiltInCodeRoundTrips() throws {
        let model = TestModel.make()
        model.setFetchRequestTemplate(
            FetchRequestTemplate(
                entityName: "Room", fetchLimit: 3, fetchOffset: 2,
                includesPendingChanges: false), forName: "rooms")
        try model.resolveRelationships()
        try checkRoundTrip(model)
    }

    @Test func versionHashModifiersOfPropertiesRoundTrip() throws {
        let title = AttributeDescription(name: "title", type: .string)
        title.versionHashModifier = "v2"
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Talk", properties: [title])])
        let written = try model.xmlData()
        #expect(String(decoding: written, as: UTF8.self).contains(#"versionHashModifier="v2""#))
        let reread = try ManagedObjectModel(xmlData: written, name: "written/contents")
        #expect(reread.entitiesByName["Talk"]?.attributesByName["title"]?.versionHashModifier == "v2")
        #expect(reread.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    @Test(SharedFiles.required) func coreStoresModelRoundTrips() throws {
        try checkRoundTrip(try ManagedObjectModel(contentsOf: SharedFiles.url(SharedFiles.coreStoreModel)))
    }

    /// Needs the real predicate parser: the templates' predicates are compared through `predicateFormat`.
    @Test(SharedFiles.required) func mogeneratorsModelRoundTrips() throws {
        try checkRoundTrip(try ManagedObjectModel(contentsOf: SharedFiles.url(SharedFiles.mogeneratorModel)))
    }

    @Test(SharedFiles.required) func evolutionDemoRoundTrips() throws {
        try checkRoundTrip(try ManagedObjectModel(contentsOf: SharedFiles.url(SharedFiles.evolutionBundle)))
    }

    @Test func writesXcodesFormat() throws {
        let model = try ModelFileFixtures.read(ModelFileFixtures.fullElementSet)
        let text = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(
            text.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model "
                    + "type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\""))
        #expect(text.contains("userDefinedModelVersionIdentifier=\"v7\""))
        #expect(text.contains("<entity name=\"Book\" representedClassName=\"Book\" parentEntity=\"Item\">"))
        #expect(
            text.contains(
                "<attribute name=\"when\" optional=\"YES\" attributeType=\"Date\" "
                    + "minDateTimeInterval=\"-978307200\" maxDateTimeInterval=\"1000000000.5\" "
                    + "defaultDateTimeInterval=\"631152000\"/>"
            ))
        #expect(text.contains("attributeType=\"Boolean\" defaultValueString=\"YES\""))
        #expect(
            text.contains(
                "<relationship name=\"items\" toMany=\"YES\" minCount=\"1\" maxCount=\"10\" "
                    + "deletionRule=\"Cascade\" ordered=\"YES\" destinationEntity=\"Item\" inverseName=\"owner\" "
                    + "inverseEntity=\"Item\"/>"))
        #expect(text.contains("<memberEntity name=\"Owner\"/>"))
        #expect(text.contains("<entry key=\"a key with spaces\" value=\"tab&#9;newline&#10;\"/>"))
    }
}
