import Foundation
import SafeXML

/// Reads an XML property list value (`dict`, `array`, `string`, `integer`, `real`, `true`, `false`, `date`,
/// `data`) from a pull parser, as Core Data nests one in an XML store's `<metadata>` and Xcode writes
/// `.xccurrentversion`.
///
/// Dictionaries become `[String: any Sendable]`, arrays `[any Sendable]`, integers `Int`, reals `Double`, dates
/// `Date` and data `Data` (base64, white space ignored).
enum PropertyListXMLReader {
    /// The deepest nesting of arrays and dictionaries accepted.
    static let maximumDepth = 32

    /// Reads the value whose start tag `start` the parser just returned, up to and including its end tag.
    static func readValue(
        _ start: XMLElementStart, from parser: inout XMLPullParser,
        depth: Int = 0
    ) throws -> any Sendable {
        guard depth < maximumDepth else {
            throw XMLFormatError("The property list nests deeper than \(maximumDepth) levels.", line: start.line)
        }
        switch start.name {
        case "dict":
            var dictionary: [String: any Sendable] = [:]
            while let keyStart = try parser.nextChildElement() {
                guard keyStart.name == "key" else {
                    throw XMLFormatError(
                        "A property list <dict> holds <\(keyStart.name)> where a <key> belongs.",
                        line: keyStart.line)
                }
                let key = try parser.readText()
                guard let valueStart = try parser.nextChildElement() else {
                    throw XMLFormatError("The property list key '\(key)' has no value.", line: keyStart.line)
                }
                dictionary[key] = try readValue(valueStart, from: &parser, depth: depth + 1)
            }
            return dictionary
        case "array":
            var array: [any Sendable] = []
            while let elementStart = try parser.nextChildElement() {
                array.append(try readValue(elementStart, from: &parser, depth: depth + 1))
            }
            return array
        case "string":
            return try parser.readText()
        case "integer":
            let text = try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)
            guard let value = Int(text) else { throw invalid("integer", start) }
            return value
        case "real":
            let text = try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)
            guard let value = Double(text) else { throw invalid("real", start) }
            return value
        case "true", "false":
            try parser.skipElement()
            return start.name == "true"
        case "date":
            let text = try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)
            guard let date = try? Date(text, strategy: .iso8601) else { throw invalid("date", start) }
            return date
        case "data":
            let text = try parser.readText()
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw invalid("data", start)
            }
            return data
        default:
            throw XMLFormatError("<\(start.name)> is not a property list value.", line: start.line)
        }
    }

    /// Reads a `<plist>` element whose start tag was just returned: its single value, or an empty dictionary.
    static func readPlist(_ start: XMLElementStart, from parser: inout XMLPullParser) throws -> any Sendable {
        guard let valueStart = try parser.nextChildElement() else { return [String: any Sendable]() }
        let value = try readValue(valueStart, from: &parser)
        while try parser.nextChildElement() != nil {
            try parser.skipElement()
        }
        return value
    }

    private static func invalid(_ kind: String, _ start: XMLElementStart) -> XMLFormatError {
        XMLFormatError("A property list <\(kind)> does not hold a valid \(kind).", line: start.line)
    }
}
