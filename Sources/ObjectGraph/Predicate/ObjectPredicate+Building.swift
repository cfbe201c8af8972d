extension ObjectPredicate {
    /// A comparison built in code, for example
    /// `.comparison(.keyPath("age"), .greaterThan, .constant(.integer(18)))`.
    /// - Parameters:
    ///   - left: The left expression.
    ///   - op: The operator.
    ///   - right: The right expression.
    ///   - modifier: `ANY`, `ALL`, `NONE` or direct (the default).
    ///   - options: `[c]`, `[d]`, `[n]` string options.
    public static func comparison(
        _ left: ObjectExpression, _ op: ComparisonOperator, _ right: ObjectExpression,
        modifier: ComparisonModifier = .direct, options: ComparisonOptions = []
    ) -> ObjectPredicate {
        ObjectPredicate(.comparison(left: left, operator: op, right: right, modifier: modifier, options: options))
    }

    /// All of `predicates` (an empty list is ``true``, a single predicate is returned as is).
    public static func and(_ predicates: [ObjectPredicate]) -> ObjectPredicate {
        switch predicates.count {
        case 0: .true
        case 1: predicates[0]
        default: ObjectPredicate(.and(predicates.map(\.node)))
        }
    }

    /// Any of `predicates` (an empty list is ``false``, a single predicate is returned as is).
    public static func or(_ predicates: [ObjectPredicate]) -> ObjectPredicate {
        switch predicates.count {
        case 0: .false
        case 1: predicates[0]
        default: ObjectPredicate(.or(predicates.map(\.node)))
        }
    }

    /// The negation of `predicate`.
    public static func not(_ predicate: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(.not(predicate.node))
    }
}

extension ObjectExpression {
    /// A constant from any supported Swift value (see ``PredicateValue/init(argument:)``).
    /// - Throws: ``ObjectPredicateError/Code/unsupportedArgument``.
    public static func value(_ value: Any?) throws -> ObjectExpression {
        .constant(try PredicateValue(argument: value))
    }

    /// The canonical text of the expression, as it appears inside ``ObjectPredicate/predicateFormat``.
    public var expressionFormat: String { PredicateFormatter.format(self) }

    /// Evaluates the expression against an object (`$variables` from `substitutionVariables`).
    /// - Throws: ``ObjectPredicateError``, as for `ObjectPredicate/evaluate(with:)`.
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Any? {
        var compiler = PredicateCompiler(substitutions: substitutionVariables)
        let evaluator = try compiler.compile(self, depth: 0).evaluator
        var frame = EvaluationFrame(slots: Array(repeating: nil, count: compiler.slotCount))
        return try evaluator(EvaluationSubject(object), &frame)
    }
}
