import Foundation
import Synchronization

/// An entity: a kind of managed object, with its properties, its place in an inheritance tree and its class.
///
/// Entities are built before use and frozen when their model is put to use (by a coordinator or a managed
/// object); changing one afterwards is a programmer error.
public final class EntityDescription: @unchecked Sendable {  // mutable only before its model is frozen, then read-only
    /// The entity's name, unique in its model.
    public var name: String { didSet { checkMutable() } }
    /// The name under which a `ManagedObject` subclass was registered (see ``ManagedObjectClassRegistry``).
    /// `ManagedObject` (or Core Data's `NSManagedObject`) means the base class.
    public var managedObjectClassName: String = "ManagedObject" { didSet { checkMutable() } }
    /// Whether the entity can have no instances of its own (only of its sub-entities).
    public var isAbstract: Bool = false { didSet { checkMutable() } }
    /// Free-form information from the model file.
    public var userInfo: [String: String] = [:] { didSet { checkMutable() } }
    /// Sets of attribute names whose values must be unique together, among the objects of this entity and its
    /// sub-entities in each store. Saves check them (and fail with ``StoreError/Code/constraintConflict``, or resolve
    /// the conflicts by the context's ``MergePolicy``); an object with no value for one of the attributes is not
    /// constrained, and a constraint naming anything but attributes is not checked.
    public var uniquenessConstraints: [[String]] = [] { didSet { checkMutable() } }
    /// Fetch indexes: named lists of property names that stores index together.
    public var indexes: [FetchIndexDescription] = [] { didSet { checkMutable() } }
    /// The entity's name in an earlier model version, for lightweight migration.
    public var renamingIdentifier: String? { didSet { checkMutable() } }
    /// A string folded into the version hash to force a new version without other changes.
    public var versionHashModifier: String? { didSet { checkMutable() } }

    /// The properties the entity declares itself (inherited ones are not listed here).
    public var properties: [PropertyDescription] = [] {
        didSet {
            checkMutable()
            for property in properties { property.entity = self }
        }
    }

    /// The entities that inherit from this one. Setting it makes this entity their superentity.
    public var subentities: [EntityDescription] = [] {
        didSet {
            checkMutable()
            for sub in subentities { sub.superentity = self }
        }
    }

    /// The entity this one inherits from, if any.
    /// Unowned rather than weak, like ``PropertyDescription/entity``: an entity's model holds its superentity too.
    public internal(set) unowned var superentity: EntityDescription?
    /// The model the entity belongs to.
    public internal(set) weak var managedObjectModel: ManagedObjectModel?
    /// The name of the parent entity as read from a file, resolved when the model is assembled.
    var superentityName: String?

    var isFrozen = false
    @exclusivity(unchecked)  // written once, when the model is frozen, before any object reads it
    private var frozenLayout: Layout?
    /// The version hash, made once when the entity is frozen (written before any reader, like `frozenLayout`):
    /// checking a store's metadata hashed every entity again, a third of a daemon's start-up on 10,000 files.
    private var frozenVersionHash: Data?
    private var frozenLegacyVersionHash: Data?
    /// Set once the entity is frozen (after its layout), for readers on any thread: a new managed object checks
    /// it instead of loading its model's weak reference.
    private let frozenMark = Atomic<Bool>(false)

    /// Whether the entity's model was put to use (and the entity frozen with it).
    var isFrozenForUse: Bool { frozenMark.load(ordering: .acquiring) }

    /// Creates an entity.
    public init(name: String, properties: [PropertyDescription] = [], managedObjectClassName: String = "ManagedObject") {
        self.name = name
        self.managedObjectClassName = managedObjectClassName
        self.properties = properties
        for property in properties { property.entity = self }
    }

    /// Every property, inherited ones first, in declaration order.
    public var allProperties: [PropertyDescription] { layout.properties }
    /// Every property by name, inherited ones included.
    public var propertiesByName: [String: PropertyDescription] { layout.propertiesByName }
    /// Every attribute by name, inherited ones included.
    public var attributesByName: [String: AttributeDescription] { layout.attributesByName }
    /// Every relationship by name, inherited ones included.
    public var relationshipsByName: [String: RelationshipDescription] { layout.relationshipsByName }

    /// The entity at the top of this one's inheritance tree.
    public var rootEntity: EntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// This entity and every entity below it, depth first.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// Whether this entity is `other` or inherits from it.
    public func isKind(of other: EntityDescription) -> Bool {
        var entity: EntityDescription? = self
        while let current = entity {
            if current === other { return true }
            entity = current.superentity
        }
        return false
    }

    /// A hash of everything that changes how instances are stored, computed as Core Data computes
    /// `NSEntityDescription.versionHash`: compared with a store's metadata to refuse an incompatible model, and
    /// equal to the hash Core Data wrote for the same entity into its stores' metadata.
    ///
    /// SHA-256 of the name, a byte for abstract, the superentity's hash, the hashes of the stored attributes and
    /// relationships (inherited ones too) in order of name, the version hash modifier, and each uniqueness
    /// constraint's names joined by `.`, sorted. It does not cover default values, validation rules, indexes, user
    /// info or class names (as in Core Data, changing those needs no migration).
    public var versionHash: Data {
        frozenVersionHash ?? computedVersionHash()
    }

    /// The hash this framework computed before it computed Core Data's (``versionHash``): stores written then hold
    /// it in their metadata, and a model whose entities match either hash opens them.
    package var legacyVersionHash: Data {
        frozenLegacyVersionHash ?? computedLegacyVersionHash()
    }

    /// Whether a hash a store's metadata holds for this entity matches it (``versionHash``, or the earlier
    /// ``legacyVersionHash``).
    package func matchesVersionHash(_ hash: Data) -> Bool {
        hash == versionHash || hash == legacyVersionHash
    }

    /// ``versionHash`` made from the entity's current description.
    private func computedVersionHash() -> Data {
        var bytes = Data(name.utf8)
        bytes.append(isAbstract ? 1 : 0)
        if let superentity { bytes.append(superentity.versionHash) }
        for property in allProperties.sorted(by: { $0.name < $1.name })
        where property.isInCoreDataVersionHash && !property.isTransient {
            bytes.append(property.coreDataVersionHash)
        }
        if let versionHashModifier { bytes.append(contentsOf: Data(versionHashModifier.utf8)) }
        for constraint in uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted() where !constraint.isEmpty {
            bytes.append(contentsOf: Data(constraint.utf8))
        }
        return SHA256.hash(bytes)
    }

    /// ``legacyVersionHash`` made from the entity's current description.
    private func computedLegacyVersionHash() -> Data {
        var parts = ["entity", name, superentity?.name ?? "", isAbstract ? "abstract" : "", versionHashModifier ?? ""]
        for property in allProperties.sorted(by: { $0.name < $1.name }) where !property.isTransient {
            parts.append(contentsOf: property.versionHashComponents)
            parts.append("|")
        }
        return SHA256.hash(Data(parts.joined(separator: "\u{1F}").utf8))
    }

    func checkMutable() {
        precondition(!isFrozen, "entity '\(name)' changed after its model was put to use; models are immutable then")
    }

    func freeze() {
        guard !isFrozen else { return }
        frozenLayout = Layout(entity: self)
        frozenVersionHash = computedVersionHash()
        frozenLegacyVersionHash = computedLegacyVersionHash()
        isFrozen = true
        for property in properties { property.isFrozen = true }
        frozenMark.store(true, ordering: .releasing)
    }

    /// The entity's properties with their slot numbers: a managed object keeps its values in an array in this order.
    var layout: Layout { frozenLayout ?? Layout(entity: self) }

    /// The keys by which stores lay out the rows of records they read whole, so that a context applies them by
    /// position (see `Layout.recordKeys`).
    package var recordKeys: RecordKeys { layout.recordKeys }

    /// A validation error about a property of the entity, its message naming the entity and property through the
    /// model's localization dictionary; `text` holds `%@` where the property's name goes.
    func validationError(_ code: ValidationError.Code, key: String, text: String,
                         objectID: ManagedObjectID?) -> ValidationError {
        let model = managedObjectModel
        let propertyName = model?.localizedName(ofProperty: key, entity: name) ?? key
        let entityName = model?.localizedName(ofEntity: name) ?? name
        let sentence = (model?.localizedErrorString(text) ?? text).replacingOccurrences(of: "%@", with: propertyName)
        return ValidationError(code: code, message: "\(entityName): \(sentence).",
                               context: ErrorContext(entityName: name, key: key, objectID: objectID))
    }

    /// The error for a value that cannot be converted to its attribute's type.
    func wrongTypeError(key: String, type: AttributeType, objectID: ManagedObjectID?) -> ValidationError {
        validationError(.wrongType, key: key, text: "%@ must be a value of type \(type.rawValue)", objectID: objectID)
    }

    /// The error for a key, not a relationship's, that a request setting stored attributes only refuses: no property
    /// of that name, or one that is not stored. `requests` names them ("batch inserts").
    func notStoredAttributeError(key: String, refusedBy requests: String) -> ValidationError {
        let text = layout.propertiesByName[key] == nil
            ? "%@ is not a property of this entity" : "%@ is not stored, and \(requests) set stored attributes only"
        return validationError(.unknownKey, key: key, text: text, objectID: nil)
    }

    final class Layout {  // a class: frozen entities hand out one shared instance without copying its tables
        let properties: [PropertyDescription]
        let propertiesByName: [String: PropertyDescription]
        let attributesByName: [String: AttributeDescription]
        let relationshipsByName: [String: RelationshipDescription]
        /// The slot of each property, by name (see `slot(forKey:)`).
        private let slots: NameIndex
        /// What each slot holds, so objects are filled without casting property descriptions.
        let kinds: [SlotKind]
        /// A new object's slots before its to-many storage is made: attribute defaults, nil elsewhere.
        let template: [Any?]
        /// The slots of to-many relationships (each new object gets storage of its own there).
        let toManySlots: [Int]
        /// The slots whose template holds a default value (the others start nil, or with to-many storage).
        let defaultSlots: [Int]
        /// Whether every property is a stored attribute, in slot order: an object's slots are then its record's row
        /// as they are, and a save hands them over instead of copying each value.
        let recordsAreSlots: Bool
        /// Whether the entity has relationships of either kind.
        let hasRelationships: Bool
        /// For each attribute whose only rules are its type and optionality, whether it is optional: validating a
        /// value of the canonical type (or nil, where allowed) then needs nothing else. `nil` for other slots.
        let typeOnlyOptionality: [Bool?]
        /// The keys of the entity's records as a context makes them and stores read them whole: the stored
        /// attributes, then the stored relationships, in slot order. Records laid out by them are made and applied
        /// to objects without hashing a name.
        let recordKeys: RecordKeys
        /// The slot of each of `recordKeys`, by position.
        let recordSlots: [Int]
        /// How many of `recordKeys` are attributes (the first ones).
        let recordAttributeCount: Int
        /// The position in `recordKeys` of each slot's property; -1 for a property records do not keep.
        let recordPositions: [Int]
        /// A temporary ID of the entity, whose names new objects' IDs share.
        let temporaryID: ManagedObjectID
        /// The type of each attribute (`nil` for other properties).
        let attributeTypes: [AttributeType?]

        enum SlotKind {
            case attribute(isTransient: Bool)
            case toOne
            case toMany
            case other
        }

        init(entity: EntityDescription) {
            var chain: [EntityDescription] = []
            var current: EntityDescription? = entity
            while let next = current {
                chain.insert(next, at: 0)
                current = next.superentity
            }
            properties = chain.flatMap(\.properties)
            var byName: [String: PropertyDescription] = [:]
            var attributes: [String: AttributeDescription] = [:]
            var relationships: [String: RelationshipDescription] = [:]
            for property in properties {
                byName[property.name] = property
                if let attribute = property as? AttributeDescription { attributes[property.name] = attribute }
                if let relationship = property as? RelationshipDescription {
                    relationships[property.name] = relationship
                }
            }
            let kinds: [SlotKind] = properties.map { property in
                switch property {
                case let attribute as AttributeDescription: .attribute(isTransient: attribute.isTransient)
                case let relationship as RelationshipDescription: relationship.isToMany ? .toMany : .toOne
                default: .other
                }
            }
            let template = properties.map { ($0 as? AttributeDescription)?.defaultValue }
            self.template = template
            self.kinds = kinds
            temporaryID = ManagedObjectID.makeTemporary(entityName: entity.name)
            let names = properties.map(\.name)
            let storedAttributes = kinds.indices.filter {
                if case .attribute(isTransient: false) = kinds[$0] { true } else { false }
            }
            let properties = properties
            let storedRelationships = properties.indices.filter {
                (properties[$0] as? RelationshipDescription).map { !$0.isTransient } ?? false
            }
            let recordSlots = storedAttributes + storedRelationships
            self.recordSlots = recordSlots
            recordAttributeCount = storedAttributes.count
            recordKeys = RecordKeys(recordSlots.map { names[$0] })
            var recordPositions = [Int](repeating: -1, count: properties.count)
            for (position, slot) in recordSlots.enumerated() { recordPositions[slot] = position }
            self.recordPositions = recordPositions
            attributeTypes = properties.map { ($0 as? AttributeDescription)?.attributeType }
            typeOnlyOptionality = properties.map { property in
                guard let attribute = property as? AttributeDescription, !attribute.hasRulesBeyondType else { return nil }
                return attribute.isOptional
            }
            toManySlots = kinds.indices.filter { if case .toMany = kinds[$0] { true } else { false } }
            defaultSlots = template.indices.filter { template[$0] != nil }
            recordsAreSlots = recordSlots == Array(properties.indices) && storedAttributes.count == properties.count
            hasRelationships = !relationships.isEmpty
            self.propertiesByName = byName
            self.attributesByName = attributes
            self.relationshipsByName = relationships
            slots = NameIndex(names)
        }

        /// The slot of the property named `key`, if the entity has one.
        @inline(__always)
        func slot(forKey key: String) -> Int? {
            slots.position(of: key)
        }
    }
}

/// A fetch index of an entity: a name and the properties indexed together, in order.
public struct FetchIndexDescription: Sendable, Hashable {
    /// The index's name.
    public var name: String
    /// The indexed property names, in order, each ascending unless listed in `descending`.
    public var propertyNames: [String]
    /// The property names indexed in descending order.
    public var descending: Set<String>

    /// Creates a fetch index.
    public init(name: String, propertyNames: [String], descending: Set<String> = []) {
        self.name = name
        self.propertyNames = propertyNames
        self.descending = descending
    }
}
