/// An error raised while reading or writing XML.
///
/// Shaped like SwiftNIO's `FileSystemError`: a stable ``code`` to switch on, a ``message`` that says what went
/// wrong and how to fix it, and where it happened (``fileName``, ``line``, ``column``). Two errors are equal when
/// their codes are equal, so tests can assert codes rather than wording.
public struct XMLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure happened.
    public var code: Code
    /// A human-readable explanation: what went wrong and how to fix it.
    public var message: String
    /// The name of the document (file name or URL) if one was given, else `nil`.
    public var fileName: String?
    /// The 1-based line of the failure, or 0 when unknown.
    public var line: Int
    /// The 1-based column of the failure, or 0 when unknown.
    public var column: Int

    /// Creates an error.
    public init(code: Code, message: String, fileName: String? = nil, line: Int = 0, column: Int = 0) {
        self.code = code
        self.message = message
        self.fileName = fileName
        self.line = line
        self.column = column
    }

    /// Compares codes only.
    public static func == (lhs: XMLError, rhs: XMLError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// `name:line:column: code: message`, omitting the parts that are unknown.
    public var description: String {
        var location = fileName ?? ""
        if line > 0 {
            location += location.isEmpty ? "line \(line)" : ":\(line)"
            if column > 0 { location += ":\(column)" }
        }
        return location.isEmpty ? "\(code): \(message)" : "\(location): \(code): \(message)"
    }
}

extension XMLError {
    /// A stable error code. New codes may be added; switch with a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case notWellFormed
            case entityDeclarationForbidden
            case externalEntity
            case tooDeep
            case tooLarge
            case textTooLong
            case invalidEncoding
            case emptyDocument
            case io
            case invalidCharacter
            case invalidName
            case unbalancedWriter
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The document breaks an XML well-formedness rule (unclosed tag, stray text before the declaration, …).
        public static let notWellFormed = Code(.notWellFormed)
        /// The document declares or references a non-predefined entity. Entities are refused to rule out
        /// "billion laughs" expansion attacks; use character references (`&#x41;`) instead.
        public static let entityDeclarationForbidden = Code(.entityDeclarationForbidden)
        /// The document asks to load an external resource (external entity or DTD). Nothing is ever fetched.
        public static let externalEntity = Code(.externalEntity)
        /// Elements are nested deeper than ``XMLLimits/maxDepth``.
        public static let tooDeep = Code(.tooDeep)
        /// The document is larger than ``XMLLimits/maxBytes``.
        public static let tooLarge = Code(.tooLarge)
        /// A text node is longer than ``XMLLimits/maxTextLength``.
        public static let textTooLong = Code(.textTooLong)
        /// The bytes are not valid in the document's encoding (for example invalid UTF-8).
        public static let invalidEncoding = Code(.invalidEncoding)
        /// The document has no root element.
        public static let emptyDocument = Code(.emptyDocument)
        /// The document could not be read from or written to the file system.
        public static let io = Code(.io)
        /// The writer was given a character that XML 1.0 cannot represent (for example U+0001).
        public static let invalidCharacter = Code(.invalidCharacter)
        /// The writer was given an element or attribute name that is not a valid XML name.
        public static let invalidName = Code(.invalidName)
        /// The writer was asked to close an element that is not open, or to finish with elements still open.
        public static let unbalancedWriter = Code(.unbalancedWriter)

        public var description: String {
            switch value {
            case .notWellFormed: "notWellFormed"
            case .entityDeclarationForbidden: "entityDeclarationForbidden"
            case .externalEntity: "externalEntity"
            case .tooDeep: "tooDeep"
            case .tooLarge: "tooLarge"
            case .textTooLong: "textTooLong"
            case .invalidEncoding: "invalidEncoding"
            case .emptyDocument: "emptyDocument"
            case .io: "io"
            case .invalidCharacter: "invalidCharacter"
            case .invalidName: "invalidName"
            case .unbalancedWriter: "unbalancedWriter"
            }
        }
    }
}
