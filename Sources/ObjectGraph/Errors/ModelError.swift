import Foundation

/// An error in a managed object model: building, merging, reading or using it.
///
/// Compare errors by ``code``; the ``message`` is for people and may change.
public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case duplicateEntity, unknownEntity, unknownConfiguration, unknownTemplate, missingVariable
            case invalidInheritance, invalidInverse, unknownDestination, invalidModelFile, incompatibleModel
            case unknownProperty, invalidDerivation
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Two entities share a name (for example when merging models).
        public static let duplicateEntity = Code(.duplicateEntity)
        /// No entity has the given name.
        public static let unknownEntity = Code(.unknownEntity)
        /// No property of the entity has the given name.
        public static let unknownProperty = Code(.unknownProperty)
        /// No configuration has the given name.
        public static let unknownConfiguration = Code(.unknownConfiguration)
        /// No fetch request template has the given name.
        public static let unknownTemplate = Code(.unknownTemplate)
        /// A fetch request template needs a substitution variable that was not given.
        public static let missingVariable = Code(.missingVariable)
        /// An entity inherits from itself or from an entity outside the model.
        public static let invalidInheritance = Code(.invalidInheritance)
        /// A relationship's inverse does not point back at it.
        public static let invalidInverse = Code(.invalidInverse)
        /// A relationship names a destination entity that the model lacks.
        public static let unknownDestination = Code(.unknownDestination)
        /// A model file could not be read.
        public static let invalidModelFile = Code(.invalidModelFile)
        /// A store was written with a different model.
        public static let incompatibleModel = Code(.incompatibleModel)
        /// A derived attribute's ``DerivedAttributeDescription/derivationExpression`` is missing, of a form
        /// derived attributes do not support, or names a key the entity cannot reach.
        public static let invalidDerivation = Code(.invalidDerivation)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong and how to fix it.
    public var message: String
    /// The entity, property or store involved.
    public var context: ErrorContext
    /// The name of the missing variable, for ``Code/missingVariable``.
    public var variableNames: [String]
    private var underlying: UnderlyingError?

    /// The error that caused this one, if any.
    public var cause: (any Error)? { underlying?.error }

    /// Creates an error.
    public init(code: Code, message: String, context: ErrorContext = ErrorContext(), variableNames: [String] = [],
                cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.context = context
        self.variableNames = variableNames
        self.underlying = cause.map(UnderlyingError.init)
    }

    public static func == (lhs: ModelError, rhs: ModelError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let where_ = context.description
        return "ModelError(\(code)): \(message)" + (where_.isEmpty ? "" : " [\(where_)]")
    }
}
