import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing

@testable import ObjectGraphTestSupport

/// Derived attributes in model files, as Xcode writes them: `derived="YES" derivationExpression="…"`.
@Suite("Model files: derived attributes")
struct DerivedAttributeFileTests {
    /// A `contents` file as Xcode 15 writes one, with every kind of derivation.
    static func contents(_ extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" \
        systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Room" representedClassName="Room" syncable="YES" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="sessionCount" optional="YES" attributeType="Integer 64" derived="YES" \
        derivationExpression="sessions.@count" usesScalarValueType="YES"/>
                <attribute name="totalMinutes" optional="YES" attributeType="Integer 64" derived="YES" \
        derivationExpression="sessions.@sum.duration" usesScalarValueType="YES"/>
                <relationship name="sessions" optional="YES" toMany="YES" deletionRule="Nullify" \
        destinationEntity="Session" inverseName="room" inverseEntity="Session"/>
            </entity>
            <entity name="Session" representedClassName="Session" syncable="YES" codeGenerationType="class">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="duration" optional="YES" attributeType="Integer 32" defaultValueString="0" \
        usesScalarValueType="YES"/>
                <attribute name="roomName" optional="YES" attributeType="String" derived="YES" \
        derivationExpression="room.name"/>
                <attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" \
        derivationExpression="canonical:(title)"/>
                <attribute name="savedAt" optional="YES" attributeType="Date" derived="YES" \
        derivationExpression="now()" usesScalarValueType="NO"/>
                <relationship name="room" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Room" \
        inverseName="sessions" inverseEntity="Room"/>
                \(extra)
            </entity>
        </model>
        """
    }

    static let expected = [
        "Room.sessionCount": "sessions.@count", "Room.totalMinutes": "sessions.@sum.duration",
        "Session.roomName": "room.name", "Session.searchTitle": "canonical:(title)", "Session.savedAt": "now()",
    ]

    static func derivations(of model: ManagedObjectModel) -> [String: String] {
        var found: [String: String] = [:]
        for entity in model.entities {
            for case let derived as DerivedAttributeDescription in entity.properties {
                found["\(entity.name).\(derived.name)"] = derived.derivationFormat
            }
        }
        return found
    }

    @Test func xcodeFilesAreReadWithEveryDerivation() throws {
        let model = try ModelFileFixtures.read(Self.contents())
        #expect(Self.derivations(of: model) == Self.expected)
        let searchTitle = try #require(model.entitiesByName["Session"]?.attributesByName["searchTitle"])
        #expect(searchTitle is DerivedAttributeDescription)
        #expect(searchTitle.attributeType == .string)
        #expect(model.entitiesByName["Session"]?.attributesByName["title"] is DerivedAttributeDescription == false)
    }

    @Test func writtenFilesSayDerivedAsXcodeDoesAndReadBack() throws {
        let model = try ModelFileFixtures.read(Self.contents())
        let data = try model.xmlData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"derived="YES" derivationExpression="canonical:(title)""#), "\(text)")
        #expect(text.contains(#"derivationExpression="sessions.@sum.duration""#))
        #expect(!text.contains(#"<attribute name="title" optional="YES" attributeType="String" derived"#))
        let again = try ManagedObjectModel(xmlData: data, name: "Again.xcdatamodel/contents")
        #expect(Self.derivations(of: again) == Self.expected)
        #expect(again.entitiesByName["Session"]?.versionHash == model.entitiesByName["Session"]?.versionHash)
    }

    @Test func aChangedDerivationChangesTheVersionHash() throws {
        let model = try ModelFileFixtures.read(Self.contents())
        let changed = try ModelFileFixtures.read(
            Self.contents().replacingOccurrences(of: "canonical:(title)", with: "uppercase:(title)"))
        #expect(changed.entitiesByName["Session"]?.versionHash != model.entitiesByName["Session"]?.versionHash)
        #expect(changed.entitiesByName["Room"]?.versionHash == model.entitiesByName["Room"]?.versionHash)
    }

    @Test(arguments: [
        (#"derivationExpression="room.nosuch""#, ModelError.Code.invalidDerivation, "nosuch"),
        (#"derivationExpression="room""#, .invalidDerivation, "relationship"),
        (#"derivationExpression="duration * 2""#, .invalidDerivation, "do not support"),
        (#"derivationExpression="canonical:(title""#, nil, "does not parse"),
        ("", nil, "no derivationExpression"),
    ])
    func badDerivationsFailTheLoadNamingTheAttribute(expression: String, cause: ModelError.Code?, word: String) throws {
        let line = #"<attribute name="bad" optional="YES" attributeType="String" derived="YES" \#(expression)/>"#
        let error = try #require(throws: ModelError.self) {
            try ModelFileFixtures.read(Self.contents(line), name: "Broken.xcdatamodel/contents")
        }
        #expect(error.code == .invalidModelFile)
        #expect(error.message.contains("bad") && error.message.contains(word), "\(error.message)")
        #expect((error.cause as? ModelError)?.code == cause)
    }
}
