import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing

@testable import ObjectGraphTestSupport

/// Composite attributes in model files: the model's `<composite name="…">` definitions, and entities' attributes
/// of `attributeType="Composite"` naming one with `composite="…"`.
@Suite("Model files: composite attributes")
struct CompositeAttributeFileTests {
    /// Two entities using `Magnitude`, and `Location` holding the composite `Coordinate`.
    static func contents(quakeExtra: String = "", modelExtra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" \
        systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Quake" representedClassName="Quake" syncable="YES" codeGenerationType="class">
                <attribute name="code" optional="YES" attributeType="String"/>
                <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                <attribute name="location" attributeType="Composite" composite="Location"/>
                \(quakeExtra)
            </entity>
            <entity name="Aftershock" representedClassName="Aftershock" syncable="YES" codeGenerationType="class">
                <attribute name="size" optional="YES" attributeType="Composite" composite="Magnitude"/>
            </entity>
            <composite name="Magnitude">
                <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" \
        usesScalarValueType="YES"/>
                <attribute name="scale" attributeType="String"/>
            </composite>
            <composite name="Location">
                <attribute name="coordinate" optional="YES" attributeType="Composite" composite="Coordinate"/>
                <attribute name="depth" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            </composite>
            <composite name="Coordinate">
                <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            </composite>
            \(modelExtra)
        </model>
        """
    }

    @Test func entitiesGetTheElementsOfTheDefinitionTheyName() throws {
        let model = try ModelFileFixtures.read(Self.contents())
        let quake = try #require(model.entitiesByName["Quake"])
        let magnitude = try #require(quake.attributesByName["magnitude"] as? CompositeAttributeDescription)
        #expect(magnitude.attributeType == .composite && magnitude.isOptional)
        #expect(magnitude.definitionName == "Magnitude")
        #expect(magnitude.elements.map(\.name) == ["richter", "scale"])
        #expect(magnitude.elements.map(\.attributeType) == [.double, .string])
        #expect(magnitude.element(named: "scale")?.isOptional == false)
        #expect(magnitude.element(named: "richter")?.defaultValue as? Double == 0)
        let location = try #require(quake.attributesByName["location"] as? CompositeAttributeDescription)
        #expect(!location.isOptional)
        #expect(
            location.leafElements.map(\.path) == [["coordinate", "latitude"], ["coordinate", "longitude"], ["depth"]])
        // Each use is an attribute of its own.
        let size = try #require(
            model.entitiesByName["Aftershock"]?.attributesByName["size"] as? CompositeAttributeDescription)
        #expect(size.elements.map(\.name) == ["richter", "scale"])
        #expect(size.elements[0] !== magnitude.elements[0])

        // The model works: a value is stored and queried by element.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let context = ManagedObjectContext(coordinator: coordinator)
        let object = context.insertNewObject(forEntityName: "Quake")
        object.setValue(["scale": "ML", "richter": 4.6], forKey: "magnitude")
        object.setValue(["coordinate": ["latitude": 1.5], "depth": 3] as [String: Any], forKey: "location")
        try context.save()
        let request = FetchRequest(entityName: "Quake")
        request.predicate = try ObjectPredicate(format: "magnitude.richter > 4 AND location.coordinate.latitude == 1.5")
        #expect(try context.count(for: request) == 1)
    }

    @Test func writtenFilesReadBackWithTheSameDefinitionsAndHashes() throws {
        let model = try ModelFileFixtures.read(Self.contents())
        let text = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(
            text.contains(
                #"<attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>"#),
            "\(text)")
        #expect(text.contains(#"<composite name="Coordinate">"#))
        // Magnitude is written once, though two entities use it.
        #expect(text.components(separatedBy: #"<composite name="Magnitude">"#).count == 2)
        let again = try ManagedObjectModel(xmlData: Data(text.utf8), name: "Again.xcdatamodel/contents")
        #expect(again.entityVersionHashesByName == model.entityVersionHashesByName)
        let location = again.entitiesByName["Quake"]?.attributesByName["location"] as? CompositeAttributeDescription
        #expect(
            location?.leafElements.map(\.path) == [
                ["coordinate", "latitude"], ["coordinate", "longitude"], ["depth"],
            ])
    }

    @Test func aCompositeMadeInCodeIsWrittenUnderItsCapitalizedName() throws {
        let text = String(decoding: try QuakeModel.model().xmlData(), as: UTF8.self)
        #expect(text.contains(#"attributeType="Composite" composite="Magnitude""#), "\(text)")
        #expect(text.contains(#"<composite name="Location">"#) && text.contains(#"<composite name="Coordinate">"#))
        let again = try ManagedObjectModel(xmlData: Data(text.utf8), name: "Quakes.xcdatamodel/contents")
        #expect(again.entityVersionHashesByName == QuakeModel.model().entityVersionHashesByName)
    }

    @Test(arguments: [
        (#"<attribute name="bad" attributeType="Composite" composite="Nowhere"/>"#, "", "composite=\"Nowhere\""),
        (#"<attribute name="bad" attributeType="Composite"/>"#, "", "no composite="),
        (
            "",
            #"<composite name="Loop"><attribute name="again" attributeType="Composite" composite="Loop"/></composite>"#
                + #"<composite name="Magnitude"/>"#, "defined twice"
        ),
    ])
    func brokenCompositesAreClearErrors(quakeExtra: String, modelExtra: String, message: String) throws {
        let error = try #require(throws: ModelError.self) {
            try ModelFileFixtures.read(
                Self.contents(quakeExtra: quakeExtra, modelExtra: modelExtra), name: "Broken.xcdatamodel/contents")
        }
        #expect(error.code == .invalidModelFile)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func aCompositeContainingItselfIsAClearError() throws {
        let loop =
            #"<composite name="Loop"><attribute name="again" attributeType="Composite" composite="Loop"/></composite>"#
        let error = try #require(throws: ModelError.self) {
            try ModelFileFixtures.read(
                Self.contents(
                    quakeExtra: #"<attribute name="looped" attributeType="Composite" composite="Loop"/>"#,
                    modelExtra: loop), name: "Broken.xcdatamodel/contents")
        }
        #expect(error.message.contains("contains itself (Loop > Loop)"), "\(error.message)")
    }
}
