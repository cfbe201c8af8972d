import Foundation
import ObjectGraph

/// Attribute values as the text of Core Data's XML store `<attribute>` elements.
///
/// Reading goes by the model's attribute type (the file's `type=` only decides between text and base64 for
/// transformable and undefined attributes). See ``XMLNumberFormat`` for the number formats.
enum XMLValueCoding {
    /// The value of an attribute of `type` from its element's text; `nil` when the text is not a valid value.
    static func decode(_ text: String, as type: AttributeType, fileType: String?) -> (any Sendable)? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = XMLNumberFormat.integer(text), type.integerRange?.contains(value) ?? true else {
                return nil
            }
            return value
        case .double:
            return XMLNumberFormat.double(text)
        case .float:
            if let value = Float(text) { return value }
            return Float(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case .decimal:
            return XMLNumberFormat.decimal(text)
        case .string:
            return text
        case .boolean:
            return XMLNumberFormat.bool(text)
        case .date:
            return XMLNumberFormat.double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .binaryData:
            return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
        case .uuid:
            return UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines))
        case .uri:
            return URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines))
        case .objectID:
            return URL(string: text).flatMap { ManagedObjectID(uriRepresentation: $0) }
        case .transformable, .undefined:
            if fileType == "string" { return text }
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return nil }
            // Core Data's XML store keeps what the transformer made: a keyed archive, for its default ones.
            return PropertyListCoding.decodeArchive(data) ?? data
        case .composite:
            return nil  // read with its description: decode(_:as:) of a CompositeAttributeDescription
        }
    }

    /// A composite value from its text: a base64 binary property list of its elements (Core Data's XML store has no
    /// composites; this is ObjectGraph's form, see ``CompositeAttributeDescription/propertyList(from:)``).
    static func decode(_ text: String, as composite: CompositeAttributeDescription) -> (any Sendable)? {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
            let list = try? BinaryPropertyList.parse(data)
        else { return nil }
        return composite.value(fromPropertyList: list)
    }

    /// The `type=` name and text of a composite value; `nil` when an element's value cannot be written.
    static func encode(_ value: any Sendable, as composite: CompositeAttributeDescription) -> (
        typeName: String, text: String
    )? {
        guard let list = composite.propertyList(from: value) else { return nil }
        return (AttributeType.composite.xmlStoreTypeName, BinaryPropertyListWriter.encode(list).base64EncodedString())
    }

    /// The `type=` name and text of a value of an attribute of `type`; `nil` when the value cannot be written.
    static func encode(_ value: any Sendable, as type: AttributeType) -> (typeName: String, text: String)? {
        let typeName = type.xmlStoreTypeName
        switch type {
        case .integer16, .integer32, .integer64:
            guard let int = value as? Int else { return (type.coerce(value) as? Int).map { (typeName, String($0)) } }
            return (typeName, String(int))
        case .double:
            guard let double = value as? Double ?? (type.coerce(value) as? Double) else { return nil }
            return (typeName, XMLNumberFormat.string(from: double))
        case .float:
            guard let float = value as? Float ?? (type.coerce(value) as? Float) else { return nil }
            return (typeName, XMLNumberFormat.string(from: float))
        case .decimal:
            guard let decimal = value as? Decimal ?? (type.coerce(value) as? Decimal), !decimal.isNaN else {
                return nil
            }
            return (typeName, decimal.description)
        case .string:
            guard let string = value as? String else { return nil }
            return (typeName, string)
        case .boolean:
            guard let bool = value as? Bool ?? (type.coerce(value) as? Bool) else { return nil }
            return (typeName, bool ? "1" : "0")
        case .date:
            guard let date = value as? Date else { return nil }
            return (typeName, XMLNumberFormat.dateString(from: date.timeIntervalSinceReferenceDate))
        case .binaryData:
            guard let data = value as? Data ?? (type.coerce(value) as? Data) else { return nil }
            return (typeName, data.base64EncodedString())
        case .uuid:
            guard let uuid = value as? UUID else { return nil }
            return (typeName, uuid.uuidString)
        case .uri:
            guard let url = value as? URL else { return nil }
            return (typeName, url.absoluteString)
        case .objectID:
            guard let id = value as? ManagedObjectID, !id.isTemporaryID else { return nil }
            return (typeName, id.uriRepresentation().absoluteString)
        case .transformable, .undefined:
            if let data = value as? Data { return (typeName, data.base64EncodedString()) }
            if let string = value as? String { return ("string", string) }
            // Other values as Core Data's default transformers keep them: a keyed archive.
            guard let archive = try? PropertyListCoding.encode(value) else { return nil }
            return (typeName, archive.base64EncodedString())
        case .composite:
            return nil  // written with its description: encode(_:as:) of a CompositeAttributeDescription
        }
    }
}

extension AttributeType {
    /// The `type=` name Core Data's XML store writes for values of this attribute type.
    var xmlStoreTypeName: String {
        switch self {
        case .integer16: "int16"
        case .integer32: "int32"
        case .integer64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "bool"
        case .date: "date"
        case .binaryData: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        case .undefined: "undefined"
        case .objectID: "objectid"
        case .composite: "composite"
        }
    }
}
