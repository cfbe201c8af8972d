import Foundation

/// Translates predicates to SQL `WHERE` conditions with bound values.
///
/// Every translation is exact: a compiled condition selects the objects the in-memory evaluator matches, and
/// nothing is compiled whose in-memory evaluation could throw. What cannot be translated returns `nil`, and the
/// store evaluates the predicate in memory (over the rows that the translatable leading `AND` operands select).
///
/// Conditions are built two-valued where it matters: SQL's NULL (unknown) is coalesced to false under `NOT`,
/// so `NOT nickname == "x"` keeps rows whose nickname is NULL, as the evaluator does.
package struct PredicateSQLCompiler {
    package let schema: SQLSchema
    package let storeIdentifier: String
    /// What the store's SQL engine spells differently.
    package let dialect: any SQLDialect
    package var resolver: KeyPathResolver { KeyPathResolver(schema: schema, dialect: dialect) }

    /// A compiler for a store's schema and identifier, in the store's dialect.
    package init(schema: SQLSchema, storeIdentifier: String, dialect: any SQLDialect) {
        self.schema = schema
        self.storeIdentifier = storeIdentifier
        self.dialect = dialect
    }

    /// The condition that holds for every row.
    var alwaysTrue: SQLFragment { SQLFragment(dialect.alwaysTrue) }
    /// The condition that holds for no row.
    var alwaysFalse: SQLFragment { SQLFragment(dialect.alwaysFalse) }

    /// The condition for the longest translatable prefix of the predicate's top-level `AND` operands, and whether
    /// that prefix is the whole predicate.
    package func compilePrefix(_ node: ObjectPredicate.Node, in scope: QueryScope) -> (SQLFragment?, isComplete: Bool) {
        guard case .and(let operands) = node else {
            let fragment = compile(node, in: scope)
            return (fragment, fragment != nil)
        }
        var parts: [SQLFragment] = []
        for operand in operands {
            guard let fragment = compile(operand, in: scope) else {
                return (parts.isEmpty ? nil : SQLFragment.join(parts, with: "AND"), false)
            }
            parts.append(fragment)
        }
        return (SQLFragment.join(parts, with: "AND"), true)
    }

    /// The condition for a whole predicate node, or `nil` when any part cannot be translated exactly.
    package func compile(_ node: ObjectPredicate.Node, in scope: QueryScope) -> SQLFragment? {
        switch node {
        case .true:
            return alwaysTrue
        case .false:
            return alwaysFalse
        case .and(let operands):
            var parts: [SQLFragment] = []
            for operand in operands {
                guard let part = compile(operand, in: scope) else { return nil }
                parts.append(part)
            }
            return parts.isEmpty ? alwaysTrue : SQLFragment.join(parts, with: "AND")
        case .or(let operands):
            var parts: [SQLFragment] = []
            for operand in operands {
                guard let part = compile(operand, in: scope) else { return nil }
                parts.append(part)
            }
            return parts.isEmpty ? alwaysFalse : SQLFragment.join(parts, with: "OR")
        case .not(let operand):
            return compile(operand, in: scope)?.negated(dialect)
        case .comparison(let left, let op, let right, let modifier, let options):
            if Self.isObjectIndependent(left), Self.isObjectIndependent(right) {
                guard let result = try? ObjectPredicate(node).evaluate(with: nil) else { return nil }
                return result ? alwaysTrue : alwaysFalse
            }
            if modifier != .direct {
                return compileModified(left, op, right, modifier: modifier, options: options, in: scope)
            }
            return compileDirect(left, op, right, options: options, in: scope)
        }
    }

    /// Whether an expression's value does not depend on the evaluated object (nor on the clock).
    package static func isObjectIndependent(_ expression: ObjectExpression) -> Bool {
        switch expression {
        case .constant: true
        case .aggregate(let elements): elements.allSatisfy(isObjectIndependent)
        case .function(let name, let arguments): name != "now" && arguments.allSatisfy(isObjectIndependent)
        case .arithmetic(_, let lhs, let rhs): isObjectIndependent(lhs) && isObjectIndependent(rhs)
        case .negate(let operand), .cast(let operand, _): isObjectIndependent(operand)
        case .index(let base, let index):
            if case .position(let position) = index, !isObjectIndependent(position) {
                false
            } else {
                isObjectIndependent(base)
            }
        default: false
        }
    }

    /// An operand as SQL reads it; `nil` when SQL cannot.
    package func operand(_ expression: ObjectExpression, in scope: QueryScope) -> SQLOperand? {
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .object(alias: scope.alias, mapping: scope.mapping)
        case .keyPath(let path):
            guard let resolved = resolver.resolve(path, in: scope) else { return nil }
            if case .toMany(let toMany, let owner, let rest, _) = resolved, case .collectionOperator = rest.first {
                return resolver.aggregate(toMany, ownerAlias: owner, rest: rest, aliases: scope.aliases)
            }
            return resolved
        default:
            return nil
        }
    }

    // MARK: ANY / ALL / NONE

    private func compileModified(
        _ left: ObjectExpression, _ op: ComparisonOperator, _ right: ObjectExpression,
        modifier: ComparisonModifier, options: ComparisonOptions,
        in scope: QueryScope
    ) -> SQLFragment? {
        guard case .keyPath(let path) = left,
            case .toMany(let toMany, let owner, let rest, _) = resolver.resolve(path, in: scope)
        else { return nil }
        return compileOverElements(
            toMany, owner: owner, rest: rest, op, right, modifier: modifier, options: options,
            in: scope)
    }

    /// `ANY/ALL/NONE collection.rest op right`: an `EXISTS` over the destinations; `right` is read from the outer row.
    package func compileOverElements(
        _ toMany: ToManyMapping, owner: String, rest: [KeyPathComponent], _ op: ComparisonOperator,
        _ right: ObjectExpression, modifier: ComparisonModifier, options: ComparisonOptions,
        in scope: QueryScope
    ) -> SQLFragment? {
        var keys: [String] = []
        for component in rest {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        guard !keys.isEmpty, let rightOperand = operand(right, in: scope), !isCollection(rightOperand),
            let source = ToManySource(toMany, ownerAlias: owner, schema: schema, aliases: scope.aliases),
            let element = resolver.resolve(keys.joined(separator: "."), in: source.scope), !isCollection(element),
            let condition = compare(element, op, rightOperand, options: options)
        else { return nil }
        switch modifier {
        case .any, .direct:
            return SQLFragment("EXISTS (SELECT 1 \(source.clause) AND (\(condition.sql)))", condition.bindings)
        case .noneOf:
            return SQLFragment("NOT EXISTS (SELECT 1 \(source.clause) AND (\(condition.sql)))", condition.bindings)
        case .all:
            return SQLFragment(
                "NOT EXISTS (SELECT 1 \(source.clause) AND \(condition.negated(dialect).sql))", condition.bindings)
        }
    }

    private func isCollection(_ operand: SQLOperand) -> Bool {
        if case .toMany = operand { return true }
        return false
    }

    // MARK: Direct comparisons

    private func compileDirect(
        _ left: ObjectExpression, _ op: ComparisonOperator, _ right: ObjectExpression,
        options: ComparisonOptions, in scope: QueryScope
    ) -> SQLFragment? {
        guard let lhs = operand(left, in: scope), let rhs = operand(right, in: scope) else { return nil }
        // `"Rex" IN pets.name` is `ANY pets.name == "Rex"`.
        if op == .in, case .constant = lhs, case .toMany(let toMany, let owner, let rest, _) = rhs {
            return compileOverElements(
                toMany, owner: owner, rest: rest, .equalTo, left, modifier: .any,
                options: options, in: scope)
        }
        if isCollection(lhs) || isCollection(rhs) { return nil }
        return compare(lhs, op, rhs, options: options)
    }

    /// A comparison of two scalar operands.
    package func compare(
        _ lhs: SQLOperand, _ op: ComparisonOperator, _ rhs: SQLOperand,
        options: ComparisonOptions
    ) -> SQLFragment? {
        switch (lhs, rhs) {
        case (.constant, .constant):
            return nil
        case (_, .constant(let value)):
            return compareWithConstant(lhs, op, value, options: options)
        case (.constant(let value), _):
            switch op {
            case .equalTo, .notEqualTo: return compareWithConstant(rhs, op, value, options: options)
            case .lessThan: return compareWithConstant(rhs, .greaterThan, value, options: options)
            case .lessThanOrEqualTo: return compareWithConstant(rhs, .greaterThanOrEqualTo, value, options: options)
            case .greaterThan: return compareWithConstant(rhs, .lessThan, value, options: options)
            case .greaterThanOrEqualTo: return compareWithConstant(rhs, .lessThanOrEqualTo, value, options: options)
            case .in: return constantInOperand(value, rhs, options: options)
            case .contains: return constantContainsOperand(value, rhs, options: options)
            default: return nil
            }
        default:
            return compareOperands(lhs, op, rhs, options: options)
        }
    }
}
