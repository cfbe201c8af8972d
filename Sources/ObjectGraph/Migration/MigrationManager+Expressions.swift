import Foundation

extension MigrationManager {
    /// Evaluates a value expression of a mapping with `$source`, `$manager`, `$entityMapping` and `$entityPolicy`
    /// bound, calling the `FUNCTION(…)` methods of the manager, the policy and source objects.
    ///
    /// - Throws: ``MigrationError/Code/expressionFailed`` naming the mapping and the expression.
    public func evaluate(
        _ expression: ObjectExpression, source: ManagedObject?, mapping: EntityMapping,
        policy: EntityMigrationPolicy
    ) throws -> Any? {
        var evaluation = MappingEvaluation(manager: self, source: source, mapping: mapping, policy: policy)
        do {
            return try evaluation.value(of: expression)
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError(
                code: .expressionFailed,
                message: "The expression \(expression.expressionFormat) of mapping '\(mapping.name)' "
                    + "failed: \(error)",
                context: ErrorContext(entityName: mapping.destinationEntityName),
                entityMappingName: mapping.name, cause: error)
        }
    }

    /// Sets a migrated value on a destination object: attributes converted to their type (anything becomes a
    /// string for a string attribute), relationships from one object, an array or a set of destination objects
    /// (a to-one relationship takes the first).
    ///
    /// - Throws: ``MigrationError/Code/expressionFailed`` when the value does not fit the property.
    public func setValue(
        _ value: Any?, forKey key: String, of destination: ManagedObject,
        mapping: EntityMapping
    ) throws {
        func failure(_ text: String) -> MigrationError {
            MigrationError(
                code: .expressionFailed,
                message: "Mapping '\(mapping.name)' gives '\(key)' of '\(destination.entity.name)' \(text).",
                context: ErrorContext(entityName: destination.entity.name, key: key),
                entityMappingName: mapping.name)
        }
        switch destination.entity.propertiesByName[key] {
        case let attribute as AttributeDescription:
            // A value of the attribute's own type needs no unwrapping (whose casts cost more than the rest); a
            // transformable takes any value, so NSNull and boxed optionals are unwrapped for it.
            let kind = attribute.attributeType
            let takesAny = kind == .transformable || kind == .undefined
            let canonical = value.flatMap { !takesAny && kind.isCanonical($0) ? $0 : nil }
            guard let value = canonical ?? Self.unwrapped(value) else {
                destination.setValue(nil, forKey: key)
                return
            }
            // A composite keeps the elements its new version still has.
            let kept = (attribute as? CompositeAttributeDescription)?.keepingElements(of: value) ?? value
            if let converted = attribute.coerce(kept) {
                destination.setValue(converted, forKey: key)
            } else if attribute.attributeType == .string {
                destination.setValue(String(describing: value), forKey: key)
            } else {
                throw failure("a \(type(of: value)), which a \(attribute.attributeType.rawValue) cannot hold")
            }
        case let relationship as RelationshipDescription:
            let objects = Self.objects(in: value)
            guard objects.allSatisfy({ $0.managedObjectContext === destinationContext }) else {
                throw failure(
                    "source objects; map them with FUNCTION($manager, "
                        + "\"\(Self.destinationInstancesForEntityMapping)\", …)")
            }
            guard let target = relationship.destinationEntity,
                objects.allSatisfy({ $0.entity.isKind(of: target) })
            else { throw failure("objects of another entity than \(relationship.destinationEntityName)") }
            if relationship.isToMany {
                destination.setValue(objects, forKey: key)
            } else {
                destination.setValue(objects.first, forKey: key)
            }
        default:
            throw failure("a value, but it has no such attribute or relationship")
        }
    }

    /// The managed objects in a value: one object, an array or a set of them.
    static func objects(in value: Any?) -> [ManagedObject] {
        // The shapes the manager's own functions return, before the general unwrapping (casts through it cost more
        // than the rest of a relationship's migration).
        if let array = value as? [ManagedObject] { return array }
        if let object = value as? ManagedObject { return [object] }
        return switch unwrapped(value) {
        case nil: []
        case let object as ManagedObject: [object]
        case let array as [ManagedObject]: array
        case let set as Set<ManagedObject>: Array(set)
        case let array as [Any?]: array.compactMap { unwrapped($0) as? ManagedObject }
        case let set as Set<AnyHashable>: set.compactMap { $0.base as? ManagedObject }
        default: []
        }
    }

    /// A value with nested optionals and `NSNull` taken away.
    static func unwrapped(_ value: Any?) -> Any? { ValueSemantics.normalized(value) }
}

/// One evaluation of a mapping expression.
private struct MappingEvaluation {
    let manager: MigrationManager
    let source: ManagedObject?
    let mapping: EntityMapping
    let policy: EntityMigrationPolicy
    /// Values of method calls nested in other expressions, bound as variables for the predicate evaluator.
    var calls: [String: Any?] = [:]

    mutating func value(of expression: ObjectExpression) throws -> Any? {
        switch expression {
        case .variable("source"):
            return source
        case .member(of: .variable("source"), let keyPath):
            return try keyPathValue(keyPath, of: source)
        case .constant(let constant):
            return try ObjectExpression.constant(constant).evaluate(with: nil)
        default:
            break
        }
        if let call = expression.selectorCall {
            return try perform(call.selector, on: call.receiver, with: call.arguments)
        }
        let rewritten = try bindingCalls(in: expression)
        var variables = calls
        variables["source"] = source
        return try rewritten.evaluate(with: source, substitutionVariables: variables)
    }

    private func keyPathValue(_ keyPath: String, of object: ManagedObject?) throws -> Any? {
        guard let object else { return nil }
        // Most mapping expressions name one property (`$source.title`): read it without compiling a key path.
        guard let dot = keyPath.utf8.firstIndex(of: UInt8(ascii: ".")) else {
            switch object.entity.propertiesByName[keyPath] {
            case nil: return nil  // gone from this source entity
            case let relationship as RelationshipDescription where relationship.isToMany:
                return object.objects(forKey: keyPath)
            default: return object.value(forKey: keyPath)
            }
        }
        guard object.entity.propertiesByName[String(keyPath[..<dot])] != nil else { return nil }
        return object.value(forKeyPath: keyPath)
    }

    /// Replaces every method call inside `expression` by a variable bound to the call's value.
    private mutating func bindingCalls(in expression: ObjectExpression) throws -> ObjectExpression {
        if let call = expression.selectorCall {
            let name = "__call\(calls.count)"
            calls[name] = try perform(call.selector, on: call.receiver, with: call.arguments)
            return .variable(name)
        }
        switch expression {
        case .member(let base, let keyPath): return .member(of: try bindingCalls(in: base), keyPath: keyPath)
        case .aggregate(let items): return .aggregate(try items.map { try bindingCalls(in: $0) })
        case .function(let name, let arguments): return .function(name, try arguments.map { try bindingCalls(in: $0) })
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(op, try bindingCalls(in: lhs), try bindingCalls(in: rhs))
        case .negate(let inner): return .negate(try bindingCalls(in: inner))
        case .cast(let inner, let type): return .cast(try bindingCalls(in: inner), type)
        default: return expression
        }
    }

    private mutating func perform(
        _ selector: String, on receiver: ObjectExpression,
        with arguments: [ObjectExpression]
    ) throws -> Any? {
        let values = try arguments.map { try value(of: $0) }
        switch receiver {
        case .variable("manager"):
            return try managerFunction(selector, values)
        case .variable("entityPolicy"):
            return try policy.value(forFunction: selector, arguments: values, manager: manager)
        default:
            let target = try value(of: receiver)
            return try objectFunction(selector, on: target, values)
        }
    }

    private func managerFunction(_ selector: String, _ values: [Any?]) throws -> Any? {
        switch selector {
        case MigrationManager.destinationInstancesForEntityMapping:
            guard values.count == 2, let name = values[0] as? String else { throw badArguments(selector) }
            guard manager.mappingModel.entityMappingsByName[name] != nil else {
                throw MigrationError(
                    code: .invalidMappingModel,
                    message: "Mapping '\(mapping.name)' refers to the entity mapping '\(name)', "
                        + "which the mapping model lacks.",
                    entityMappingName: mapping.name)
            }
            return manager.destinationInstances(
                forEntityMappingNamed: name,
                sourceInstances: MigrationManager.objects(in: values[1]))
        case MigrationManager.destinationInstancesForSourceRelationship:
            guard values.count == 2, values[0] is String else { throw badArguments(selector) }
            return manager.destinationInstances(
                forSourceRelationshipNamed: values[0] as? String ?? "",
                sourceInstances: MigrationManager.objects(in: values[1]))
        default:
            throw unknown(selector, "the migration manager")
        }
    }

    private func objectFunction(_ selector: String, on target: Any?, _ values: [Any?]) throws -> Any? {
        switch (selector, target) {
        case ("valueForKey:", let object as ManagedObject), ("valueForKeyPath:", let object as ManagedObject):
            guard let key = values.first as? String else { throw badArguments(selector) }
            return try keyPathValue(key, of: object)
        case ("uppercaseString", let string as String): return string.uppercased()
        case ("lowercaseString", let string as String): return string.lowercased()
        case ("stringByAppendingString:", let string as String):
            guard let other = values.first as? String else { throw badArguments(selector) }
            return string + other
        case (_, nil):
            return nil
        default:
            throw unknown(selector, "a \(type(of: target!))")
        }
    }

    private func badArguments(_ selector: String) -> MigrationError {
        MigrationError(
            code: .expressionFailed,
            message: "Mapping '\(mapping.name)' calls '\(selector)' with arguments it does not take.",
            entityMappingName: mapping.name)
    }

    private func unknown(_ selector: String, _ receiver: String) -> MigrationError {
        MigrationError(
            code: .expressionFailed,
            message: "Mapping '\(mapping.name)' calls '\(selector)', which \(receiver) does not have.",
            entityMappingName: mapping.name)
    }
}
