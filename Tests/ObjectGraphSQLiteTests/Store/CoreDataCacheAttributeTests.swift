import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Derived and composite attributes in a model cache as Core Data's coder writes them: the derivation as an
/// archived `NSExpression` under `NSDerivationExpression` (with `path.@count` kept as the function `count:(path)`),
/// a composite's elements under `NSCompositeElements` (keys read from Core Data's `initWithCoder:`).
@Suite("Model caches: Core Data's derived and composite attributes")
struct CoreDataCacheAttributeTests {
    /// An archived `NSManagedObjectModel` of `Room` (a derived session count and a composite location) and
    /// `Session`, shaped as Core Data archives them; `derivation` makes the derivation's expression object.
    private static func archive(derivation: (inout KeyedArchiveWriter) -> Int) -> Data {
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        let room = writer.reserve()
        let session = writer.reserve()
        let attributeClasses = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        func attribute(
            _ name: String, code: Int64, entity: Int, className: String = "NSAttributeDescription",
            extra: [String: PropertyListValue] = [:]
        ) -> Int {
            var values: [String: PropertyListValue] = [
                "NSPropertyName": writer.string(name), "NSAttributeType": .integer(code), "NSEntity": .uid(entity),
                "_P": .integer(0x3),
            ]
            values.merge(extra) { _, new in new }
            let superclasses =
                className == "NSAttributeDescription" ? Array(attributeClasses.dropFirst()) : attributeClasses
            return writer.add(className: className, superclasses: superclasses, values: values)
        }
        let expression = derivation(&writer)
        let count = attribute(
            "sessionCount", code: 300, entity: room, className: "NSDerivedAttributeDescription",
            extra: ["NSDerivationExpression": .uid(expression)])
        let city = attribute("city", code: 700, entity: room)
        let zip = attribute("zip", code: 700, entity: room)
        let location = attribute(
            "location", code: 2100, entity: room, className: "NSCompositeAttributeDescription",
            extra: ["NSCompositeElements": writer.array([zip, city])])
        func relationship(_ name: String, entity: Int, destination: String, inverse: String, maxCount: Int64) -> Int {
            writer.add(
                className: "NSRelationshipDescription", superclasses: ["NSPropertyDescription", "NSObject"],
                values: [
                    "NSPropertyName": writer.string(name), "NSEntity": .uid(entity), "_P": .integer(0x3),
                    "_NSDestinationEntityName": writer.string(destination),
                    "_NSInverseRelationshipName": writer.string(inverse), "NSMaxCount": .integer(maxCount),
                ])
        }
        let sessions = relationship("sessions", entity: room, destination: "Session", inverse: "room", maxCount: 0)
        let title = attribute("title", code: 700, entity: session)
        let roomLink = relationship("room", entity: session, destination: "Room", inverse: "sessions", maxCount: 1)
        for (uid, name, properties) in [
            (room, "Room", [("location", location), ("sessionCount", count), ("sessions", sessions)]),
            (session, "Session", [("room", roomLink), ("title", title)]),
        ] {
            writer.set(
                uid, className: "NSEntityDescription",
                values: [
                    "NSEntityName": writer.string(name), "NSClassNameForEntity": writer.string("NSManagedObject"),
                    "NSIsAbstract": .bool(false), "NSManagedObjectModel": .uid(root),
                    "NSProperties": writer.dictionary(properties.map { (key: $0.0, uid: $0.1) }),
                ])
        }
        writer.set(
            root, className: "NSManagedObjectModel",
            values: ["NSEntities": writer.dictionary([(key: "Room", uid: room), (key: "Session", uid: session)])])
        return writer.encoded(root: root)
    }

    /// `count:(sessions)` as `NSFunctionExpression` archives it: the selector, the utilities class as a constant
    /// operand, the arguments.
    private static func countOfSessions(_ writer: inout KeyedArchiveWriter) -> Int {
        let keyPath = writer.add(
            className: "NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression", "NSObject"],
            values: ["NSKeyPath": writer.string("sessions"), "NSExpressionType": .integer(3)])
        let operand = writer.add(
            className: "NSConstantValueExpression", superclasses: ["NSExpression", "NSObject"],
            values: ["NSConstantValue": writer.string("_NSPredicateUtilities"), "NSExpressionType": .integer(0)])
        return writer.add(
            className: "NSFunctionExpression", superclasses: ["NSExpression", "NSObject"],
            values: [
                "NSSelectorName": writer.string("count:"), "NSOperand": .uid(operand),
                "NSArguments": writer.array([keyPath]), "NSExpressionType": .integer(4),
            ])
    }

    @Test func derivationsAndCompositeElementsAreReadUnderCoreDatasKeys() throws {
        let url = URL(fileURLWithPath: "/nonexistent/cache-test.sqlite")
        let model = try ModelCacheDecoder.model(
            fromCompressed: Self.archive(derivation: Self.countOfSessions), url: url)
        let room = try #require(model.entities.first { $0.name == "Room" })
        let count = try #require(room.propertiesByName["sessionCount"] as? DerivedAttributeDescription)
        #expect(count.derivationExpression == .keyPath("sessions.@count"))
        #expect(count.attributeType == .integer64)
        // Hashed as Core Data hashes it: `count:(sessions)`.
        #expect(count.coreDataVersionHash == SHA256.hash(Data("count:(sessions)".utf8)))
        let location = try #require(room.propertiesByName["location"] as? CompositeAttributeDescription)
        #expect(Set(location.elements.map(\.name)) == ["city", "zip"])
        #expect(location.elements.allSatisfy { $0.attributeType == .string })
    }

    @Test func aDerivationThisReaderCannotDecodeLeavesAPlainAttribute() throws {
        let url = URL(fileURLWithPath: "/nonexistent/cache-test.sqlite")
        let unknown = Self.archive { writer in
            writer.add(className: "NSBlockExpression", superclasses: ["NSExpression", "NSObject"], values: [:])
        }
        let model = try ModelCacheDecoder.model(fromCompressed: unknown, url: url)
        let room = try #require(model.entities.first { $0.name == "Room" })
        let count = try #require(room.attributesByName["sessionCount"])
        #expect(!(count is DerivedAttributeDescription) && count.attributeType == .integer64)
    }
}
