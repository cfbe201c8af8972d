import Foundation

/// A number met during evaluation, normalised so integers, doubles, decimals and Booleans compare.
enum NumericValue: Sendable {
    case int(Int64)
    case double(Double)
    case decimal(Decimal)

    /// Extracts a number from any Swift or Foundation numeric value (Bool counts as 0/1).
    @inline(__always)
    init?(_ value: Any) {
        if let v = value as? Int { self = .int(Int64(v)); return }
        if let v = value as? Double { self = .double(v); return }
        self.init(slow: value)
    }

    private init?(slow value: Any) {
        switch value {
        case let v as Bool: self = .int(v ? 1 : 0)
        case let v as Int64: self = .int(v)
        case let v as Int32: self = .int(Int64(v))
        case let v as Int16: self = .int(Int64(v))
        case let v as Int8: self = .int(Int64(v))
        case let v as UInt8: self = .int(Int64(v))
        case let v as UInt16: self = .int(Int64(v))
        case let v as UInt32: self = .int(Int64(v))
        case let v as UInt: self = v <= UInt(Int64.max) ? .int(Int64(v)) : .decimal(Decimal(string: String(v))!)
        case let v as UInt64: self = v <= UInt64(Int64.max) ? .int(Int64(v)) : .decimal(Decimal(string: String(v))!)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as NSNumber: self = NumericValue.fromNSNumber(v)
        default: return nil
        }
    }

    private static func fromNSNumber(_ number: NSNumber) -> NumericValue {
        let double = number.doubleValue
        let integer = number.int64Value
        if Double(integer) == double, double.rounded() == double { return .int(integer) }
        return .double(double)
    }

    var doubleValue: Double {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        }
    }

    var decimalValue: Decimal {
        switch self {
        case .int(let v): Decimal(v)
        case .double(let v): Decimal(v)
        case .decimal(let v): v
        }
    }

    /// The natural Swift value: `Int`, `Double` or `Decimal`.
    var anyValue: Any {
        switch self {
        case .int(let v): Int(v)
        case .double(let v): v
        case .decimal(let v): v
        }
    }

    /// Orders two numbers; nil when either is NaN.
    static func compare(_ lhs: NumericValue, _ rhs: NumericValue) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case (.decimal, .decimal), (.decimal, .int), (.int, .decimal):
            let a = lhs.decimalValue
            let b = rhs.decimalValue
            if a.isNaN || b.isNaN { return nil }
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        default:
            let a = lhs.doubleValue
            let b = rhs.doubleValue
            if a.isNaN || b.isNaN { return nil }
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        }
    }

    /// Applies a binary arithmetic operator. Integer overflow falls back to `Double`;
    /// `/` and `**` always produce `Double` (or `Decimal` when a decimal is involved).
    static func apply(_ op: ObjectExpression.ArithmeticOperator, _ lhs: NumericValue, _ rhs: NumericValue)
        -> NumericValue
    {
        if case .int(let a) = lhs, case .int(let b) = rhs {
            switch op {
            case .add:
                let (r, o) = a.addingReportingOverflow(b)
                if !o { return .int(r) }
            case .subtract:
                let (r, o) = a.subtractingReportingOverflow(b)
                if !o { return .int(r) }
            case .multiply:
                let (r, o) = a.multipliedReportingOverflow(by: b)
                if !o { return .int(r) }
            case .modulus:
                if b != 0, !(a == .min && b == -1) { return .int(a % b) }
            case .divide, .power: break
            }
        }
        let involvesDecimal: Bool = {
            if case .decimal = lhs { return true }
            if case .decimal = rhs { return true }
            return false
        }()
        if involvesDecimal, op != .power, op != .modulus {
            let a = lhs.decimalValue
            let b = rhs.decimalValue
            switch op {
            case .add: return .decimal(a + b)
            case .subtract: return .decimal(a - b)
            case .multiply: return .decimal(a * b)
            case .divide: return b == 0 ? .double(lhs.doubleValue / 0) : .decimal(a / b)
            case .modulus, .power: break
            }
        }
        let a = lhs.doubleValue
        let b = rhs.doubleValue
        switch op {
        case .add: return .double(a + b)
        case .subtract: return .double(a - b)
        case .multiply: return .double(a * b)
        case .divide: return .double(a / b)
        case .modulus: return .double(fmod(a, b))
        case .power: return .double(pow(a, b))
        }
    }

    /// Negation; `Int64.min` falls back to `Double`.
    var negated: NumericValue {
        switch self {
        case .int(let v): v == .min ? .double(-Double(v)) : .int(-v)
        case .double(let v): .double(-v)
        case .decimal(let v): .decimal(-v)
        }
    }
}
