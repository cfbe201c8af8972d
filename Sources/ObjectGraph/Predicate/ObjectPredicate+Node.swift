extension ObjectPredicate {
    /// The public, pattern-matchable syntax tree of a predicate.
    ///
    /// Stores compile this tree (for example to SQL); ``ObjectPredicate`` wraps it together with a
    /// cached compiled evaluator. Compound cases hold their operands in order; the parser never
    /// produces an `and`/`or` with fewer than two operands.
    public indirect enum Node: Sendable, Hashable {
        /// `TRUEPREDICATE`.
        case `true`
        /// `FALSEPREDICATE`.
        case `false`
        /// `a AND b AND …`.
        case and([Node])
        /// `a OR b OR …`.
        case or([Node])
        /// `NOT a`.
        case not(Node)
        /// `[modifier] left operator[options] right`.
        case comparison(
            left: ObjectExpression, operator: ComparisonOperator, right: ObjectExpression,
            modifier: ComparisonModifier, options: ComparisonOptions)
    }
}
