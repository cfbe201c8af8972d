// TEMPORARY stand-in until the predicate language lands; replaced wholesale.
import Foundation

public protocol PredicateEvaluable {
    func predicateValue(forKey key: String) throws -> Any?
    var predicateIdentity: (any Hashable & Sendable)? { get }
}

extension PredicateEvaluable {
    public var predicateIdentity: (any Hashable & Sendable)? { nil }
}

public struct PredicateError: Error, Hashable, Sendable {
    public var message: String
}

public struct ObjectPredicate: Sendable, Hashable, CustomStringConvertible {
    let id = UUID()
    let block: @Sendable (Any?) throws -> Bool
    public init(block: @escaping @Sendable (Any?) throws -> Bool) { self.block = block }
    public init(format: String, _ arguments: Any?...) throws { throw PredicateError(message: "stub") }
    public init(format: String, argumentArray: [Any?]) throws { throw PredicateError(message: "stub") }
    public func evaluate(with object: Any?) throws -> Bool { try block(object) }
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws -> ObjectPredicate { self }
    public var referencedVariables: Set<String> { [] }
    public var predicateFormat: String { "BLOCK" }
    public var description: String { predicateFormat }
    public static func == (l: Self, r: Self) -> Bool { l.id == r.id }
    public func hash(into h: inout Hasher) { h.combine(id) }
}

public struct SortKey: Sendable, Hashable {
    public enum Comparison: Sendable, Hashable { case compare, caseInsensitive, localizedStandard }
    public var keyPath: String
    public var ascending: Bool
    public var comparison: Comparison
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .compare) {
        self.keyPath = keyPath; self.ascending = ascending; self.comparison = comparison
    }
    public func compare(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        let r: ComparisonResult
        switch (lhs, rhs) {
        case (nil, nil): r = .orderedSame
        case (nil, _): r = .orderedAscending
        case (_, nil): r = .orderedDescending
        case let (a as String, b as String): r = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        case let (a as Int, b as Int): r = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        case let (a as Date, b as Date): r = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        default: r = .orderedSame
        }
        if ascending { return r }
        return r == .orderedAscending ? .orderedDescending : r == .orderedDescending ? .orderedAscending : r
    }
}

public enum ObjectExpression {
    public static func value(atKeyPath path: String, of object: Any?) throws -> Any? {
        var current: Any? = object
        for part in path.split(separator: ".") {
            guard let c = current else { return nil }
            if let e = c as? PredicateEvaluable { current = try e.predicateValue(forKey: String(part)) }
            else if let d = c as? [String: Any] { current = d[String(part)] }
            else { return nil }
        }
        return current
    }
}
