import Foundation

/// Per-evaluation scratch space: the values of `SUBQUERY` variables.
struct EvaluationFrame {
    var slots: [Any?]
}

typealias BoolEvaluator = (EvaluationSubject, inout EvaluationFrame) throws -> Bool
typealias ValueEvaluator = (EvaluationSubject, inout EvaluationFrame) throws -> Any?

/// A ``BoolEvaluator`` to keep in an array or an optional. A closure kept there as it is would be stored in its
/// most general form and called through two reabstraction thunks (callgrind: most of evaluating a predicate of
/// three comparisons); in a struct it is stored as it is.
struct StoredEvaluator {
    let evaluate: BoolEvaluator

    init(_ evaluate: @escaping BoolEvaluator) { self.evaluate = evaluate }
}

/// A compiled expression: a folded constant or a closure.
enum CompiledValue {
    case constant(Any?)
    case dynamic(ValueEvaluator)

    var evaluator: ValueEvaluator {
        switch self {
        case .constant(let value): { _, _ in value }
        case .dynamic(let evaluator): evaluator
        }
    }
}

/// Turns the syntax tree into a tree of closures: key paths are split once, constants are folded
/// and converted once, and common comparisons get type-specialised fast paths.
struct PredicateCompiler {
    /// Substitution values, bound as they are (objects keep their key paths).
    let substitutions: [String: Any?]
    /// SUBQUERY variables in scope, mapped to frame slots.
    private var scope: [String: Int] = [:]
    private(set) var slotCount = 0

    /// The deepest tree the compiler accepts (parsed trees are much shallower).
    static let maximumDepth = ObjectPredicate.maximumNestingDepth * 4

    init(substitutions: [String: Any?]) {
        self.substitutions = substitutions
    }

    private func checkDepth(_ depth: Int) throws {
        guard depth <= Self.maximumDepth else {
            throw ObjectPredicateError(.nestingTooDeep, "predicate tree deeper than \(Self.maximumDepth) levels")
        }
    }

    mutating func compile(_ node: ObjectPredicate.Node, depth: Int = 0) throws -> BoolEvaluator {
        try checkDepth(depth)
        switch node {
        case .true: return { _, _ in true }
        case .false: return { _, _ in false }
        case .not(let operand):
            let inner = try compile(operand, depth: depth + 1)
            return { object, frame in try !inner(object, &frame) }
        case .and(let operands), .or(let operands):
            var all = false
            if case .and = node { all = true }
            // Up to three parts are held as closures of their own, more in an array of `StoredEvaluator`s: a
            // closure kept in an array (or an optional) as it is would be stored in its most general form and
            // called through two reabstraction thunks.
            switch operands.count {
            case 0: return { _, _ in all }
            case 1: return try compile(operands[0], depth: depth + 1)
            case 2:
                let a = try compile(operands[0], depth: depth + 1)
                let b = try compile(operands[1], depth: depth + 1)
                if all { return { object, frame in try a(object, &frame) && b(object, &frame) } }
                return { object, frame in try a(object, &frame) || b(object, &frame) }
            case 3:  // common enough to spare the loop's reference counting of each part
                let a = try compile(operands[0], depth: depth + 1)
                let b = try compile(operands[1], depth: depth + 1)
                let c = try compile(operands[2], depth: depth + 1)
                if all { return { object, frame in try a(object, &frame) && b(object, &frame) && c(object, &frame) } }
                return { object, frame in try a(object, &frame) || b(object, &frame) || c(object, &frame) }
            default:
                let parts = try operands.map { StoredEvaluator(try compile($0, depth: depth + 1)) }
                return { object, frame in
                    for part in parts where try part.evaluate(object, &frame) != all { return !all }
                    return all
                }
            }
        case .comparison(let left, let op, let right, let modifier, let options):
            return try compileComparison(
                left: left, op: op, right: right, modifier: modifier, options: options, depth: depth + 1)
        }
    }

    private mutating func compileComparison(
        left: ObjectExpression, op: ComparisonOperator, right: ObjectExpression, modifier: ComparisonModifier,
        options: ComparisonOptions, depth: Int
    ) throws -> BoolEvaluator {
        let lhs = try compile(left, depth: depth + 1)
        let rhs = try compile(right, depth: depth + 1)
        let name = PredicateFormatter.format(left)
        if modifier == .direct {
            if case .constant(let constant) = rhs {
                let test = try ComparisonFastPath.make(op, constant: constant, options: options, name: name)
                if case .keyPath(let key) = left, Self.isPlainKey(key) {
                    // The most common shape, fused into one closure: `key OP constant`.
                    if !options.isFolding,
                        let fused = ComparisonFastPath.fused(key: key, op, constant: constant, slow: test)
                    {
                        return fused.evaluate
                    }
                    return { subject, _ in try test(try subject.value(forKey: key)) }
                }
                switch lhs {
                case .constant(let value):
                    let result = try test(value)
                    return { _, _ in result }
                case .dynamic(let evaluate):
                    return { object, frame in try test(try evaluate(object, &frame)) }
                }
            }
            let (l, r) = (lhs.evaluator, rhs.evaluator)
            return { object, frame in
                try ComparisonEvaluator.evaluate(
                    op, try l(object, &frame), try r(object, &frame), options: options, name: name)
            }
        }
        let elementsOf: ValueEvaluator = lhs.evaluator
        let quantify: (([Any], (Any?) throws -> Bool) throws -> Bool)
        switch modifier {
        case .any, .direct: quantify = { elements, test in try elements.contains(where: test) }
        case .all: quantify = { elements, test in try elements.allSatisfy(test) }
        case .noneOf: quantify = { elements, test in try !elements.contains(where: test) }
        }
        func elements(_ value: Any?) -> [Any] {
            let value = ValueSemantics.normalized(value)
            return ValueSemantics.collection(value) ?? (value.map { [$0] } ?? [])
        }
        if case .constant(let constant) = rhs {
            let test = try ComparisonFastPath.make(op, constant: constant, options: options, name: name)
            return { object, frame in try quantify(elements(try elementsOf(object, &frame)), test) }
        }
        let r = rhs.evaluator
        return { object, frame in
            let values = elements(try elementsOf(object, &frame))
            let right = try r(object, &frame)
            return try quantify(values) { element in
                try ComparisonEvaluator.evaluate(op, element, right, options: options, name: name)
            }
        }
    }

    mutating func compile(_ expression: ObjectExpression, depth: Int) throws -> CompiledValue {
        try checkDepth(depth)
        switch expression {
        case .constant(let value):
            return .constant(value.runtimeValue)
        case .evaluatedObject:
            return .dynamic { object, _ in object.value }
        case .keyPath(let path):
            return .dynamic(Self.keyPathEvaluator(path, base: nil))
        case .member(let base, let path):
            let compiledBase = try compile(base, depth: depth + 1)
            if case .constant(let value) = compiledBase {
                return .constant(try CompiledKeyPath(path).value(of: value))
            }
            return .dynamic(Self.keyPathEvaluator(path, base: compiledBase.evaluator))
        case .variable(let name):
            if let slot = scope[name] { return .dynamic { _, frame in frame.slots[slot] } }
            if let value = substitutions[name] { return .constant(ValueSemantics.normalized(value)) }
            throw ObjectPredicateError(
                .unboundVariable, "variable $\(name) has no value; pass it in substitutionVariables",
                variableName: name)
        case .aggregate(let items):
            let parts = try items.map { try compile($0, depth: depth + 1) }
            let evaluators = parts.map(\.evaluator)
            return .dynamic { object, frame in
                try evaluators.map { try $0(object, &frame) ?? NSNull() } as [Any]
            }
        case .index(let base, let index):
            return try compileIndex(base, index, depth: depth + 1)
        case .function(let name, let arguments):
            let parts = try arguments.map { try compile($0, depth: depth + 1) }
            if name != "now", parts.allSatisfy({ if case .constant = $0 { true } else { false } }) {
                let values = parts.map { part -> Any? in
                    if case .constant(let v) = part { return v }
                    return nil
                }
                return .constant(try FunctionEvaluator.call(name, values))
            }
            let evaluators = parts.map(\.evaluator)
            return .dynamic { object, frame in
                try FunctionEvaluator.call(name, try evaluators.map { try $0(object, &frame) })
            }
        case .subquery(let collection, let variable, let predicate):
            let source = try compile(collection, depth: depth + 1).evaluator
            let slot = slotCount
            slotCount += 1
            let saved = scope[variable]
            scope[variable] = slot
            let test = try compile(predicate, depth: depth + 1)
            scope[variable] = saved
            return .dynamic { object, frame in
                let value = ValueSemantics.normalized(try source(object, &frame))
                let elements = ValueSemantics.collection(value) ?? (value.map { [$0] } ?? [])
                var result: [Any] = []
                for element in elements {
                    frame.slots[slot] = element
                    if try test(EvaluationSubject(element), &frame) { result.append(element) }
                }
                return result
            }
        case .arithmetic(let op, let left, let right):
            let l = try compile(left, depth: depth + 1)
            let r = try compile(right, depth: depth + 1)
            if case .constant(let a) = l, case .constant(let b) = r {
                return .constant(try FunctionEvaluator.arithmetic(op, a, b))
            }
            let (le, re) = (l.evaluator, r.evaluator)
            return .dynamic { object, frame in
                try FunctionEvaluator.arithmetic(op, try le(object, &frame), try re(object, &frame))
            }
        case .negate(let operand):
            let compiled = try compile(operand, depth: depth + 1)
            if case .constant(let value) = compiled { return .constant(try FunctionEvaluator.negate(value)) }
            let evaluate = compiled.evaluator
            return .dynamic { object, frame in try FunctionEvaluator.negate(try evaluate(object, &frame)) }
        case .cast(let operand, let type):
            let compiled = try compile(operand, depth: depth + 1)
            if case .constant(let value) = compiled { return .constant(try CastConversion.convert(value, to: type)) }
            let evaluate = compiled.evaluator
            return .dynamic { object, frame in try CastConversion.convert(try evaluate(object, &frame), to: type) }
        }
    }

    private mutating func compileIndex(_ base: ObjectExpression, _ index: ObjectExpression.Index, depth: Int) throws
        -> CompiledValue
    {
        let source = try compile(base, depth: depth).evaluator
        var position: ValueEvaluator?
        if case .position(let expression) = index { position = try compile(expression, depth: depth).evaluator }
        return .dynamic { object, frame in
            let value = try source(object, &frame)
            let key = try position?(object, &frame)
            return try FunctionEvaluator.index(value, index, key: key)
        }
    }

    /// A closure reading `path` from the object (or from `base`'s value), with single-key and plain-key fast paths.
    static func keyPathEvaluator(_ path: String, base: ValueEvaluator?) -> ValueEvaluator {
        let components = ObjectExpression.keyPathComponents(path)
        var keys: [String] = []
        for component in components {
            guard case .key(let key) = component else { keys = []; break }
            keys.append(key)
        }
        if keys.count == components.count {
            if keys.count == 1 {
                let key = keys[0]
                if let base {
                    return { object, frame in try KeyValueAccess.value(forKey: key, of: try base(object, &frame)) }
                }
                return { object, _ in try object.value(forKey: key) }
            }
            let first = keys[0]
            let rest = Array(keys.dropFirst())
            let read: (Any?) throws -> Any? = { object in
                var current = object
                for key in rest {
                    current = try KeyValueAccess.value(forKey: key, of: current)
                    if current == nil { return nil }
                }
                return current
            }
            if let base {
                return { object, frame in
                    try read(try KeyValueAccess.value(forKey: first, of: try base(object, &frame)))
                }
            }
            return { object, _ in try read(try object.value(forKey: first)) }
        }
        let slice = components[...]
        if let base { return { object, frame in try CompiledKeyPath.evaluate(slice, of: try base(object, &frame)) } }
        return { object, _ in try CompiledKeyPath.evaluate(slice, of: object.value) }
    }
}
