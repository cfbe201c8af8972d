import Foundation
import ObjectGraph
import ObjectGraphXML
@testable import ObjectGraphTestSupport

/// A model with an attribute of every type an XML store holds, and to-one, to-many and ordered relationships.
enum AllTypesModel {
    static let persistentTypes: [AttributeType] = [
        .integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date, .binaryData, .uuid,
        .uri, .transformable,
    ]

    static func make(extraAttribute: Bool = false) -> ManagedObjectModel {
        var properties: [PropertyDescription] = persistentTypes.map { type in
            AttributeDescription(name: propertyName(for: type), type: type)
        }
        properties += [
            RelationshipDescription(name: "parent", destination: "Sample", inverse: "children"),
            RelationshipDescription(
                name: "children", destination: "Sample", inverse: "parent", toMany: true,
                isOrdered: true),
            RelationshipDescription(name: "friends", destination: "Sample", inverse: "friends", toMany: true),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "samples", toMany: true),
        ]
        if extraAttribute { properties.append(AttributeDescription(name: "addedLater", type: .string)) }
        let sample = EntityDescription(name: "Sample", properties: properties)
        let tag = EntityDescription(
            name: "Tag",
            properties: [
                AttributeDescription(name: "label", type: .string),
                AttributeDescription(name: "Label", type: .string),  // differs from "label" only in case
                RelationshipDescription(name: "samples", destination: "Sample", inverse: "tags", toMany: true),
            ])
        let special = EntityDescription(
            name: "SpecialTag", properties: [AttributeDescription(name: "rank", type: .integer32)])
        tag.subentities = [special]
        return ManagedObjectModel(entities: [sample, tag, special])
    }

    /// `integer16Value`, `dateValue`, …
    static func propertyName(for type: AttributeType) -> String {
        let words = type.rawValue.split(separator: " ").map(String.init)
        return words[0].prefix(1).lowercased() + words[0].dropFirst() + words.dropFirst().joined() + "Value"
    }

    /// One value per type, chosen to catch formatting mistakes (escaping, precision, extremes).
    static let values: [AttributeType: any Sendable] = [
        .integer16: -32768,
        .integer32: 2_147_483_647,
        .integer64: Int.min,
        .decimal: Decimal(string: "12345.6789")!,
        .double: 0.1,
        .float: Float(1.5e-3),
        .string: " A & B < C > \"D\" 'E'\n\ttabbed\r\nline ☃ 🎉 ",
        .boolean: true,
        .date: Date(timeIntervalSinceReferenceDate: -123_456_789.123_456),
        .binaryData: Data((0..<300).map { UInt8($0 % 256) }),
        .uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        .uri: URL(string: "https://example.com/a%20b?c=d&e=f#g")!,
        .transformable: Data("archived".utf8),
    ]
}
