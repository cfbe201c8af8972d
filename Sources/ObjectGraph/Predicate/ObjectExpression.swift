/// An expression inside a predicate: a constant, a key path, a variable, a function call, …
///
/// Public and pattern-matchable so stores can translate it. Key paths from the evaluated object
/// are plain dotted strings that may contain collection operators (`pets.@count`,
/// `pets.@sum.age`); use ``keyPathComponents(_:)`` to split them.
public indirect enum ObjectExpression: Sendable, Hashable {
    /// A constant value.
    case constant(PredicateValue)
    /// `SELF`: the evaluated object itself.
    case evaluatedObject
    /// A key path from the evaluated object, for example `address.city` or `pets.@count`.
    case keyPath(String)
    /// A key path applied to the value of another expression, for example `$p.name` or
    /// `SUBQUERY(…).@count`.
    case member(of: ObjectExpression, keyPath: String)
    /// A `$variable`: bound by ``ObjectPredicate/withSubstitutionVariables(_:)`` or by a `SUBQUERY`.
    case variable(String)
    /// An aggregate literal `{a, b, c}` with at least one non-constant element
    /// (all-constant aggregates are folded into ``PredicateValue/array(_:)`` constants).
    case aggregate([ObjectExpression])
    /// `collection[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]`.
    case index(ObjectExpression, Index)
    /// A function call, with the canonical lowercase name (see the syntax article for the list).
    case function(String, [ObjectExpression])
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` for which the
    /// predicate holds, with each element bound to `variable`.
    case subquery(collection: ObjectExpression, variable: String, predicate: ObjectPredicate.Node)
    /// A binary arithmetic operation.
    case arithmetic(ArithmeticOperator, ObjectExpression, ObjectExpression)
    /// Unary minus of a non-literal expression (`-age`). `-5` is the constant `-5`.
    case negate(ObjectExpression)
    /// `CAST(expression, "TypeName")` of a non-constant expression; casts of constants are folded.
    case cast(ObjectExpression, CastType)

    /// A position in an index expression.
    public enum Index: Sendable, Hashable {
        /// `[FIRST]`
        case first
        /// `[LAST]`
        case last
        /// `[SIZE]`: the number of elements.
        case size
        /// `[n]` (zero-based integer) or `["key"]` (a key of a dictionary or object).
        case position(ObjectExpression)
    }

    /// A binary arithmetic operator, in the order of the cases from loosest to tightest binding.
    public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
        /// `+`
        case add = "+"
        /// `-`
        case subtract = "-"
        /// `*`
        case multiply = "*"
        /// `/`
        case divide = "/"
        /// `%%` (a single `%` starts a format specifier)
        case modulus = "%%"
        /// `**`, right-associative.
        case power = "**"
    }

    /// A `CAST` target type.
    public enum CastType: String, Sendable, Hashable, CaseIterable {
        /// `NSDate`: numbers are seconds since 2001-01-01 UTC; strings are ISO 8601 or numeric.
        case date = "NSDate"
        /// `NSNumber`: strings are parsed, dates become seconds since 2001-01-01, Booleans 0/1.
        case number = "NSNumber"
        /// `NSDecimalNumber`: like `NSNumber`, producing a `Decimal`.
        case decimal = "NSDecimalNumber"
        /// `NSString`: the value's canonical text.
        case string = "NSString"
        /// `NSData`: base64 text to bytes.
        case data = "NSData"
        /// `NSUUID`: a UUID string.
        case uuid = "NSUUID"
        /// `NSURL`: an absolute URL string.
        case url = "NSURL"
    }
}
