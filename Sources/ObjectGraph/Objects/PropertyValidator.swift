import Foundation

/// Applies a model's validation rules to one value of one property of an object of an entity.
///
/// Messages name the property through the model's localization dictionary and never include the value itself.
struct PropertyValidator {
    let entity: EntityDescription
    /// The object the value belongs to, for errors' context; `nil` for values that are not an object's yet.
    let objectID: ManagedObjectID?

    init(object: ManagedObject) {
        self.init(entity: object.entity, objectID: object.objectID)
    }

    init(entity: EntityDescription, objectID: ManagedObjectID?) {
        self.entity = entity
        self.objectID = objectID
    }

    func validate(_ value: Any?, for property: PropertyDescription) -> [ValidationError] {
        switch property {
        case let attribute as AttributeDescription: return validate(value, attribute: attribute)
        case let relationship as RelationshipDescription: return validate(value, relationship: relationship)
        default: return []
        }
    }

    private func error(
        _ code: ValidationError.Code, _ property: PropertyDescription, _ text: String, keyPath: String? = nil
    ) -> ValidationError {
        entity.validationError(code, key: keyPath ?? property.name, text: text, objectID: objectID)
    }

    /// Validates an attribute's value; `keyPath` names an element of a composite (`magnitude.richter`) in errors.
    private func validate(_ value: Any?, attribute: AttributeDescription, keyPath: String? = nil) -> [ValidationError] {
        guard let value else {
            return attribute.isOptional
                ? [] : [error(.missingMandatoryProperty, attribute, "%@ is required", keyPath: keyPath)]
        }
        let type = attribute.attributeType
        if type == .composite, let composite = attribute as? CompositeAttributeDescription {
            guard let canonical = composite.coerce(value) as? [String: any Sendable] else {
                return [entity.wrongTypeError(key: keyPath ?? attribute.name, type: .composite, objectID: objectID)]
            }
            // Each element by its own rules, named by its path.
            let path = keyPath ?? attribute.name
            return composite.elements.flatMap { element in
                validate(canonical[element.name], attribute: element, keyPath: path + "." + element.name)
            }
        }
        // Most attributes have no rules beyond their type, and their values are stored in the canonical type
        // already: checking the value's type is then the whole validation (no conversions, no failed casts).
        if !attribute.hasRulesBeyondType, type.isCanonical(value) { return [] }
        guard let canonical = attribute.coerce(value) else {
            return [entity.wrongTypeError(key: keyPath ?? attribute.name, type: type, objectID: objectID)]
        }
        var errors: [ValidationError] = []
        func fail(_ code: ValidationError.Code, _ text: String) {
            errors.append(error(code, attribute, text, keyPath: keyPath))
        }
        if type.isNumeric, let number = AttributeType.double(from: canonical) {
            if let minimum = attribute.minimumValue.flatMap(AttributeType.double(from:)), number < minimum {
                fail(.numberTooSmall, "%@ must not be less than \(Self.format(minimum))")
            }
            if let maximum = attribute.maximumValue.flatMap(AttributeType.double(from:)), number > maximum {
                fail(.numberTooLarge, "%@ must not be greater than \(Self.format(maximum))")
            }
        } else if type == .date, let date = canonical as? Date {
            if let minimum = attribute.minimumValue as? Date, date < minimum {
                fail(.dateTooSoon, "%@ must not be before \(minimum.ISO8601Format())")
            }
            if let maximum = attribute.maximumValue as? Date, date > maximum {
                fail(.dateTooLate, "%@ must not be after \(maximum.ISO8601Format())")
            }
        } else if type == .string, let string = canonical as? String {
            // Counting characters walks the whole string: only when a length rule asks for it.
            let minimumLength = attribute.minimumValue.flatMap(AttributeType.integer(from:))
            let maximumLength = attribute.maximumValue.flatMap(AttributeType.integer(from:))
            let length = minimumLength == nil && maximumLength == nil ? 0 : string.count
            if let minimum = minimumLength, length < minimum {
                fail(.stringTooShort, "%@ must be at least \(minimum) characters long")
            }
            if let maximum = maximumLength, length > maximum {
                fail(.stringTooLong, "%@ must be at most \(maximum) characters long")
            }
            if let pattern = attribute.regularExpression, !Self.matches(pattern, string) {
                fail(.stringPatternMismatch, "%@ does not have the required format")
            }
        }
        for (predicate, warning) in zip(attribute.validationPredicates, attribute.validationWarnings) {
            let passed = (try? predicate.evaluate(with: canonical)) ?? false
            if !passed { fail(.predicateFailed, warning) }
        }
        return errors
    }

    private func validate(_ value: Any?, relationship: RelationshipDescription) -> [ValidationError] {
        if !relationship.isToMany {
            if value == nil, !relationship.isOptional {
                return [error(.missingMandatoryProperty, relationship, "%@ is required")]
            }
            return []
        }
        let count = (value as? [ManagedObject])?.count ?? (value as? Set<ManagedObject>)?.count ?? 0
        var errors: [ValidationError] = []
        let minimum = relationship.isOptional ? (count == 0 ? 0 : relationship.minCount) : max(1, relationship.minCount)
        if count < minimum {
            errors.append(error(.relationshipLacksMinimumCount, relationship,
                                "%@ must hold at least \(minimum) object(s)"))
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            errors.append(error(.relationshipExceedsMaximumCount, relationship,
                                "%@ must hold at most \(relationship.maxCount) object(s)"))
        }
        for (predicate, warning) in zip(relationship.validationPredicates, relationship.validationWarnings) {
            if !((try? predicate.evaluate(with: value)) ?? false) {
                errors.append(error(.predicateFailed, relationship, warning))
            }
        }
        return errors
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// Whether the whole string matches the pattern; an invalid pattern matches nothing.
    private static func matches(_ pattern: String, _ string: String) -> Bool {
        guard let regex = try? RegexCache.regex(for: pattern, caseInsensitive: false) else { return false }
        return RegexCache.wholeMatch(regex, string)
    }
}
