/// An error thrown while parsing, substituting or evaluating an ``ObjectPredicate`` or ``ObjectExpression``.
///
/// Shaped like SwiftNIO's `FileSystemError`: a stable ``code`` that tests compare, a human-readable
/// ``message``, and context such as the UTF-8 ``offset``, ``line`` and ``column`` of a syntax error.
/// Two errors are equal when their codes are equal; the message and context are ignored.
public struct ObjectPredicateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of error. New codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case syntaxError, unexpectedToken, unterminatedString, invalidEscape, invalidNumber
            case missingArgument, extraArgument, unsupportedArgument, unsupportedFormatSpecifier
            case unknownFunction, unboundVariable, unknownKey, toManyKeyPathWithoutAggregate
            case typeMismatch, invalidRegularExpression, nestingTooDeep, inputTooLong, invalidCast
            case invalidArgument
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The code's name, for example `unexpectedToken`.
        public var description: String { wrapped.rawValue }

        /// The format string is not valid predicate syntax.
        public static let syntaxError = Code(.syntaxError)
        /// The parser met a token that cannot appear at this position; see ``ObjectPredicateError/expected``.
        public static let unexpectedToken = Code(.unexpectedToken)
        /// A quoted string literal has no closing quote.
        public static let unterminatedString = Code(.unterminatedString)
        /// A backslash escape in a string literal is not one of `\n \t \r \0 \" \' \\ \uXXXX`.
        public static let invalidEscape = Code(.invalidEscape)
        /// A numeric literal is malformed (for example `0x` or `1e`).
        public static let invalidNumber = Code(.invalidNumber)
        /// A format specifier (`%@`, `%K`, `%d` …) has no matching argument.
        public static let missingArgument = Code(.missingArgument)
        /// More arguments were passed than the format string has specifiers.
        public static let extraArgument = Code(.extraArgument)
        /// An argument's type cannot become a predicate constant (or `%K` got a non-string).
        public static let unsupportedArgument = Code(.unsupportedArgument)
        /// A `%` specifier other than `%@ %K %d %i %ld %lld %u %lu %f %lf %s %%`.
        public static let unsupportedFormatSpecifier = Code(.unsupportedFormatSpecifier)
        /// A function call names a function the language does not define.
        public static let unknownFunction = Code(.unknownFunction)
        /// A `$variable` has no value; ``ObjectPredicateError/variableName`` names it.
        public static let unboundVariable = Code(.unboundVariable)
        /// An evaluated object does not have the key; ``ObjectPredicateError/key`` names it.
        public static let unknownKey = Code(.unknownKey)
        /// A to-many key path was compared as a scalar; use `ANY`, `ALL`, `NONE` or an aggregate (`@count` …).
        public static let toManyKeyPathWithoutAggregate = Code(.toManyKeyPathWithoutAggregate)
        /// An operator or function received a value of a type it does not accept.
        public static let typeMismatch = Code(.typeMismatch)
        /// A `MATCHES` pattern is not a valid ICU regular expression.
        public static let invalidRegularExpression = Code(.invalidRegularExpression)
        /// Parentheses, operators or the expression tree nest deeper than ``ObjectPredicate/maximumNestingDepth``.
        public static let nestingTooDeep = Code(.nestingTooDeep)
        /// The format string is longer than ``ObjectPredicate/maximumFormatLength`` UTF-8 bytes.
        public static let inputTooLong = Code(.inputTooLong)
        /// A `CAST` names an unsupported type, or the value cannot be converted to it.
        public static let invalidCast = Code(.invalidCast)
        /// A function or index received an argument value it cannot use (wrong count, out of range).
        public static let invalidArgument = Code(.invalidArgument)
    }

    /// The kind of error; compare this in tests.
    public var code: Code
    /// What went wrong and, where possible, how to fix it. Never contains attribute values.
    public var message: String
    /// The UTF-8 byte offset into the format string where the problem was found, for parse errors.
    public var offset: Int?
    /// The 1-based line of ``offset``.
    public var line: Int?
    /// The 1-based column (in UTF-8 bytes) of ``offset``.
    public var column: Int?
    /// A description of what the parser expected instead, for ``Code/unexpectedToken``.
    public var expected: String?
    /// The variable concerned, for ``Code/unboundVariable``.
    public var variableName: String?
    /// The key concerned, for ``Code/unknownKey`` and ``Code/toManyKeyPathWithoutAggregate``.
    public var key: String?
    /// The source line containing ``offset``, used for the caret excerpt in ``description``.
    public var sourceLine: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The error code.
    ///   - message: A human-readable explanation.
    ///   - offset: The UTF-8 byte offset in the format string, if the error comes from parsing.
    ///   - expected: What the parser expected, if anything.
    ///   - variableName: The variable concerned, if any.
    ///   - key: The key concerned, if any.
    public init(
        _ code: Code, _ message: String, offset: Int? = nil, expected: String? = nil,
        variableName: String? = nil, key: String? = nil
    ) {
        self.code = code
        self.message = message
        self.offset = offset
        self.expected = expected
        self.variableName = variableName
        self.key = key
    }

    /// Compares codes only, so tests assert the kind of error and not its wording.
    public static func == (lhs: ObjectPredicateError, rhs: ObjectPredicateError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// One line (`code: message (line L, column C)`), followed for parse errors by the offending
    /// source line and a caret under the column.
    public var description: String {
        var text = "\(code): \(message)"
        if let line, let column { text += " (line \(line), column \(column))" }
        if let expected { text += "; expected \(expected)" }
        if let sourceLine, let column {
            // Keep the excerpt short: at most 60 bytes either side of the caret.
            let bytes = Array(sourceLine.utf8)
            let caret = max(0, min(column - 1, bytes.count))
            let start = max(0, caret - 60)
            let end = min(bytes.count, caret + 60)
            let excerpt = String(decoding: bytes[start..<end], as: UTF8.self)
            let prefix = start > 0 ? "…" : ""
            text +=
                "\n    \(prefix)\(excerpt)\n    \(String(repeating: " ", count: caret - start + (start > 0 ? 1 : 0)))^"
        }
        return text
    }

    /// Fills ``line``, ``column`` and ``sourceLine`` from ``offset`` and the format string.
    func locating(in source: [UInt8]) -> ObjectPredicateError {
        guard let offset else { return self }
        var copy = self
        let clamped = min(max(0, offset), source.count)
        var line = 1
        var lineStart = 0
        for index in 0..<clamped where source[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var lineEnd = clamped
        while lineEnd < source.count, source[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
        copy.line = line
        copy.column = clamped - lineStart + 1
        copy.sourceLine = String(decoding: source[lineStart..<lineEnd], as: UTF8.self)
        return copy
    }
}
