import Foundation
import Testing

@testable import ObjectGraph

/// The version hashes of composite and derived attributes, as Core Data's `_versionHash:inStyle:` computes them
/// (read from its Intel and ARM builds): unlike every other property's, they leave out the attribute's own name,
/// type and flags. A store Core Data wrote holds the entity hashes made from these; a model whose hashes differ
/// cannot open it without a migration.
@Suite("Composite and derived attribute version hashes")
struct PropertyVersionHashTests {
    private func hashes(of attributes: [AttributeDescription]) -> Data {
        var bytes = Data()
        for attribute in attributes { bytes.append(attribute.coreDataVersionHash) }
        return SHA256.hash(bytes)
    }

    @Test func aCompositeHashesItsStoredLeavesInOrderOfNameAndNothingOfItsOwn() {
        func location(name: String = "location", optional: Bool = true, zipType: AttributeType = .string)
            -> CompositeAttributeDescription
        {
            let point = CompositeAttributeDescription(
                name: "point",
                elements: [
                    AttributeDescription(name: "longitude", type: .double),
                    AttributeDescription(name: "latitude", type: .double),
                ])
            return CompositeAttributeDescription(
                name: name,
                elements: [
                    AttributeDescription(name: "zip", type: zipType), point,
                    AttributeDescription(name: "city", type: .string),
                ], isOptional: optional)
        }
        let base = location()
        // Nested composites are flattened: every leaf, sorted by name, whatever its depth.
        let leaves = ["city", "latitude", "longitude", "zip"].map { name in
            base.leafElements.first { $0.attribute.name == name }!.attribute
        }
        #expect(base.coreDataVersionHash == hashes(of: leaves))
        // Core Data's quirk: the composite's own name and optionality are not part of its hash.
        #expect(location(name: "place").coreDataVersionHash == base.coreDataVersionHash)
        #expect(location(optional: false).coreDataVersionHash == base.coreDataVersionHash)
        // A leaf's type is.
        #expect(location(zipType: .integer64).coreDataVersionHash != base.coreDataVersionHash)
    }

    @Test func aDerivedAttributeHashesItsDerivationAsNSExpressionWritesIt() throws {
        let count = DerivedAttributeDescription(
            name: "sessionCount", type: .integer64,
            derivationExpression: try ObjectExpression(format: "sessions.@count"))
        // Core Data keeps `sessions.@count` as the function `count:(sessions)`, and hashes that text.
        #expect(count.derivationFormat == "sessions.@count")
        #expect(count.coreDataDerivationText == "count:(sessions)")
        #expect(count.coreDataVersionHash == SHA256.hash(Data("count:(sessions)".utf8)))
        let total = DerivedAttributeDescription(
            name: "total", type: .integer64,
            derivationExpression: try ObjectExpression(format: "sessions.@sum.duration"))
        #expect(total.coreDataDerivationText == "sessions.@sum.duration")
        let now = DerivedAttributeDescription(
            name: "touched", type: .date, derivationExpression: .function("now", []))
        #expect(now.coreDataDerivationText == "now()")
        let folded = DerivedAttributeDescription(
            name: "searchTitle", type: .string,
            derivationExpression: .function("canonical", [try ObjectExpression(format: "title")]))
        #expect(folded.derivationFormat == "canonical:(title)")
        #expect(folded.coreDataVersionHash == SHA256.hash(Data("canonical:(title)".utf8)))
        // The attribute's name and type are not part of it; the derivation is.
        let renamed = DerivedAttributeDescription(
            name: "talks", type: .integer32, derivationExpression: try ObjectExpression(format: "sessions.@count"))
        #expect(renamed.coreDataVersionHash == count.coreDataVersionHash)
        let other = DerivedAttributeDescription(
            name: "sessionCount", type: .integer64, derivationExpression: try ObjectExpression(format: "notes.@count"))
        #expect(other.coreDataVersionHash != count.coreDataVersionHash)
    }
}
