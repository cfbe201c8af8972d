import Foundation

/// A relationship from one entity to another, to-one or to-many, usually with an inverse.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {  // frozen with its model
    /// What deleting the source object does to the objects it refers to through this relationship.
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// Remove the deleted object from each destination's inverse relationship.
        case nullify = "Nullify"
        /// Delete the destination objects too.
        case cascade = "Cascade"
        /// Refuse the deletion (the save fails) while the relationship has any destination.
        case deny = "Deny"
        /// Do nothing; the caller keeps the graph consistent.
        case noAction = "No Action"
    }

    /// The name of the destination entity; resolved to ``destinationEntity`` when the model is put to use.
    public var destinationEntityName: String { didSet { checkMutable() } }
    /// The name of the inverse relationship on the destination entity, if any.
    public var inverseName: String? { didSet { checkMutable() } }
    /// Whether the relationship holds several objects.
    public var isToMany: Bool { maxCount != 1 }
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool = false { didSet { checkMutable() } }
    /// The fewest objects a valid to-many relationship holds (0: no minimum).
    public var minCount: Int = 0 { didSet { checkMutable() } }
    /// The most objects the relationship holds: 1 for to-one, 0 for no limit.
    public var maxCount: Int { didSet { checkMutable() } }
    /// What deleting the source object does to the destinations.
    public var deleteRule: DeleteRule = .nullify { didSet { checkMutable() } }

    /// The destination entity, once the model is put to use (or after ``ManagedObjectModel/resolveRelationships()``).
    /// Unowned rather than weak, like ``PropertyDescription/entity``: the destination lives in the same model.
    public internal(set) unowned var destinationEntity: EntityDescription?
    /// The inverse relationship, once resolved.
    public internal(set) weak var inverseRelationship: RelationshipDescription?

    /// Creates a relationship.
    /// - Parameters:
    ///   - name: The relationship's name, unique among the entity's properties.
    ///   - destination: The name of the destination entity.
    ///   - inverse: The name of the inverse relationship on the destination, if any.
    ///   - toMany: `false` for a to-one relationship (maxCount 1), `true` for to-many (maxCount 0, no limit).
    ///   - deleteRule: What deleting the source does to the destination objects.
    ///   - isOptional: Whether the relationship may be empty when saved.
    ///   - isOrdered: Whether a to-many relationship keeps its objects in order.
    public init(name: String, destination: String, inverse: String? = nil, toMany: Bool = false,
                deleteRule: DeleteRule = .nullify, isOptional: Bool = true, isOrdered: Bool = false) {
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.maxCount = toMany ? 0 : 1
        super.init(name: name)
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.isOrdered = isOrdered
    }

    /// Makes the relationship to-many (maxCount 0, or the given limit) or to-one (maxCount 1).
    public func setToMany(_ toMany: Bool, maxCount: Int = 0) {
        self.maxCount = toMany ? (maxCount == 1 ? 0 : maxCount) : 1
    }

    /// Core Data's (`NSRelationshipDescription`'s): SHA-256 of the property's hash, the destination's name, the
    /// inverse's name (unless the relationship is its own inverse), the maximum and minimum counts as little-endian
    /// 32-bit numbers, and a 16-bit 1 when ordered.
    override var coreDataVersionHash: Data {
        var bytes = super.coreDataVersionHash
        bytes.append(contentsOf: Data(destinationEntityName.utf8))
        if let inverseName, !(inverseName == name && destinationEntityName == entity?.name) {
            bytes.append(contentsOf: Data(inverseName.utf8))
        }
        for count in [maxCount, minCount] {
            withUnsafeBytes(of: Int32(truncatingIfNeeded: count).littleEndian) { bytes.append(contentsOf: $0) }
        }
        if isOrdered { withUnsafeBytes(of: UInt16(1).littleEndian) { bytes.append(contentsOf: $0) } }
        return SHA256.hash(bytes)
    }

    override var isInCoreDataVersionHash: Bool { true }

    override var versionHashComponents: [String] {
        super.versionHashComponents + ["relationship", destinationEntityName, inverseName ?? "", isToMany ? "n" : "1",
                                       isOrdered ? "ordered" : ""]
    }
}
