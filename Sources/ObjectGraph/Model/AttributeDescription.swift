import Foundation

/// An attribute: a typed value of an entity, with an optional default and validation rules.
///
/// Not final: ``DerivedAttributeDescription`` is the one subclass, as Core Data's `NSDerivedAttributeDescription`
/// is a kind of `NSAttributeDescription`, so code that walks an entity's attributes sees derived ones too.
public class AttributeDescription: PropertyDescription, @unchecked Sendable {  // frozen with its model
    /// The type of the attribute's values.
    public var attributeType: AttributeType { didSet { checkMutable() } }
    /// The value a newly inserted object starts with, in the type's canonical representation.
    public var defaultValue: (any Sendable)? { didSet { checkMutable() } }
    /// The smallest valid value: a number for numeric types, a `Date` for dates, a length for strings.
    public var minimumValue: (any Sendable)? { didSet { checkMutable() } }
    /// The largest valid value: a number for numeric types, a `Date` for dates, a length for strings.
    public var maximumValue: (any Sendable)? { didSet { checkMutable() } }
    /// A regular expression that the whole string must match (string attributes only).
    public var regularExpression: String? { didSet { checkMutable() } }
    /// For transformable attributes: the name of the value transformer (kept for model round trips).
    public var valueTransformerName: String? { didSet { checkMutable() } }
    /// For transformable attributes: the class name of the values (kept for model round trips).
    public var attributeValueClassName: String? { didSet { checkMutable() } }
    /// Whether generated code should use scalar types (kept for model round trips).
    public var usesScalarValueType: Bool = false { didSet { checkMutable() } }
    /// Whether a binary data attribute's values may be stored in files beside the store file (Xcode's "Allows
    /// External Storage"): the SQLite store keeps them as Core Data does, in `.<store>_SUPPORT/_EXTERNAL_DATA` from
    /// 128 KB; other stores keep them inline. Default `false`.
    public var allowsExternalBinaryDataStorage: Bool = false { didSet { checkMutable() } }
    /// Whether persistent history keeps the attribute's last value in the tombstone of a deleted object
    /// (`PersistentHistoryChange/tombstone`; Xcode's "Preserve After Deletion"). Default `false`.
    public var preservesValueInHistoryOnDeletion: Bool = false { didSet { checkMutable() } }

    /// Creates an attribute.
    /// Whether values are checked for more than their type and presence (range, length, pattern, predicates).
    var hasRulesBeyondType: Bool {
        minimumValue != nil || maximumValue != nil || regularExpression != nil || !validationPredicates.isEmpty
    }

    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: (any Sendable)? = nil) {
        self.attributeType = type
        super.init(name: name)
        self.isOptional = isOptional
        self.defaultValue = defaultValue.flatMap { type.coerce($0) } ?? defaultValue
    }

    /// Core Data's (`NSAttributeDescription`'s): SHA-256 of the property's hash, the type's `NSAttributeType` code
    /// as a little-endian 32-bit number, then a 1 byte for each of external storage and a value kept in tombstones.
    override var coreDataVersionHash: Data {
        var bytes = super.coreDataVersionHash
        let code = Int32(truncatingIfNeeded: attributeType.coreDataCode)
        withUnsafeBytes(of: code.littleEndian) { bytes.append(contentsOf: $0) }
        if allowsExternalBinaryDataStorage { bytes.append(1) }
        if preservesValueInHistoryOnDeletion { bytes.append(1) }
        return SHA256.hash(bytes)
    }

    override var isInCoreDataVersionHash: Bool { true }

    override var versionHashComponents: [String] {
        super.versionHashComponents + ["attribute", attributeType.rawValue]
    }

    /// Converts a value to the attribute's canonical representation (``AttributeType/coerce(_:)``; a composite also
    /// converts its elements), or `nil` when it cannot be converted.
    func coerce(_ value: Any) -> (any Sendable)? { attributeType.coerce(value) }
}
