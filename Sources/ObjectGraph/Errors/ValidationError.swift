import Foundation

/// A managed object failed validation, or several did (``Code/multipleErrors``, with ``errors``).
///
/// `save()` validates every inserted, updated and deleted object and throws one `ValidationError` that lists
/// all failures. Compare errors by ``code``; messages use the model's localization dictionary for property names.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case multipleErrors, missingMandatoryProperty, relationshipLacksMinimumCount
            case relationshipExceedsMaximumCount, relationshipDeniedDelete, numberTooSmall, numberTooLarge
            case dateTooSoon, dateTooLate, invalidDate, stringTooShort, stringTooLong, stringPatternMismatch
            case predicateFailed, wrongType, unknownKey, custom
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Several objects or properties failed; see ``ValidationError/errors``.
        public static let multipleErrors = Code(.multipleErrors)
        /// A non-optional property has no value.
        public static let missingMandatoryProperty = Code(.missingMandatoryProperty)
        /// A to-many relationship has fewer objects than its minimum count.
        public static let relationshipLacksMinimumCount = Code(.relationshipLacksMinimumCount)
        /// A to-many relationship has more objects than its maximum count.
        public static let relationshipExceedsMaximumCount = Code(.relationshipExceedsMaximumCount)
        /// A deleted object still has objects in a relationship whose delete rule is deny.
        public static let relationshipDeniedDelete = Code(.relationshipDeniedDelete)
        /// A number is below the attribute's minimum.
        public static let numberTooSmall = Code(.numberTooSmall)
        /// A number is above the attribute's maximum.
        public static let numberTooLarge = Code(.numberTooLarge)
        /// A date is before the attribute's minimum.
        public static let dateTooSoon = Code(.dateTooSoon)
        /// A date is after the attribute's maximum.
        public static let dateTooLate = Code(.dateTooLate)
        /// A string is shorter than the attribute's minimum length.
        public static let stringTooShort = Code(.stringTooShort)
        /// A string is longer than the attribute's maximum length.
        public static let stringTooLong = Code(.stringTooLong)
        /// A string does not match the attribute's regular expression.
        public static let stringPatternMismatch = Code(.stringPatternMismatch)
        /// A validation predicate of the property evaluated to false.
        public static let predicateFailed = Code(.predicateFailed)
        /// A value does not have the attribute's type.
        public static let wrongType = Code(.wrongType)
        /// The entity has no property with that name.
        public static let unknownKey = Code(.unknownKey)
        /// A failure raised by a subclass's own validation method.
        public static let custom = Code(.custom)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong and how to fix it, with localized property names.
    public var message: String
    /// The entity, key and object that failed.
    public var context: ErrorContext
    /// For ``Code/multipleErrors``: every single failure, in a deterministic order.
    public var errors: [ValidationError]

    /// Creates an error.
    public init(code: Code, message: String, context: ErrorContext = ErrorContext(), errors: [ValidationError] = []) {
        self.code = code
        self.message = message
        self.context = context
        self.errors = errors
    }

    /// Combines several failures into one error: the single failure itself, or a ``Code/multipleErrors`` error.
    public static func combining(_ errors: [ValidationError]) -> ValidationError? {
        if errors.count <= 1 { return errors.first }
        let lines = errors.map(\.message).joined(separator: "; ")
        return ValidationError(code: .multipleErrors, message: "\(errors.count) validation errors: \(lines)",
                               errors: errors)
    }

    /// Every single failure: ``errors`` for a multiple-errors value, else this error alone.
    public var allErrors: [ValidationError] { code == .multipleErrors ? errors : [self] }

    public static func == (lhs: ValidationError, rhs: ValidationError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let where_ = context.description
        return "ValidationError(\(code)): \(message)" + (where_.isEmpty ? "" : " [\(where_)]")
    }
}
