import AlmanacWire
import Foundation
import ObjectGraph

/// Converts between managed objects and the wire's JSON: values out, values in.
struct ObjectCoding {
    let coordinator: PersistentStoreCoordinator

    // MARK: Out

    /// An object as the wire shows it: URI, entity, store identifier and values.
    ///
    /// Attributes with a value are included; to-one relationships as the related object's URI; to-many relationships
    /// only when named in `properties`, as arrays of URIs. Key paths in `properties` (`room.name`) add their value.
    func wireObject(_ object: ManagedObject, properties: [String]?) -> WireObject {
        var values: JSONObject = [:]
        let entity = object.entity
        if let properties {
            for key in properties {
                if let property = entity.propertiesByName[key] {
                    values[key] = json(for: object, property: property, includeToMany: true)
                } else {
                    values[key] = json(object.value(forKeyPath: key))
                }
            }
        } else {
            for property in entity.allProperties where !(property is FetchedPropertyDescription) {
                if let relationship = property as? RelationshipDescription, relationship.isToMany { continue }
                let value = json(for: object, property: property, includeToMany: false)
                if value != .null { values[property.name] = value }
            }
        }
        return WireObject(uri: object.objectID.uriString, entity: entity.name,
                          store: object.objectID.storeIdentifier ?? "", values: values)
    }

    /// The wire object of a stored record, exactly as ``wireObject(_:properties:)`` shows the object with `nil`
    /// properties: attributes with a value (transient ones at their default) and to-one relationships as URIs.
    func wireObject(_ record: StoreRecord, entity: EntityDescription) -> WireObject {
        var values = JSONObject(minimumCapacity: entity.allProperties.count)
        for property in entity.allProperties {
            let value: JSONValue
            switch property {
            case let attribute as AttributeDescription:
                value = json(attribute.isTransient ? attribute.defaultValue : record[attribute.name])
            case let relationship as RelationshipDescription where !relationship.isToMany:
                value = (record[relationship.name] as? ManagedObjectID).map { .string($0.uriString) } ?? .null
            default:
                continue
            }
            if value != .null { values[property.name] = value }
        }
        return WireObject(uri: record.objectID.uriString, entity: entity.name,
                          store: record.objectID.storeIdentifier ?? "", values: values)
    }

    /// The wire object of a stored record with named properties, exactly as ``wireObject(_:properties:)`` shows
    /// the object: each named attribute or to-one relationship, and key paths through to-one relationships
    /// (`room.name`), read from the related objects' records with `related`. Only for properties
    /// ``readsFromRecords(_:of:)`` accepts.
    func wireObject(_ record: StoreRecord, entity: EntityDescription, properties: [String],
                    related: (ManagedObjectID) throws -> StoreRecord?) rethrows -> WireObject {
        var values = JSONObject(minimumCapacity: properties.count)
        for key in properties {
            var current: StoreRecord? = record
            var currentEntity = entity
            var value: Any?
            let components = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (position, component) in components.enumerated() {
                guard let here = current else {
                    value = nil
                    break
                }
                switch currentEntity.propertiesByName[component] {
                case let attribute as AttributeDescription:
                    value = attribute.isTransient ? attribute.defaultValue : here[component]
                case let relationship as RelationshipDescription:
                    let id = here[component] as? ManagedObjectID
                    if position == components.count - 1 {
                        value = id
                    } else {
                        current = try id.flatMap(related)
                        currentEntity = current.flatMap { currentEntity.managedObjectModel?.entitiesByName[$0.objectID.entityName] }
                            ?? relationship.destinationEntity ?? currentEntity
                    }
                default:
                    value = nil
                }
            }
            values[key] = json(value)
        }
        return WireObject(uri: record.objectID.uriString, entity: entity.name,
                          store: record.objectID.storeIdentifier ?? "", values: values)
    }

    /// Whether every named property can be read from stored records: attributes, to-one relationships, and dotted
    /// paths whose every step but the last is a to-one relationship (no to-many, fetched properties or operators).
    func readsFromRecords(_ properties: [String], of entity: EntityDescription) -> Bool {
        properties.allSatisfy { key in
            var current = entity
            let components = key.split(separator: ".", omittingEmptySubsequences: false)
            for (position, component) in components.enumerated() {
                switch current.propertiesByName[String(component)] {
                case is AttributeDescription:
                    guard position == components.count - 1 else { return false }
                case let relationship as RelationshipDescription where !relationship.isToMany:
                    if position == components.count - 1 { return true }
                    guard let destination = relationship.destinationEntity, destination.subentities.isEmpty,
                        showsStoredValues(of: destination)
                    else { return false }
                    current = destination
                default:
                    return false
                }
            }
            return true
        }
    }

    /// Whether ``wireObject(_:entity:)`` shows objects of an entity as ``wireObject(_:properties:)`` with `nil`
    /// properties would: true unless the entity's class is a subclass that may compute values.
    func showsStoredValues(of entity: EntityDescription) -> Bool {
        ManagedObjectClassRegistry.objectClass(for: entity) == ManagedObject.self
    }

    private func json(for object: ManagedObject, property: PropertyDescription, includeToMany: Bool) -> JSONValue {
        if let relationship = property as? RelationshipDescription {
            if relationship.isToMany {
                guard includeToMany else { return .null }
                return .array(object.objects(forKey: relationship.name).map { uri($0) })
            }
            return (object.value(forKey: relationship.name) as? ManagedObject).map(uri) ?? .null
        }
        return json(object.value(forKey: property.name))
    }

    private func uri(_ object: ManagedObject) -> JSONValue {
        .string(object.objectID.uriString)
    }

    /// A plain value as JSON: dates as ISO 8601, data as base64, decimals as strings, objects as URIs.
    func json(_ value: Any?) -> JSONValue {
        switch value {
        case nil: .null
        // The common kinds first: every failed cast of an existential costs a runtime lookup.
        case let v as String: .string(v)
        case let v as Date: .string(WireDate.string(from: v))
        case let v as Int: .int(Int64(v))
        case let v as Bool: .bool(v)
        case let v as Int64: .int(v)
        case let v as Double: v.isFinite ? .double(v) : .null
        case let v as Float: v.isFinite ? .double(Double(v)) : .null
        case let v as Decimal: .string(v.description)
        case let v as Data: .string(v.base64EncodedString())
        case let v as UUID: .string(v.uuidString)
        case let v as URL: .string(v.absoluteString)
        case let v as ManagedObject: uri(v)
        case let v as ManagedObjectID: .string(v.uriString)
        case let v as [Any]: .array(v.map(json))
        case let v as Set<ManagedObject>: .array(v.sorted { $0.objectID < $1.objectID }.map(uri))
        // A composite attribute's value: its elements, keys in order.
        case let v as [String: any Sendable]:
            .object(JSONObject(v.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) }))
        default: .string("\(value!)")
        }
    }

    // MARK: In

    /// A JSON value converted for a predicate variable: ISO 8601 date-times become dates, the rest plain values.
    func variable(_ value: JSONValue) -> Any? {
        switch value {
        case .null: nil
        case .bool(let v): v
        case .int(let v): Int(v)
        case .double(let v): v
        case .string(let v): WireDate.date(from: v) ?? v
        case .array(let items): items.map(variable)
        case .object(let object): object.dictionary.mapValues(variable)
        }
    }

    /// Sets values from JSON on an object, converting each by the property's type.
    ///
    /// - Throws: `bad_request` naming the key for unknown keys and values of the wrong type; `not_found` for a
    ///   relationship URI that names no object.
    func apply(_ values: JSONObject, to object: ManagedObject, in context: ManagedObjectContext) throws(WireError) {
        for (key, value) in values {
            guard let property = object.entity.propertiesByName[key] else {
                throw WireError.badRequest("\(object.entity.name) has no property '\(key)'", field: key)
            }
            switch property {
            case let attribute as AttributeDescription:
                object.setValue(try attributeValue(value, attribute), forKey: key)
            case let relationship as RelationshipDescription:
                if relationship.isToMany {
                    guard let items = value.arrayValue ?? (value.isNull ? [] : nil) else {
                        throw WireError.badRequest("'\(key)' takes an array of object URIs", field: key)
                    }
                    let targets = try items.map { item throws(WireError) in
                        try resolve(item, key: key, relationship: relationship, context: context)
                    }
                    object.setValue(targets, forKey: key)
                } else {
                    let target = value.isNull
                        ? nil : try resolve(value, key: key, relationship: relationship, context: context)
                    object.setValue(target, forKey: key)
                }
            default:
                throw WireError.badRequest("'\(key)' cannot be set", field: key)
            }
        }
    }

    private func attributeValue(_ value: JSONValue, _ attribute: AttributeDescription) throws(WireError) -> Any? {
        if value.isNull { return nil }
        let type = attribute.attributeType
        if type == .composite, let composite = attribute as? CompositeAttributeDescription {
            // An object of the elements' values, each converted as the element's own attribute value.
            guard case .object(let members) = value else {
                throw WireError.badRequest(
                    "'\(attribute.name)' takes an object of its elements' values", field: attribute.name)
            }
            var elements: [String: Any] = [:]
            for (key, member) in members {
                guard let element = composite.element(named: key) else {
                    throw WireError.badRequest(
                        "'\(attribute.name)' has no element '\(key)'", field: attribute.name + "." + key)
                }
                elements[key] = try attributeValue(member, element)
            }
            return elements
        }
        let raw: Any?
        switch (type, value) {
        case (.date, .string(let text)): raw = WireDate.date(from: text)
        case (.date, .int(let seconds)): raw = Date(timeIntervalSince1970: Double(seconds))
        case (.date, .double(let seconds)): raw = Date(timeIntervalSince1970: seconds)
        case (.binaryData, .string(let text)): raw = Data(base64Encoded: text)
        case (.decimal, .string(let text)): raw = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case (_, .string(let text)): raw = text
        case (_, .int(let number)): raw = Int(exactly: number)
        case (_, .double(let number)): raw = number
        case (_, .bool(let flag)): raw = flag
        default: raw = nil
        }
        guard let raw, let converted = type.coerce(raw) else {
            throw WireError.badRequest("'\(attribute.name)' takes a value of type \(type.rawValue)", field: attribute.name)
        }
        return converted
    }

    private func resolve(_ value: JSONValue, key: String, relationship: RelationshipDescription,
                         context: ManagedObjectContext) throws(WireError) -> ManagedObject {
        guard let text = value.stringValue, let url = URL(string: text),
            let id = coordinator.managedObjectID(forURIRepresentation: url)
        else {
            throw WireError.badRequest("'\(key)' takes object URIs (x-coredata://…)", field: key)
        }
        guard let destination = relationship.destinationEntity,
            let entity = coordinator.managedObjectModel.entitiesByName[id.entityName], entity.isKind(of: destination)
        else {
            throw WireError.badRequest("'\(key)' takes \(relationship.destinationEntityName) objects", field: key)
        }
        do {
            return try context.existingObject(with: id)
        } catch {
            throw WireError(code: .notFound, message: "No object \(text) exists.")
        }
    }
}
