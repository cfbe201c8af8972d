import Synchronization

/// A predicate over objects, written in Apple's predicate format syntax or built in code.
///
/// ```swift
/// let adults = try ObjectPredicate(format: "age >= %d AND ANY pets.species == %@", 18, "dog")
/// let matches = try adults.evaluate(with: person)
/// ```
///
/// Equality and hashing compare the syntax tree (``node``) only. The first evaluation compiles the
/// tree into closures and caches them, so later evaluations do not re-parse or re-dispatch; the
/// cache is thread-safe, so a predicate can be shared between tasks. See the *Predicate Syntax* article.
public struct ObjectPredicate: Sendable, Hashable, CustomStringConvertible {
    /// The longest accepted format string, in UTF-8 bytes (64 KiB).
    public static let maximumFormatLength = 65_536
    /// The deepest nesting of parentheses, operators and sub-expressions the parser accepts.
    public static let maximumNestingDepth = 256

    /// The syntax tree; pattern-match it to translate the predicate (for example to SQL).
    public let node: Node
    private let cache: CompiledCache

    /// Holds the compiled form, set once; compared and hashed by nobody.
    ///
    /// The reference is kept as the bits of a retained pointer in an `Atomic<UInt>` rather than in an
    /// `AtomicLazyReference`: that generic type's `load()` is not specialized here, so every evaluation paid a
    /// metadata lookup, a retain and a release, about a tenth of evaluating a three-comparison predicate.
    private final class CompiledCache: Sendable {
        private let bits = Atomic<UInt>(0)

        /// Calls `body` with the compiled form, made by `make` the first time (if two threads race, one result is
        /// kept and the other dropped). The form is never replaced, so `body` borrows it without retaining.
        @inline(__always)
        func withCompiled<Result>(make: () throws -> CompiledPredicate,
                                  _ body: (CompiledPredicate) throws -> Result) throws -> Result {
            var current = bits.load(ordering: .acquiring)
            if current == 0 {
                let made = UInt(bitPattern: Unmanaged.passRetained(try make()).toOpaque())
                let (exchanged, original) = bits.compareExchange(expected: 0, desired: made,
                                                                 ordering: .acquiringAndReleasing)
                if exchanged {
                    current = made
                } else {
                    Self.unmanaged(made).release()
                    current = original
                }
            }
            return try Self.unmanaged(current)._withUnsafeGuaranteedRef(body)
        }

        private static func unmanaged(_ bits: UInt) -> Unmanaged<CompiledPredicate> {
            Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
        }

        deinit {
            let current = bits.load(ordering: .acquiring)
            if current != 0 { Self.unmanaged(current).release() }
        }
    }

    /// Wraps a syntax tree.
    /// - Parameter node: The tree, for example from a store or built by hand.
    public init(_ node: Node) {
        self.node = node
        self.cache = CompiledCache()
    }

    /// Parses a format string, substituting `%@`, `%K`, `%d`, `%f`, `%s` … from `arguments` in order.
    /// - Throws: ``ObjectPredicateError`` for syntax errors (with offset, line and column), a missing or extra
    ///   argument, an unsupported argument type, an invalid regular expression in `MATCHES`, input longer than
    ///   ``maximumFormatLength`` or nesting deeper than ``maximumNestingDepth``.
    /// - Complexity: O(n) in the length of the format.
    public init(format: String, _ arguments: Any?...) throws {
        self.init(try Parser.parsePredicate(format, arguments: arguments))
    }

    /// Parses a format string with its arguments passed as an array; see ``init(format:_:)``.
    public init(format: String, argumentArray: [Any?]) throws {
        self.init(try Parser.parsePredicate(format, arguments: argumentArray))
    }

    /// `TRUEPREDICATE`: matches everything.
    public static let `true` = ObjectPredicate(.true)
    /// `FALSEPREDICATE`: matches nothing.
    public static let `false` = ObjectPredicate(.false)
    /// Same as ``true``.
    public static var truePredicate: ObjectPredicate { .true }
    /// Same as ``false``.
    public static var falsePredicate: ObjectPredicate { .false }

    /// Equal when the syntax trees are equal.
    public static func == (lhs: ObjectPredicate, rhs: ObjectPredicate) -> Bool { lhs.node == rhs.node }

    /// Hashes the syntax tree.
    public func hash(into hasher: inout Hasher) { hasher.combine(node) }

    /// The canonical format; see ``predicateFormat``.
    public var description: String { predicateFormat }

    /// The canonical text of the predicate, in Apple's description style (`name BEGINSWITH[c] "a"`,
    /// `start < CAST(626614800.000000, "NSDate")`). Parsing it gives back an equal predicate, except
    /// for identity constants (`%@` objects), which print as a `CAST(…, "ObjectIdentity")` that does not parse.
    public var predicateFormat: String { PredicateFormatter.format(node) }

    // MARK: - Evaluation

    /// The compiled form, built on first use and cached.
    /// - Throws: ``ObjectPredicateError/Code/unboundVariable`` when the predicate has `$variables` (use
    ///   ``compiled(substitutionVariables:)``), or a ``ObjectPredicateError/Code/typeMismatch`` found while folding constants.
    public func compiled() throws -> CompiledPredicate {
        try cache.withCompiled(make: makeCompiled) { $0 }
    }

    private func makeCompiled() throws -> CompiledPredicate {
        try CompiledPredicate(node: node, substitutions: [:])
    }

    /// A compiled form with `variables` bound (values are used as they are, so objects keep their key paths).
    /// Not cached: keep the result while evaluating many objects.
    public func compiled(substitutionVariables variables: [String: Any?]) throws -> CompiledPredicate {
        try CompiledPredicate(node: node, substitutions: variables)
    }

    /// Evaluates the predicate against an object, dictionary, collection or value.
    /// - Throws: ``ObjectPredicateError`` (``ObjectPredicateError/Code/unboundVariable``, ``ObjectPredicateError/Code/unknownKey``,
    ///   ``ObjectPredicateError/Code/toManyKeyPathWithoutAggregate``, ``ObjectPredicateError/Code/typeMismatch`` …) or any
    ///   error thrown by a ``PredicateEvaluable`` conformer.
    public func evaluate(with object: Any?) throws -> Bool {
        try cache.withCompiled(make: makeCompiled) { try $0.evaluate(with: object) }
    }

    /// Evaluates the predicate against a ``PredicateEvaluable`` without a dynamic cast; prefer this
    /// overload in loops over managed objects or snapshots.
    /// - Throws: As ``evaluate(with:)-(Any?)``.
    public func evaluate<Object: PredicateEvaluable>(with object: Object) throws -> Bool {
        try cache.withCompiled(make: makeCompiled) { try $0.evaluate(with: object) }
    }

    /// Evaluates the predicate against a dictionary (keys are read from it) without a dynamic cast; prefer this
    /// overload in loops over dictionaries.
    /// - Throws: As ``evaluate(with:)-(Any?)``.
    public func evaluate(with dictionary: [String: Any]) throws -> Bool {
        try cache.withCompiled(make: makeCompiled) { try $0.evaluate(with: dictionary) }
    }

    /// Evaluates with `$variables` bound to `substitutionVariables`; compiles on every call.
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?]) throws -> Bool {
        if substitutionVariables.isEmpty { return try evaluate(with: object) }
        return try compiled(substitutionVariables: substitutionVariables).evaluate(with: object)
    }

    /// The elements of `objects` the predicate matches, in order.
    public func filter<S: Sequence>(_ objects: S) throws -> [S.Element] {
        let compiled = try compiled()
        return try objects.filter { try compiled.evaluate(with: $0) }
    }
}

/// A predicate compiled to a tree of closures, ready to evaluate many objects quickly.
///
/// Immutable and thread-safe: each evaluation uses its own scratch frame.
public final class CompiledPredicate: @unchecked Sendable {
    // @unchecked: the closures capture only immutable values built during compilation.
    private let root: BoolEvaluator
    private let slotCount: Int

    init(node: ObjectPredicate.Node, substitutions: [String: Any?]) throws {
        var compiler = PredicateCompiler(substitutions: substitutions)
        root = try compiler.compile(node)
        slotCount = compiler.slotCount
    }

    /// Evaluates against one object; see `ObjectPredicate/evaluate(with:)`.
    @inline(__always)
    public func evaluate(with object: Any?) throws -> Bool {
        var frame = EvaluationFrame(slots: slotCount == 0 ? [] : Array(repeating: nil, count: slotCount))
        return try root(EvaluationSubject(object), &frame)
    }

    /// Evaluates against a dictionary without a dynamic cast.
    @inline(__always)
    public func evaluate(with dictionary: [String: Any]) throws -> Bool {
        var frame = EvaluationFrame(slots: slotCount == 0 ? [] : Array(repeating: nil, count: slotCount))
        return try root(EvaluationSubject(dictionary: dictionary), &frame)
    }

    /// Evaluates against a ``PredicateEvaluable`` without a dynamic cast.
    @inline(__always)
    public func evaluate<Object: PredicateEvaluable>(with object: Object) throws -> Bool {
        var frame = EvaluationFrame(slots: slotCount == 0 ? [] : Array(repeating: nil, count: slotCount))
        return try root(EvaluationSubject(evaluable: object), &frame)
    }
}
