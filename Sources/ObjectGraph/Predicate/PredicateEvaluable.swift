/// Anything a predicate or key path can be evaluated against (managed objects, daemon value snapshots).
///
/// Dictionaries (`[String: Any]`, `[String: Any?]`), arrays and sets are handled by the evaluator
/// without conforming; conform your own types to make their keys visible to predicates.
public protocol PredicateEvaluable {
    /// The value for one key (not a path). nil = no value. Throw ObjectPredicateError(code .unknownKey) for a key the object does not have.
    /// To-one relationships return the related object (itself PredicateEvaluable) or nil; to-many relationships return a Swift Array ([Any]) of related objects.
    func predicateValue(forKey key: String) throws -> Any?
    /// What `==` compares when this object meets another object or an identity value (a managed object returns its ManagedObjectID). Default implementation: nil (then only identity `===` for class instances).
    var predicateIdentity: (any Hashable & Sendable)? { get }
}

extension PredicateEvaluable {
    /// The default identity: none, so only `===` (for class instances) makes two objects equal.
    public var predicateIdentity: (any Hashable & Sendable)? { nil }
}

extension ObjectPredicateError {
    /// Makes the ``Code/unknownKey`` error that ``PredicateEvaluable`` conformers throw for a key they do not have.
    /// - Parameters:
    ///   - key: The key that was asked for.
    ///   - typeName: The name of the entity or type, used in the message.
    public static func unknownKey(_ key: String, in typeName: String) -> ObjectPredicateError {
        ObjectPredicateError(.unknownKey, "\(typeName) has no key '\(key)'", key: key)
    }
}
