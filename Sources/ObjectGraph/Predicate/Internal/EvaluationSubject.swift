/// The object a predicate is evaluated against, classified once per evaluation so that every
/// key read on `SELF` skips the dynamic casts.
struct EvaluationSubject {
    /// The object itself.
    let value: Any?
    // Kept apart rather than in one enum: reading a key borrows the dictionary, where matching an enum case copied
    // the case's payload (a retain per key read).
    private let dictionary: [String: Any]?
    private let evaluable: (any PredicateEvaluable)?

    @inline(__always)
    init(_ value: Any?) {
        self.value = value
        if let dictionary = value as? [String: Any] {
            self.dictionary = dictionary
            evaluable = nil
        } else {
            dictionary = nil
            evaluable = value as? any PredicateEvaluable
        }
    }

    @inline(__always)
    init(dictionary: [String: Any]) {
        self.value = dictionary
        self.dictionary = dictionary
        evaluable = nil
    }

    @inline(__always)
    init(evaluable: any PredicateEvaluable) {
        self.value = evaluable
        dictionary = nil
        self.evaluable = evaluable
    }

    /// The value for one key of the object; see ``KeyValueAccess/value(forKey:of:)``.
    @inline(__always)
    func value(forKey key: String) throws -> Any? {
        if dictionary != nil { return dictionary?[key] ?? nil }
        if let evaluable { return try evaluable.predicateValue(forKey: key) }
        return try KeyValueAccess.value(forKey: key, of: value)
    }
}
