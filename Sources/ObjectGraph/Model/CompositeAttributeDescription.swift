import Foundation

/// An attribute made of other attributes, as Core Data's `NSCompositeAttributeDescription` (iOS 17, macOS 14): its
/// value is a dictionary keyed by the ``elements``' names, and each element is stored, queried, sorted and indexed
/// as an attribute of its own through a namespaced key path (`magnitude.richter`).
///
/// ```swift
/// let magnitude = CompositeAttributeDescription(name: "magnitude", elements: [
///     AttributeDescription(name: "richter", type: .double),
///     AttributeDescription(name: "scale", type: .string),
/// ])
/// quakeEntity.properties.append(magnitude)
/// quake.setValue(["richter": 4.6, "scale": "ML"], forKey: "magnitude")
/// request.predicate = try ObjectPredicate(format: "magnitude.richter > 4.5")
/// ```
///
/// Elements may be composites themselves (`location.coordinate.latitude`). Values set are converted element by
/// element to the elements' types; a key that names no element is refused, as a value of the wrong type is. A
/// composite whose elements are all nil reads back as nil from a SQLite store (its columns cannot tell the two
/// apart).
///
/// Stores: the SQLite and PostgreSQL stores keep each element in a column of its own, `Z` + the composite's name +
/// `_` + the element's name, upper-cased (`ZMAGNITUDE_RICHTER`); the in-memory and binary stores keep the
/// dictionary, the XML store a binary property list of it.
public final class CompositeAttributeDescription: AttributeDescription, @unchecked Sendable {  // frozen with its model
    /// The attributes the composite is made of, in order.
    public var elements: [AttributeDescription] = [] { didSet { checkMutable() } }
    /// The name of the composite's definition in an Xcode model file (its list of Composite Attributes, e.g.
    /// `Magnitude`), which an entity's attribute names with `composite="Magnitude"`; kept so that a model read from a
    /// file is written back under the same names. A composite made in code is written under its own name,
    /// capitalized.
    public var definitionName: String? { didSet { checkMutable() } }

    /// Creates a composite with an empty name and no elements, to be set before use, as Core Data's
    /// `NSCompositeAttributeDescription()`.
    public init() {
        super.init(name: "", type: .composite)
    }

    /// Creates a composite attribute.
    public init(name: String, elements: [AttributeDescription], isOptional: Bool = true) {
        self.elements = elements
        super.init(name: name, type: .composite, isOptional: isOptional)
    }

    override var isFrozen: Bool {
        didSet { if isFrozen { for element in elements { element.isFrozen = true } } }
    }

    /// Core Data's (`NSCompositeAttributeDescription`'s): SHA-256 of the hashes of its stored leaf elements (nested
    /// composites flattened) in order of name. The composite's own name, flags and modifier are not part of it:
    /// Core Data computes the attribute's hash first and then hashes the elements' alone (its
    /// `_versionHash:inStyle:` in both its Intel and ARM builds).
    override var coreDataVersionHash: Data {
        var bytes = Data()
        let leaves = leafElements.map(\.attribute).filter { !$0.isTransient }
        for leaf in leaves.sorted(by: { $0.name < $1.name }) {
            bytes.append(leaf.coreDataVersionHash)
        }
        return SHA256.hash(bytes)
    }

    override var versionHashComponents: [String] {
        super.versionHashComponents + ["elements"] + elements.flatMap { $0.versionHashComponents + ["/"] }
    }

    /// The element of a name.
    public func element(named name: String) -> AttributeDescription? { elements.first { $0.name == name } }

    /// Converts a value to the composite's canonical form: a `[String: any Sendable]` whose values have their
    /// elements' canonical types (nested composites included). `nil` when the value is not a dictionary, names a key
    /// that is not an element, or holds a value its element cannot take.
    override func coerce(_ value: Any) -> (any Sendable)? {
        guard let entries = Self.entries(of: value) else { return nil }
        var result: [String: any Sendable] = [:]
        for (key, raw) in entries {
            guard let element = element(named: key) else { return nil }
            if raw is NSNull { continue }
            if case Optional<Any>.none = raw { continue }
            guard let converted = element.coerce(raw) else { return nil }
            result[key] = converted
        }
        return result
    }

    /// A value with only the keys that name elements (nested composites likewise): what a migration keeps of a
    /// value written with an earlier version of the composite. `nil` when the value is not a dictionary.
    package func keepingElements(of value: Any) -> [String: Any]? {
        guard let entries = Self.entries(of: value) else { return nil }
        var kept: [String: Any] = [:]
        for (key, entry) in entries {
            guard let element = element(named: key) else { continue }
            if let nested = element as? CompositeAttributeDescription {
                kept[key] = nested.keepingElements(of: entry)
            } else {
                kept[key] = entry
            }
        }
        return kept
    }

    /// The entries of a value given for a composite: a dictionary of either kind; `nil` for anything else.
    private static func entries(of value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: any Sendable] { return dictionary.mapValues { $0 as Any } }
        return value as? [String: Any]
    }

    /// The leaves of the composite, depth first in element order: each with its path below the composite
    /// (`["coordinate", "latitude"]`) and its attribute.
    public var leafElements: [(path: [String], attribute: AttributeDescription)] {
        elements.flatMap { element -> [(path: [String], attribute: AttributeDescription)] in
            guard let composite = element as? CompositeAttributeDescription else { return [([element.name], element)] }
            return composite.leafElements.map { ([element.name] + $0.path, $0.attribute) }
        }
    }

    /// A copy with copies of its elements (for merged and migrated models).
    package func copyWithElements() -> CompositeAttributeDescription {
        let copy = CompositeAttributeDescription(
            name: name, elements: elements.map { $0.copyForMerge() as! AttributeDescription }, isOptional: isOptional)
        copy.definitionName = definitionName
        return copy
    }
}

extension CompositeAttributeDescription {
    /// The value at a path below a composite value (`["coordinate", "latitude"]`), or nil.
    package static func value(at path: some Collection<String>, in composite: (any Sendable)?) -> (any Sendable)? {
        var current = composite
        for key in path {
            guard let dictionary = current as? [String: any Sendable] else { return nil }
            current = dictionary[key]
        }
        return current
    }

    /// A composite value with the value at `path` replaced (nil removes it); intermediate dictionaries are made as
    /// needed.
    package static func setting(
        _ value: (any Sendable)?, at path: ArraySlice<String>, in composite: (any Sendable)?
    ) -> [String: any Sendable] {
        var dictionary = composite as? [String: any Sendable] ?? [:]
        guard let key = path.first else { return dictionary }
        if path.count == 1 {
            dictionary[key] = value
        } else {
            dictionary[key] = setting(value, at: path.dropFirst(), in: dictionary[key])
        }
        return dictionary
    }
}

extension CompositeAttributeDescription {
    /// A composite value as a property list dictionary, for stores that keep composites whole (the XML store writes
    /// it as a binary property list): numbers, strings, Booleans, dates and data as themselves, decimals, UUIDs and
    /// URLs as strings, nested composites as dictionaries. `nil` when an element's value cannot be written.
    package func propertyList(from value: any Sendable) -> PropertyListValue? {
        guard let dictionary = coerce(value) as? [String: any Sendable] else { return nil }
        var entries: [String: PropertyListValue] = [:]
        for element in elements {
            guard let value = dictionary[element.name] else { continue }
            let entry: PropertyListValue?
            switch element.attributeType {
            case .integer16, .integer32, .integer64: entry = (value as? Int).map { .integer(Int64($0)) }
            case .double: entry = (value as? Double).map { .real($0) }
            case .float: entry = (value as? Float).map { .real(Double($0)) }
            case .decimal: entry = (value as? Decimal).map { .string($0.description) }
            case .string: entry = (value as? String).map { .string($0) }
            case .boolean: entry = (value as? Bool).map { .bool($0) }
            case .date: entry = (value as? Date).map { .date($0) }
            case .binaryData: entry = (value as? Data).map { .data($0) }
            case .uuid: entry = (value as? UUID).map { .string($0.uuidString) }
            case .uri: entry = (value as? URL).map { .string($0.absoluteString) }
            case .composite: entry = (element as? CompositeAttributeDescription)?.propertyList(from: value)
            case .transformable, .undefined:
                entry = (value as? Data).map { .data($0) } ?? (value as? String).map { .string($0) }
            case .objectID: entry = nil
            }
            guard let entry else { return nil }
            entries[element.name] = entry
        }
        return .dictionary(entries)
    }

    /// A composite value from ``propertyList(from:)``'s form, each element converted to its type; `nil` when the
    /// dictionary names a key that is not an element or holds a value its element cannot take.
    package func value(fromPropertyList list: PropertyListValue) -> [String: any Sendable]? {
        guard let entries = list.dictionary else { return nil }
        var result: [String: any Sendable] = [:]
        for (key, entry) in entries {
            guard let element = element(named: key) else { return nil }
            let raw: (any Sendable)?
            switch entry {
            case .null: continue
            case .dictionary:
                raw = (element as? CompositeAttributeDescription)?.value(fromPropertyList: entry)
            case .string(let string):
                switch element.attributeType {
                case .decimal: raw = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
                default: raw = element.coerce(string)
                }
            case .integer(let value): raw = element.coerce(Int(value))
            case .real(let value): raw = element.coerce(value)
            case .bool(let value): raw = element.coerce(value)
            case .date(let value): raw = element.coerce(value)
            case .data(let value): raw = element.coerce(value)
            case .uid, .array: raw = nil
            }
            guard let raw else { return nil }
            result[key] = raw
        }
        return result
    }
}
