/// An error reading a schedule file.
///
/// Shaped like SwiftNIO's `FileSystemError`: a stable ``code`` that tests and callers switch on, a
/// ``message`` that says what is wrong and how to fix it, the 1-based ``line`` when it is known and the
/// ``source`` name passed to the reader. Two errors are equal when their codes are equal.
public struct ScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error category. New codes may be added in minor releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable {
            case notWellFormed, unsupportedFormat, missingElement, invalidDate, invalidDuration
            case invalidTimeZone, invalidRecurrence, tooLarge, tooDeeplyNested, invalidEncoding
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The bytes are not well-formed XML, JSON or iCalendar (unbalanced tags, a stray byte before the
        /// XML declaration, an unterminated string, `BEGIN` without `END`…).
        public static let notWellFormed = Code(.notWellFormed)
        /// The content is none of the supported formats, or a version of one that is not supported.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A required element, key or property is absent (such as an event without a start).
        public static let missingElement = Code(.missingElement)
        /// A date or time cannot be parsed or does not exist.
        public static let invalidDate = Code(.invalidDate)
        /// A duration cannot be parsed or is negative.
        public static let invalidDuration = Code(.invalidDuration)
        /// A time zone name is unknown and no fallback applies.
        public static let invalidTimeZone = Code(.invalidTimeZone)
        /// An `RRULE` cannot be parsed.
        public static let invalidRecurrence = Code(.invalidRecurrence)
        /// The input exceeds ``ScheduleReaderLimits`` (bytes, sessions…).
        public static let tooLarge = Code(.tooLarge)
        /// The input nests deeper than ``ScheduleReaderLimits/maxNestingDepth``.
        public static let tooDeeplyNested = Code(.tooDeeplyNested)
        /// The text is not valid UTF-8 (or another declared encoding).
        public static let invalidEncoding = Code(.invalidEncoding)

        /// The code's name, such as `notWellFormed`.
        public var description: String { wrapped.rawValue }
    }

    /// The stable category of the error.
    public var code: Code
    /// What is wrong and how to fix it; does not quote the file's content.
    public var message: String
    /// The 1-based line of the input where the problem was found, when known.
    public var line: Int?
    /// The source name passed to the reader (file name or URL).
    public var source: String

    /// Creates an error.
    public init(code: Code, message: String, line: Int? = nil, source: String) {
        self.code = code
        self.message = message
        self.line = line
        self.source = source
    }

    /// `source:line: code: message`.
    public var description: String {
        var text = source
        if let line { text += ":\(line)" }
        return text + ": \(code): \(message)"
    }

    /// Compares codes only.
    public static func == (lhs: ScheduleError, rhs: ScheduleError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
