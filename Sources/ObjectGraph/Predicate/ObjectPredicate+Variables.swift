extension ObjectPredicate {
    /// The names of the `$variables` that need a value (excluding `SUBQUERY` element variables).
    public var referencedVariables: Set<String> {
        var walker = ReferenceWalker()
        walker.visit(node)
        return walker.variables
    }

    /// Every key path the predicate reads from the evaluated object, for stores choosing columns
    /// and joins. Paths inside a `SUBQUERY` are prefixed with the collection's path
    /// (`SUBQUERY(pets, $p, $p.age > 1)` reads `pets` and `pets.age`).
    public var referencedKeyPaths: Set<String> {
        var walker = ReferenceWalker()
        walker.visit(node)
        return walker.keyPaths
    }

    /// Whether the predicate calls a function whose value changes from one evaluation to the next (`now()`), so
    /// its result over unchanged records may change too (caches of results must not keep it).
    public var callsVolatileFunction: Bool {
        var walker = ReferenceWalker()
        walker.visit(node)
        return walker.functions.contains("now")
    }

    /// A copy with the given `$variables` replaced by constants; variables not in the dictionary stay.
    /// - Throws: ``ObjectPredicateError/Code/unsupportedArgument`` for a value that cannot be a constant.
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws -> ObjectPredicate {
        var constants: [String: PredicateValue] = [:]
        for (name, value) in variables {
            do {
                constants[name] = try PredicateValue(argument: value)
            } catch var error as ObjectPredicateError {
                error.variableName = name
                throw error
            }
        }
        let substitution = Substitution(constants: constants)
        return ObjectPredicate(substitution.apply(node, bound: []))
    }
}

/// Replaces free variables with constants, folding what the parser would have folded.
private struct Substitution {
    let constants: [String: PredicateValue]

    func apply(_ node: ObjectPredicate.Node, bound: Set<String>) -> ObjectPredicate.Node {
        switch node {
        case .true, .false: node
        case .and(let operands): .and(operands.map { apply($0, bound: bound) })
        case .or(let operands): .or(operands.map { apply($0, bound: bound) })
        case .not(let operand): .not(apply(operand, bound: bound))
        case .comparison(let left, let op, let right, let modifier, let options):
            .comparison(
                left: apply(left, bound: bound), operator: op, right: apply(right, bound: bound), modifier: modifier,
                options: options)
        }
    }

    func apply(_ expression: ObjectExpression, bound: Set<String>) -> ObjectExpression {
        switch expression {
        case .constant, .evaluatedObject, .keyPath: return expression
        case .variable(let name):
            guard !bound.contains(name), let value = constants[name] else { return expression }
            return .constant(value)
        case .member(let base, let path): return .member(of: apply(base, bound: bound), keyPath: path)
        case .aggregate(let items):
            let mapped = items.map { apply($0, bound: bound) }
            var values: [PredicateValue] = []
            for item in mapped {
                guard case .constant(let value) = item else { return .aggregate(mapped) }
                values.append(value)
            }
            return .constant(.array(values))
        case .index(let base, let index):
            let mappedIndex: ObjectExpression.Index =
                if case .position(let position) = index { .position(apply(position, bound: bound)) } else { index }
            return .index(apply(base, bound: bound), mappedIndex)
        case .function(let name, let arguments): return .function(name, arguments.map { apply($0, bound: bound) })
        case .subquery(let collection, let variable, let predicate):
            return .subquery(
                collection: apply(collection, bound: bound), variable: variable,
                predicate: apply(predicate, bound: bound.union([variable])))
        case .arithmetic(let op, let left, let right):
            return .arithmetic(op, apply(left, bound: bound), apply(right, bound: bound))
        case .negate(let operand): return .negate(apply(operand, bound: bound))
        case .cast(let operand, let type):
            let mapped = apply(operand, bound: bound)
            if case .constant(let value) = mapped, let folded = try? CastConversion.fold(value, to: type) {
                return .constant(folded)
            }
            return .cast(mapped, type)
        }
    }
}

/// Collects free variables and key paths.
private struct ReferenceWalker {
    var variables: Set<String> = []
    var keyPaths: Set<String> = []
    var functions: Set<String> = []
    /// Bound SUBQUERY variables and the key path of their collection (nil when not a plain path).
    private var bound: [String: String?] = [:]
    /// The key path prefix of `SELF` inside a SUBQUERY.
    private var selfPrefix: String?? = .some(nil)

    private func join(_ prefix: String?, _ path: String) -> String {
        guard let prefix else { return path }
        return prefix + "." + path
    }

    mutating func visit(_ node: ObjectPredicate.Node) {
        switch node {
        case .true, .false: break
        case .and(let operands), .or(let operands): operands.forEach { visit($0) }
        case .not(let operand): visit(operand)
        case .comparison(let left, _, let right, _, _):
            visit(left)
            visit(right)
        }
    }

    mutating func visit(_ expression: ObjectExpression) {
        switch expression {
        case .constant, .evaluatedObject: break
        case .keyPath(let path):
            if case .some(let prefix) = selfPrefix { keyPaths.insert(join(prefix, path)) }
        case .variable(let name):
            if bound[name] == nil { variables.insert(name) }
        case .member(let base, let path):
            switch base {
            case .variable(let name) where bound[name] != nil:
                if case .some(.some(let collection)) = bound[name] { keyPaths.insert(collection + "." + path) }
            case .keyPath(let basePath):
                if case .some(let prefix) = selfPrefix { keyPaths.insert(join(prefix, basePath + "." + path)) }
            default: visit(base)
            }
        case .aggregate(let items): items.forEach { visit($0) }
        case .index(let base, let index):
            visit(base)
            if case .position(let position) = index { visit(position) }
        case .function(let name, let arguments):
            functions.insert(name)
            arguments.forEach { visit($0) }
        case .subquery(let collection, let variable, let predicate):
            visit(collection)
            var collectionPath: String?
            if case .keyPath(let path) = collection, case .some(let prefix) = selfPrefix {
                collectionPath = join(prefix, path)
            }
            let savedBound = bound[variable]
            let savedPrefix = selfPrefix
            bound[variable] = .some(collectionPath)
            selfPrefix = collectionPath.map { .some($0) } ?? .none
            visit(predicate)
            bound[variable] = savedBound
            selfPrefix = savedPrefix
        case .arithmetic(_, let left, let right):
            visit(left)
            visit(right)
        case .negate(let operand), .cast(let operand, _): visit(operand)
        }
    }
}
