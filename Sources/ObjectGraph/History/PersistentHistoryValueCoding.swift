import Foundation

/// A tombstone's values as JSON that keeps their types, for stores that write history as bytes (the SQLite store's
/// column, the side file of file stores).
package enum PersistentHistoryValueCoding {
    /// One value with its type.
    enum Tagged: Codable {
        case int(Int), double(Double), float(Float), decimal(String), string(String), bool(Bool), date(Double)
        case data(Data), uuid(UUID), url(String)

        init?(_ value: any Sendable) {
            switch value {
            case let value as Int: self = .int(value)
            case let value as Double: self = .double(value)
            case let value as Float: self = .float(value)
            case let value as Decimal: self = .decimal("\(value)")
            case let value as String: self = .string(value)
            case let value as Bool: self = .bool(value)
            case let value as Date: self = .date(value.timeIntervalSinceReferenceDate)
            case let value as Data: self = .data(value)
            case let value as UUID: self = .uuid(value)
            case let value as URL: self = .url(value.absoluteString)
            default: return nil
            }
        }

        var value: (any Sendable)? {
            switch self {
            case .int(let value): value
            case .double(let value): value
            case .float(let value): value
            case .decimal(let text): Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            case .string(let value): value
            case .bool(let value): value
            case .date(let seconds): Date(timeIntervalSinceReferenceDate: seconds)
            case .data(let value): value
            case .uuid(let value): value
            case .url(let text): URL(string: text)
            }
        }
    }

    /// The tagged form of each value; values of other types (transformable ones) are left out.
    static func tagged(_ values: [String: any Sendable]) -> [String: Tagged] {
        values.compactMapValues { Tagged($0) }
    }

    /// The values of a tagged dictionary.
    static func values(_ tagged: [String: Tagged]) -> [String: any Sendable] {
        tagged.compactMapValues { $0.value }
    }

    /// Encodes values as JSON text.
    package static func encode(_ values: [String: any Sendable]) -> String {
        let data = (try? JSONEncoder().encode(tagged(values))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Decodes ``encode(_:)``'s text; nil for text that is not such JSON.
    package static func decode(_ text: String) -> [String: any Sendable]? {
        guard let tagged = try? JSONDecoder().decode([String: Tagged].self, from: Data(text.utf8)) else { return nil }
        return values(tagged)
    }
}
