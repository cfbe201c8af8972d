/// The functions a format string may call, with Apple's `FUNCTION`-style aliases.
enum FunctionTable {
    enum Resolution {
        case function(String, ClosedRange<Int>)
        case arithmetic(ObjectExpression.ArithmeticOperator)
    }

    private static let unary = 1...1
    private static let variadic = 1...Int.max

    /// Canonical names and their arities.
    static let canonical: [String: ClosedRange<Int>] = [
        "now": 0...0, "canonical": unary, "lowercase": unary, "uppercase": unary, "abs": unary, "sqrt": unary,
        "floor": unary, "ceiling": unary, "trunc": unary, "ln": unary, "log": unary, "exp": unary, "count": variadic,
        "sum": variadic, "average": variadic, "min": variadic, "max": variadic,
    ]

    private static let aliases: [String: String] = [
        "avg": "average", "canonical:": "canonical", "lowercase:": "lowercase", "uppercase:": "uppercase",
        "abs:": "abs", "sqrt:": "sqrt", "floor:": "floor", "ceiling:": "ceiling", "trunc:": "trunc", "ln:": "ln",
        "log:": "log", "exp:": "exp", "count:": "count", "sum:": "sum", "average:": "average", "min:": "min",
        "max:": "max",
    ]

    private static let arithmetic: [String: ObjectExpression.ArithmeticOperator] = [
        "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
        "modulus:by:": .modulus, "raise:topower:": .power,
    ]

    /// Resolves a function name, case-insensitively.
    static func resolve(_ name: String) -> Resolution? {
        let lowered = name.lowercased()
        if let op = arithmetic[lowered] { return .arithmetic(op) }
        let resolved = aliases[lowered] ?? lowered
        guard let arity = canonical[resolved] else { return nil }
        return .function(resolved, arity)
    }

    static func describe(_ arity: ClosedRange<Int>) -> String {
        if arity.upperBound == Int.max { return "at least \(arity.lowerBound)" }
        return arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound)…\(arity.upperBound)"
    }
}
