/// The object a predicate is evaluated against, classified once per evaluation so that every
/// key read on `SELF` skips the dynamic casts.
struct EvaluationSubject {
    private enum Kind {
        case dictionary([String: Any])
        case evaluable(any PredicateEvaluable)
        case other
    }

    /// The object itself.
    let value: Any?
    private let kind: Kind

    @inline(__always)
    init(_ value: Any?) {
        self.value = value
        if let dictionary = value as? [String: Any] {
            kind = .dictionary(dictionary)
        } else if let evaluable = value as? any PredicateEvaluable {
            kind = .evaluable(evaluable)
        } else {
            kind = .other
        }
    }

    @inline(__always)
    init(evaluable: any PredicateEvaluable) {
        self.value = evaluable
        kind = .evaluable(evaluable)
    }

    /// The value for one key of the object; see ``KeyValueAccess/value(forKey:of:)``.
    @inline(__always)
    func value(forKey key: String) throws -> Any? {
        switch kind {
        case .dictionary(let dictionary): return dictionary[key]
        case .evaluable(let evaluable): return try evaluable.predicateValue(forKey: key)
        case .other: return try KeyValueAccess.value(forKey: key, of: value)
        }
    }
}
