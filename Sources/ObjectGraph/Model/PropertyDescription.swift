import Foundation

/// What attributes, relationships and fetched properties share: a name, optionality, validation rules.
///
/// Like the rest of a model, a property may be changed only until a coordinator or a managed object uses the
/// model; changing it afterwards is a programmer error (a precondition failure).
public class PropertyDescription: @unchecked Sendable {  // mutable only before its model is frozen, then read-only
    /// The property's name, unique within its entity and its ancestors.
    public var name: String { didSet { checkMutable() } }
    /// Whether the property may be nil (or, for to-many relationships, empty). Core Data's default is `true`.
    public var isOptional: Bool = true { didSet { checkMutable() } }
    /// Whether the property is kept in memory only and never saved to a store.
    public var isTransient: Bool = false { didSet { checkMutable() } }
    /// Whether stores should index the property.
    public var isIndexed: Bool = false { didSet { checkMutable() } }
    /// Free-form information from the model file.
    public var userInfo: [String: String] = [:] { didSet { checkMutable() } }
    /// The property's name in an earlier model version, for lightweight migration.
    public var renamingIdentifier: String? { didSet { checkMutable() } }
    /// A string folded into the property's version hash, to mark a change stores must migrate for that the hash
    /// would not see otherwise (Core Data's `versionHashModifier`).
    public var versionHashModifier: String? { didSet { checkMutable() } }
    /// Predicates that a valid value satisfies (evaluated with the value as `SELF`), each with its warning.
    public private(set) var validationPredicates: [ObjectPredicate] = []
    /// The messages shown when the matching validation predicate fails.
    public private(set) var validationWarnings: [String] = []

    /// The entity that declares the property.
    ///
    /// An unowned reference, not a weak one: a weak reference would give every entity a side table, which makes
    /// each retain of it (one per managed object made) take the runtime's slow path. A property belongs to its
    /// entity: reading this after the entity was freed is a programmer error.
    public internal(set) unowned var entity: EntityDescription?
    var isFrozen = false

    /// Creates a property with a name.
    public init(name: String) {
        self.name = name
    }

    /// Sets the validation predicates and their warning messages (one warning per predicate).
    public func setValidationPredicates(_ predicates: [ObjectPredicate], withValidationWarnings warnings: [String]) {
        checkMutable()
        precondition(predicates.count == warnings.count, "one validation warning per predicate is required")
        validationPredicates = predicates
        validationWarnings = warnings
    }

    func checkMutable() {
        precondition(!isFrozen, "property '\(name)' changed after its model was put to use; models are immutable then")
    }

    /// Data folded into the entity's earlier version hash (``EntityDescription/legacyVersionHash``); subclasses add
    /// what changes the stored form.
    var versionHashComponents: [String] {
        [name, isOptional ? "o" : "m", isTransient ? "t" : "p"]
    }

    /// Core Data's version hash of the property (`NSPropertyDescription`'s): SHA-256 of the name, the flags as a
    /// little-endian 16-bit number (1 optional, 2 transient, 4 read-only) and the version hash modifier.
    var coreDataVersionHash: Data {
        var bytes = Data(name.utf8)
        let flags: UInt16 = (isOptional ? 1 : 0) | (isTransient ? 2 : 0)
        withUnsafeBytes(of: flags.littleEndian) { bytes.append(contentsOf: $0) }
        if let versionHashModifier { bytes.append(contentsOf: Data(versionHashModifier.utf8)) }
        return SHA256.hash(bytes)
    }

    /// Whether the entity's version hash covers the property (Core Data's: stored attributes and relationships).
    var isInCoreDataVersionHash: Bool { false }
}
