import Foundation

/// An error from a migration: a mapping model that does not fit the models, an expression or policy that failed,
/// a destination that does not validate (Core Data's `NSMigration…Error` codes).
///
/// A failed migration never changes its source store; compare errors by ``code``.
public struct MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case missingSourceModel, missingMappingModel, invalidMappingModel, expressionFailed, policyNotFound
            case validationFailed, cancelled, invalidMappingFile, sourceNotFound
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No model among those given wrote the store (its metadata matches none); Core Data's
        /// `NSMigrationMissingSourceModelError`.
        public static let missingSourceModel = Code(.missingSourceModel)
        /// No mapping model leads from the store's model to the current one and none can be inferred; Core Data's
        /// `NSMigrationMissingMappingModelError`.
        public static let missingMappingModel = Code(.missingMappingModel)
        /// The mapping model names entities or properties the models lack, or cannot be inferred (a changed
        /// attribute type, a new mandatory attribute without a default); Core Data's `NSMigrationError`.
        public static let invalidMappingModel = Code(.invalidMappingModel)
        /// A value expression or a source expression of the mapping could not be evaluated.
        public static let expressionFailed = Code(.expressionFailed)
        /// An entity mapping names an `EntityMigrationPolicy` class that was never registered.
        public static let policyNotFound = Code(.policyNotFound)
        /// The migrated objects do not validate against the destination model; ``MigrationError/cause`` holds the
        /// validation error.
        public static let validationFailed = Code(.validationFailed)
        /// A policy or a handler cancelled the migration; Core Data's `NSMigrationCancelledError`.
        public static let cancelled = Code(.cancelled)
        /// An Xcode mapping model file (`.xcmappingmodel`) is missing or malformed.
        public static let invalidMappingFile = Code(.invalidMappingFile)
        /// The store to migrate does not exist.
        public static let sourceNotFound = Code(.sourceNotFound)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong and how to fix it.
    public var message: String
    /// The entity, property and store involved.
    public var context: ErrorContext
    /// The entity mapping involved, if any.
    public var entityMappingName: String?
    private var underlying: UnderlyingError?

    /// The error that caused this one, if any.
    public var cause: (any Error)? { underlying?.error }

    /// Creates an error.
    public init(
        code: Code, message: String, context: ErrorContext = ErrorContext(), entityMappingName: String? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.context = context
        self.entityMappingName = entityMappingName
        self.underlying = cause.map(UnderlyingError.init)
    }

    public static func == (lhs: MigrationError, rhs: MigrationError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        var text = "MigrationError(\(code)): \(message)"
        if let entityMappingName { text += " [mapping=\(entityMappingName)]" }
        let where_ = context.description
        if !where_.isEmpty { text += " [\(where_)]" }
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}
