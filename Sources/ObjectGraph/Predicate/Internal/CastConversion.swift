import Foundation

/// Conversions behind `CAST(value, "Type")`.
enum CastConversion {
    /// Folds a constant cast at parse time.
    static func fold(_ value: PredicateValue, to type: ObjectExpression.CastType) throws -> PredicateValue {
        try PredicateValue(argument: convert(value.runtimeValue, to: type))
    }

    /// The number a string spells, infinities included; `nil` for NaN, which equals nothing (not even itself, so a
    /// predicate holding it could not equal its own canonical form), and for text with a NUL byte, whose C parse
    /// would stop there and read a prefix as the whole.
    private static func double(from string: String) -> Double? {
        guard !string.utf8.contains(0), let value = Double(string), !value.isNaN else { return nil }
        return value
    }

    /// Converts a runtime value; nil stays nil.
    /// - Throws: ``ObjectPredicateError/Code/invalidCast`` when the value has no such conversion.
    static func convert(_ value: Any?, to type: ObjectExpression.CastType) throws -> Any? {
        guard let value = ValueSemantics.normalized(value) else { return nil }
        switch type {
        case .date:
            if let date = value as? Date { return date }
            if let number = NumericValue(value), !(value is Bool), !number.doubleValue.isNaN {
                return Date(timeIntervalSinceReferenceDate: number.doubleValue)
            }
            if let string = ValueSemantics.string(value) {
                if let seconds = double(from: string) { return Date(timeIntervalSinceReferenceDate: seconds) }
                if let date = ISO8601.parse(string) { return date }
            }
        case .number, .decimal:
            var number: NumericValue?
            if let date = value as? Date {
                number = .double(date.timeIntervalSinceReferenceDate)
            } else if let n = NumericValue(value) {
                number = n
            } else if let string = ValueSemantics.string(value), !string.utf8.contains(0) {
                let trimmed = string.trimmingCharacters(in: .whitespaces)
                if let i = Int64(trimmed) {
                    number = .int(i)
                } else if type == .decimal, let d = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")),
                    !d.isNaN
                {
                    number = .decimal(d)
                } else if let d = double(from: trimmed) {
                    number = .double(d)
                }
            }
            if let number { return type == .decimal ? number.decimalValue : number.anyValue }
        case .string:
            if let string = ValueSemantics.string(value) { return string }
            if let date = value as? Date { return ISO8601.format(date) }
            if let data = value as? Data { return data.base64EncodedString() }
            if let uuid = value as? UUID { return uuid.uuidString }
            if let url = value as? URL { return url.absoluteString }
            if let bool = value as? Bool { return bool ? "1" : "0" }
            if let number = NumericValue(value) {
                switch number {
                case .int(let v): return String(v)
                case .double(let v): return String(v)
                case .decimal(let v): return v.description
                }
            }
        case .data:
            if let data = value as? Data { return data }
            if let string = ValueSemantics.string(value), let data = Data(base64Encoded: string) { return data }
        case .uuid:
            if let uuid = value as? UUID { return uuid }
            if let string = ValueSemantics.string(value), let uuid = UUID(uuidString: string) { return uuid }
        case .url:
            if let url = value as? URL { return url }
            if let string = ValueSemantics.string(value), let url = URL(string: string) { return url }
        }
        throw ObjectPredicateError(.invalidCast, "cannot CAST a value of type \(Swift.type(of: value)) to \(type.rawValue)")
    }
}
