import Foundation
import SafeXML

/// Writes property list values as XML property list elements, deterministically (dictionary keys sorted).
enum PropertyListXMLWriter {
    /// Writes one value: `String`, `Bool`, integers, `Double`, `Float`, `Date`, `Data`, `UUID`, `URL`, arrays,
    /// sets of strings (sorted) and dictionaries with `String` keys.
    ///
    /// - Throws: ``XMLFormatError`` for a value of another type; the writer's errors.
    static func write(_ value: Any, into writer: inout XMLWriter) throws {
        switch value {
        case let string as String:
            try writer.writeElement("string", text: string)
        case let bool as Bool:
            try writer.writeElement(bool ? "true" : "false")
        case let int as Int:
            try writer.writeElement("integer", text: String(int))
        case let int as Int64:
            try writer.writeElement("integer", text: String(int))
        case let int as Int32:
            try writer.writeElement("integer", text: String(int))
        case let double as Double:
            try writer.writeElement("real", text: XMLNumberFormat.string(from: double))
        case let float as Float:
            try writer.writeElement("real", text: XMLNumberFormat.string(from: Double(float)))
        case let date as Date:
            try writer.writeElement("date", text: date.formatted(.iso8601))
        case let data as Data:
            try writer.writeElement("data", text: data.base64EncodedString())
        case let uuid as UUID:
            try writer.writeElement("string", text: uuid.uuidString)
        case let url as URL:
            try writer.writeElement("string", text: url.absoluteString)
        case let set as Set<String>:
            try writer.startElement("array")
            for element in set.sorted() { try writer.writeElement("string", text: element) }
            try writer.endElement()
        case let dictionary as [String: Any]:
            try writer.startElement("dict")
            for key in dictionary.keys.sorted() {
                try writer.writeElement("key", text: key)
                try write(dictionary[key]!, into: &writer)
            }
            try writer.endElement()
        case let array as [Any]:
            try writer.startElement("array")
            for element in array { try write(element, into: &writer) }
            try writer.endElement()
        default:
            throw XMLFormatError("A \(type(of: value)) value cannot be written in a property list.", line: 0)
        }
    }
}
