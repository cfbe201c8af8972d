import Foundation

/// Run-time behaviour of functions, arithmetic, negation and index expressions.
enum FunctionEvaluator {
    static func call(_ name: String, _ arguments: [Any?]) throws -> Any? {
        switch name {
        case "now":
            return Date()
        case "lowercase", "uppercase":
            guard let value = ValueSemantics.normalized(arguments[0]) else { return nil }
            guard let string = ValueSemantics.string(value) else {
                throw ObjectPredicateError(.typeMismatch, "\(name)() needs a string, found \(type(of: value))")
            }
            return name == "lowercase" ? string.lowercased() : string.uppercased()
        case "canonical":
            guard let value = ValueSemantics.normalized(arguments[0]) else { return nil }
            guard let string = ValueSemantics.string(value) else {
                throw ObjectPredicateError(.typeMismatch, "canonical:() needs a string, found \(type(of: value))")
            }
            return StringFolding.fold(string, caseInsensitive: true, diacriticInsensitive: true)
        case "abs", "sqrt", "floor", "ceiling", "trunc", "ln", "log", "exp":
            guard let value = ValueSemantics.normalized(arguments[0]) else { return nil }
            guard let number = NumericValue(value) else {
                throw ObjectPredicateError(.typeMismatch, "\(name)() needs a number, found \(type(of: value))")
            }
            return math(name, number)
        case "count", "sum", "average", "min", "max":
            var elements: [Any]
            if arguments.count == 1 {
                let value = ValueSemantics.normalized(arguments[0])
                elements = ValueSemantics.collection(value) ?? (value.map { [$0] } ?? [])
            } else {
                elements = arguments.map { $0 ?? NSNull() }
            }
            let op: KeyPathComponent.CollectionOperator =
                switch name {
                case "count": .count
                case "sum": .sum
                case "average": .avg
                case "min": .min
                default: .max
                }
            if op == .count { elements = elements.filter { !ValueSemantics.isNull($0) } }
            return try Aggregation.apply(op, to: elements)
        default:
            throw ObjectPredicateError(.unknownFunction, "unknown function '\(name)'")
        }
    }

    private static func math(_ name: String, _ number: NumericValue) -> Any {
        if name == "abs" {
            switch number {
            case .int(let v): return v == .min ? Double(v).magnitude : Int(v.magnitude)
            case .double(let v): return abs(v)
            case .decimal(let v): return abs(v)
            }
        }
        let x = number.doubleValue
        switch name {
        case "sqrt": return x.squareRoot()
        case "floor": return x.rounded(.down)
        case "ceiling": return x.rounded(.up)
        case "trunc": return x.rounded(.towardZero)
        case "ln": return Foundation.log(x)
        case "log": return log10(x)
        default: return Foundation.exp(x)
        }
    }

    static func arithmetic(_ op: ObjectExpression.ArithmeticOperator, _ lhs: Any?, _ rhs: Any?) throws -> Any? {
        guard let a = ValueSemantics.normalized(lhs), let b = ValueSemantics.normalized(rhs) else { return nil }
        guard let x = NumericValue(a) else {
            throw ObjectPredicateError(.typeMismatch, "'\(op.rawValue)' needs numbers, found \(type(of: a))")
        }
        guard let y = NumericValue(b) else {
            throw ObjectPredicateError(.typeMismatch, "'\(op.rawValue)' needs numbers, found \(type(of: b))")
        }
        return NumericValue.apply(op, x, y).anyValue
    }

    static func negate(_ value: Any?) throws -> Any? {
        guard let value = ValueSemantics.normalized(value) else { return nil }
        guard let number = NumericValue(value) else {
            throw ObjectPredicateError(.typeMismatch, "unary '-' needs a number, found \(type(of: value))")
        }
        return number.negated.anyValue
    }

    static func index(_ value: Any?, _ index: ObjectExpression.Index, key: Any?) throws -> Any? {
        guard let value = ValueSemantics.normalized(value) else { return index == .size ? 0 : nil }
        if case .position = index, let key = ValueSemantics.normalized(key), let name = ValueSemantics.string(key) {
            return try KeyValueAccess.value(forKey: name, of: value)
        }
        guard let elements = ValueSemantics.collection(value) else {
            throw ObjectPredicateError(.typeMismatch, "an index needs a collection, found \(type(of: value))")
        }
        switch index {
        case .first: return elements.first
        case .last: return elements.last
        case .size: return elements.count
        case .position:
            guard let key = ValueSemantics.normalized(key), case .int(let position)? = NumericValue(key) else {
                throw ObjectPredicateError(.invalidArgument, "an index must be an integer or a key string")
            }
            guard position >= 0, position < elements.count else { return nil }
            return elements[Int(position)]
        }
    }
}
