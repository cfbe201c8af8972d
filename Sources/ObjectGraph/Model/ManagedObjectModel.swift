import Foundation
import Synchronization

/// A managed object model: entities, configurations, fetch request templates and localized names.
///
/// Build a model in code or read one from an Xcode model file (`ObjectGraphXML`). A model may be changed until
/// it is put to use: the first coordinator or managed object that uses it freezes it, and later changes are a
/// programmer error (a precondition failure). A frozen model is immutable and safe to share between threads.
public final class ManagedObjectModel: @unchecked Sendable {  // mutable only before freeze(), read-only after
    /// The model's entities, in declaration order. Setting it resolves inheritance and relationships.
    public var entities: [EntityDescription] = [] {
        didSet {
            checkMutable()
            for entity in entities { entity.managedObjectModel = self }
        }
    }

    /// Localized names of entities and properties and localized error strings, keyed as Core Data keys them:
    /// `Entity/NAME`, `Property/NAME/Entity/ENTITY`, `Property/NAME` and `ErrorString/TEXT`.
    public var localizationDictionary: [String: String] = [:] { didSet { checkMutable() } }
    /// Identifiers of the model's version (kept for round trips and store metadata).
    public var versionIdentifiers: Set<String> = [] { didSet { checkMutable() } }

    private var configurationEntities: [String: [String]] = [:]
    private var configurationOrder: [String] = []
    private var templates: [String: FetchRequestTemplate] = [:]
    private var frozenEntitiesByName: [String: EntityDescription]?
    /// Whether the model has been put to use and can no longer change.
    public private(set) var isFrozen = false
    /// Whether objects of some entity can hold other objects (relationships, fetched properties); set when frozen.
    /// Contexts of a model where none can skip breaking reference cycles when they go away.
    private(set) var objectsReferToObjects = true
    /// The derived attributes, set when the model is frozen; `nil` when it has none (saves then skip them).
    private(set) var derivations: Derivations?
    private let freezeLock = Lock()
    /// Set once frozen, so `freeze()` on a frozen model (every new managed object calls it) takes no lock.
    private let frozenFlag = Atomic<Bool>(false)

    /// Creates a model with entities.
    public init(entities: [EntityDescription] = []) {
        self.entities = entities
        for entity in entities { entity.managedObjectModel = self }
    }

    /// Creates a model that holds the entities, configurations, templates and localizations of several models.
    ///
    /// - Throws: ``ModelError/Code/duplicateEntity`` when two models define an entity of the same name.
    ///   Configurations with the same name are merged.
    public convenience init(byMerging models: [ManagedObjectModel]) throws {
        self.init()
        var seen: Set<String> = []
        var merged: [EntityDescription] = []
        for model in models {
            for entity in model.entities {
                guard seen.insert(entity.name).inserted else {
                    throw ModelError(code: .duplicateEntity,
                                     message: "Two models define an entity named '\(entity.name)'; rename one of them.",
                                     context: ErrorContext(entityName: entity.name))
                }
                merged.append(entity.copyForMerge())
            }
            for name in model.configurations {
                let existing = configurationEntities[name] ?? []
                let added = model.configurationEntities[name] ?? []
                if configurationEntities[name] == nil { configurationOrder.append(name) }
                configurationEntities[name] = existing + added.filter { !existing.contains($0) }
            }
            templates.merge(model.templates) { first, _ in first }
            localizationDictionary.merge(model.localizationDictionary) { first, _ in first }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
        entities = merged
        try resolveRelationships()
    }

    /// The entities by name.
    public var entitiesByName: [String: EntityDescription] {
        if let frozenEntitiesByName { return frozenEntitiesByName }
        return Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The names of the model's configurations, in the order they were defined.
    public var configurations: [String] { configurationOrder }

    /// The entities of a configuration; `nil` names the default configuration, which holds every entity.
    /// Returns `nil` for an unknown configuration name.
    public func entities(forConfigurationName name: String?) -> [EntityDescription]? {
        guard let name, name != Self.defaultConfigurationName else { return entities }
        guard let names = configurationEntities[name] else { return nil }
        let byName = entitiesByName
        return names.compactMap { byName[$0] }
    }

    /// The name Core Data uses for the configuration that holds every entity.
    public static let defaultConfigurationName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// Makes a configuration hold these entities (an entity may belong to several configurations).
    public func setEntities(_ entities: [EntityDescription], forConfigurationName name: String) {
        checkMutable()
        if configurationEntities[name] == nil { configurationOrder.append(name) }
        configurationEntities[name] = entities.map(\.name)
    }

    /// Whether a configuration (or the default one, for `nil`) holds the entity named `entityName`.
    public func configuration(_ name: String?, contains entityName: String) -> Bool {
        guard let name, name != Self.defaultConfigurationName else { return entitiesByName[entityName] != nil }
        return configurationEntities[name]?.contains(entityName) ?? false
    }

    // MARK: Fetch request templates

    /// The names of the fetch request templates, sorted.
    public var fetchRequestTemplateNames: [String] { templates.keys.sorted() }

    /// The templates by name, as values.
    public var fetchRequestTemplatesByName: [String: FetchRequestTemplate] { templates }

    /// Stores a fetch request template under a name (`nil` removes it).
    public func setFetchRequestTemplate(_ request: FetchRequest?, forName name: String) {
        checkMutable()
        templates[name] = request?.template
    }

    /// Stores a fetch request template value under a name.
    public func setFetchRequestTemplate(_ template: FetchRequestTemplate, forName name: String) {
        checkMutable()
        templates[name] = template
    }

    /// A new fetch request built from a template, with its variables left in place; `nil` for an unknown name.
    public func fetchRequestTemplate(forName name: String) -> FetchRequest? {
        templates[name].map(FetchRequest.init(template:))
    }

    /// A new fetch request built from a template with `$VARIABLES` replaced by the given values.
    ///
    /// - Throws: ``ModelError/Code/unknownTemplate`` for an unknown name; ``ModelError/Code/missingVariable``
    ///   naming every variable the template needs and `variables` lacks.
    public func fetchRequestFromTemplate(withName name: String,
                                         substitutionVariables variables: [String: Any?]) throws -> FetchRequest {
        guard let template = templates[name] else {
            throw ModelError(code: .unknownTemplate,
                             message: "The model has no fetch request template named '\(name)'. Known templates: "
                                + fetchRequestTemplateNames.joined(separator: ", ") + ".")
        }
        let request = FetchRequest(template: template)
        if let predicate = template.predicate {
            let missing = predicate.referencedVariables.subtracting(variables.keys).sorted()
            guard missing.isEmpty else {
                throw ModelError(code: .missingVariable,
                                 message: "Template '\(name)' needs the variable(s) "
                                    + missing.map { "$" + $0 }.joined(separator: ", ") + "; pass a value for each.",
                                 context: ErrorContext(entityName: template.entityName), variableNames: missing)
            }
            request.predicate = try predicate.withSubstitutionVariables(variables)
        }
        return request
    }

    // MARK: Version hashes

    /// The version hash of every entity by name; stores keep these to refuse an incompatible model.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }

    /// Whether a store's metadata was written with this model's configuration (compares entity version hashes).
    public func isConfiguration(withName name: String?, compatibleWithStoreMetadata metadata: StoreMetadata) -> Bool {
        guard let stored = metadata.modelVersionHashes else { return true }
        for entity in entities(forConfigurationName: name) ?? entities {
            guard let hash = stored[entity.name] else {
                if stored.isEmpty { continue }
                return false
            }
            // Core Data's hash, or the one stores this framework wrote before it computed Core Data's.
            if !entity.matchesVersionHash(hash) { return false }
        }
        return true
    }

    // MARK: Localization

    /// The localized name of a property of an entity, through ``localizationDictionary``.
    public func localizedName(ofProperty property: String, entity: String) -> String {
        localizationDictionary["Property/\(property)/Entity/\(entity)"]
            ?? localizationDictionary["Property/\(property)"] ?? property
    }

    /// The localized name of an entity, through ``localizationDictionary``.
    public func localizedName(ofEntity entity: String) -> String {
        localizationDictionary["Entity/\(entity)"] ?? entity
    }

    /// A localized error string: `ErrorString/TEXT` from ``localizationDictionary``, else the text itself.
    public func localizedErrorString(_ text: String) -> String {
        localizationDictionary["ErrorString/\(text)"] ?? text
    }

    // MARK: Assembly and freezing

    /// Resolves parent entities named in files, destination entities and inverses.
    ///
    /// Checks derived attributes' expressions against their entities too.
    ///
    /// - Throws: ``ModelError/Code/unknownDestination``, ``ModelError/Code/invalidInheritance``,
    ///   ``ModelError/Code/invalidInverse`` or ``ModelError/Code/invalidDerivation`` naming the entity and property.
    public func resolveRelationships() throws {
        let byName = entitiesByName
        for entity in entities {
            if let parentName = entity.superentityName, entity.superentity == nil {
                guard let parent = byName[parentName], parent !== entity else {
                    throw ModelError(code: .invalidInheritance,
                                     message: "Entity '\(entity.name)' names parent entity '\(parentName)', which the "
                                        + "model lacks; add it or remove the parentEntity.",
                                     context: ErrorContext(entityName: entity.name))
                }
                if !parent.subentities.contains(where: { $0 === entity }) { parent.subentities.append(entity) }
            }
        }
        for entity in entities {
            var seen: Set<ObjectIdentifier> = []
            var current: EntityDescription? = entity
            while let next = current {
                guard seen.insert(ObjectIdentifier(next)).inserted else {
                    throw ModelError(code: .invalidInheritance,
                                     message: "Entity '\(entity.name)' inherits from itself.",
                                     context: ErrorContext(entityName: entity.name))
                }
                current = next.superentity
            }
        }
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties {
                guard let destination = byName[relationship.destinationEntityName] else {
                    throw ModelError(code: .unknownDestination,
                                     message: "Relationship '\(relationship.name)' of '\(entity.name)' points at "
                                        + "entity '\(relationship.destinationEntityName)', which the model lacks.",
                                     context: ErrorContext(entityName: entity.name, key: relationship.name))
                }
                relationship.destinationEntity = destination
            }
        }
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties {
                guard let inverseName = relationship.inverseName, let destination = relationship.destinationEntity else {
                    continue
                }
                guard let inverse = destination.layout.relationshipsByName[inverseName] else {
                    throw ModelError(code: .invalidInverse,
                                     message: "Relationship '\(relationship.name)' of '\(entity.name)' names inverse "
                                        + "'\(inverseName)', which '\(destination.name)' lacks.",
                                     context: ErrorContext(entityName: entity.name, key: relationship.name))
                }
                relationship.inverseRelationship = inverse
            }
        }
        _ = try Derivations.make(for: entities)
    }

    /// Freezes the model: resolves it and makes it immutable. Called by the first coordinator or object using it.
    ///
    /// A model that cannot be resolved is a programmer error here; call ``resolveRelationships()`` first to get the
    /// error as a thrown ``ModelError``.
    public func freeze() {
        if frozenFlag.load(ordering: .acquiring) { return }
        freezeLock.lock()
        defer { freezeLock.unlock() }
        guard !isFrozen else { return }
        do {
            try resolveRelationships()
        } catch {
            preconditionFailure("the managed object model is inconsistent: \(error)")
        }
        for entity in entities { entity.freeze() }
        derivations = try? Derivations.make(for: entities)
        frozenEntitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        objectsReferToObjects = entities.contains { entity in
            entity.layout.kinds.contains { if case .attribute = $0 { false } else { true } }
        }
        isFrozen = true
        frozenFlag.store(true, ordering: .releasing)
    }

    private func checkMutable() {
        precondition(!isFrozen, "the managed object model changed after it was put to use; models are immutable then")
    }
}

extension EntityDescription {
    /// A copy of the entity and its properties for a merged model (relationships are resolved again there).
    func copyForMerge() -> EntityDescription {
        let copy = EntityDescription(name: name, managedObjectClassName: managedObjectClassName)
        copy.isAbstract = isAbstract
        copy.userInfo = userInfo
        copy.uniquenessConstraints = uniquenessConstraints
        copy.indexes = indexes
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.superentityName = superentity?.name ?? superentityName
        copy.properties = properties.map { $0.copyForMerge() }
        return copy
    }
}

extension PropertyDescription {
    /// A copy of the property (relationships unresolved), for merged models and for model files that use one
    /// definition in several places.
    package func copyForMerge() -> PropertyDescription {
        let copy: PropertyDescription
        switch self {
        case let derived as DerivedAttributeDescription:
            let new = DerivedAttributeDescription()
            new.name = name
            new.attributeType = derived.attributeType
            new.derivationExpression = derived.derivationExpression
            copy = new
        case let composite as CompositeAttributeDescription:
            copy = composite.copyWithElements()
        case let attribute as AttributeDescription:
            let new = AttributeDescription(name: name, type: attribute.attributeType, isOptional: isOptional,
                                           defaultValue: attribute.defaultValue)
            new.minimumValue = attribute.minimumValue
            new.maximumValue = attribute.maximumValue
            new.regularExpression = attribute.regularExpression
            new.valueTransformerName = attribute.valueTransformerName
            new.attributeValueClassName = attribute.attributeValueClassName
            new.usesScalarValueType = attribute.usesScalarValueType
            new.allowsExternalBinaryDataStorage = attribute.allowsExternalBinaryDataStorage
            copy = new
        case let relationship as RelationshipDescription:
            let new = RelationshipDescription(name: name, destination: relationship.destinationEntityName,
                                              inverse: relationship.inverseName, toMany: relationship.isToMany,
                                              deleteRule: relationship.deleteRule, isOptional: isOptional,
                                              isOrdered: relationship.isOrdered)
            new.minCount = relationship.minCount
            new.maxCount = relationship.maxCount
            copy = new
        case let fetched as FetchedPropertyDescription:
            let new = FetchedPropertyDescription(name: name, destination: fetched.destinationEntityName,
                                                 predicate: fetched.predicate)
            new.sortKeys = fetched.sortKeys
            copy = new
        default:
            copy = PropertyDescription(name: name)
        }
        copy.isOptional = isOptional
        copy.isTransient = isTransient
        copy.isIndexed = isIndexed
        copy.userInfo = userInfo
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.setValidationPredicates(validationPredicates, withValidationWarnings: validationWarnings)
        return copy
    }
}
