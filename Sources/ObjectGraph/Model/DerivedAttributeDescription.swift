import Foundation

/// An attribute whose value is computed from other properties of its object each time the object is saved, as
/// Core Data's `NSDerivedAttributeDescription`.
///
/// The ``derivationExpression`` takes one of the forms Core Data supports:
///
/// | Form | Example |
/// | --- | --- |
/// | a key path through to-one relationships to an attribute | `name`, `room.name` |
/// | a to-many relationship with `@count`, or `@sum`/`@avg`/`@min`/`@max` of an attribute | `sessions.@count`, `sessions.@sum.duration` |
/// | `canonical:`, `lowercase:` or `uppercase:` of such a to-one key path | `canonical:(name)` |
/// | the time of the save | `now()` |
///
/// `canonical:` folds case and diacritics (`Ärger` becomes `arger`), as `[cd]` comparisons do. Derived values are
/// stored like any attribute, so every store keeps them and predicates, sorts and aggregates read them.
///
/// ```swift
/// let searchName = DerivedAttributeDescription()
/// searchName.name = "searchName"
/// searchName.attributeType = .string
/// searchName.derivationExpression = try ObjectExpression(format: "canonical:(name)")
/// entity.properties.append(searchName)
/// ```
///
/// ## When values are computed
/// ``ManagedObjectContext/save()`` recomputes the derived attributes of every inserted and updated object, and of
/// the objects that reach a changed object through the inverse of the derivation's first relationship: changing
/// a session's `duration` recomputes its room's `sessions.@sum.duration`; renaming a room recomputes its sessions'
/// `room.name`. Paths of several hops are recomputed when their own object changes, not when an object two hops
/// away does. Until the save, the object holds the value of its last save.
///
/// ## Setting a derived value
/// Derived values belong to the model: a value the app sets is overwritten by the computed one when the object is
/// saved, as Core Data's SQLite store does. Batch updates and batch inserts write what they are given.
public final class DerivedAttributeDescription: AttributeDescription, @unchecked Sendable {  // frozen with its model
    /// How the value is computed; `nil` until set (a model with a derived attribute lacking one does not load).
    public var derivationExpression: ObjectExpression? { didSet { checkMutable() } }

    /// Creates a derived attribute with an empty name and an undefined type, to be set before use, as Core Data's
    /// `NSDerivedAttributeDescription()`.
    public init() {
        super.init(name: "", type: .undefined)
    }

    /// Creates a derived attribute.
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: The type the computed values are converted to.
    ///   - derivationExpression: How the value is computed (see ``DerivedAttributeDescription``).
    public init(name: String, type: AttributeType, derivationExpression: ObjectExpression) {
        self.derivationExpression = derivationExpression
        super.init(name: name, type: type)
    }

    /// The expression as Xcode writes it in a model file: `canonical:(name)` rather than `canonical(name)`.
    public var derivationFormat: String? {
        guard let expression = derivationExpression else { return nil }
        if case .function(let name, let arguments) = expression, Self.stringFunctions.contains(name),
            arguments.count == 1
        {
            return "\(name):(\(arguments[0].expressionFormat))"
        }
        return expression.expressionFormat
    }

    /// Core Data's (`NSDerivedAttributeDescription`'s): SHA-256 of the derivation's `predicateFormat`
    /// (``coreDataDerivationText``). The attribute's own name, type and flags are not part of it: Core Data computes
    /// the attribute's hash and then hashes the derivation alone (and a filtering predicate, which models built here
    /// do not have).
    override var coreDataVersionHash: Data {
        SHA256.hash(Data((coreDataDerivationText ?? "").utf8))
    }

    /// The derivation as Core Data keeps and writes it: its `setDerivationExpression:` turns a key path ending in
    /// `.@count` into the function `count:(path)` and one ending in `.@sum` or `.@total` into `sum:(path)`, and
    /// `NSExpression` writes a function with its selector (`canonical:(title)`, `now()`).
    var coreDataDerivationText: String? {
        guard let expression = derivationExpression else { return nil }
        switch expression {
        case .keyPath(let path):
            for (suffix, function) in Self.aggregateSuffixes where path.hasSuffix(suffix) {
                return "\(function):(\(path.dropLast(suffix.count)))"
            }
            return path
        case .function(let name, let arguments) where arguments.isEmpty:
            return "\(name)()"
        case .function(let name, let arguments) where arguments.count == 1:
            return "\(name):(\(arguments[0].expressionFormat))"
        default:
            return expression.expressionFormat
        }
    }

    override var versionHashComponents: [String] {
        super.versionHashComponents + ["derived", derivationExpression?.expressionFormat ?? ""]
    }

    static let stringFunctions: Set<String> = ["canonical", "lowercase", "uppercase"]

    /// The key-path endings Core Data's `setDerivationExpression:` turns into functions of the path before them.
    private static let aggregateSuffixes = [(".@count", "count"), (".@sum", "sum"), (".@total", "sum")]

    /// A derivation as Core Data keeps it, read back in the key-path form this framework evaluates:
    /// `count:(path)` as `path.@count`, `sum:(path)` as `path.@sum`; any other expression as it is.
    package static func keyPathForm(of expression: ObjectExpression) -> ObjectExpression {
        guard case .function(let name, let arguments) = expression, arguments.count == 1,
            case .keyPath(let path) = arguments[0],
            let suffix = aggregateSuffixes.first(where: { $0.1 == name })?.0
        else { return expression }
        return .keyPath(path + suffix)
    }
}

/// A derived attribute's expression, checked against its entity and ready to evaluate.
struct Derivation {
    enum Form {
        case keyPath(CompiledKeyPath)
        case function(String, CompiledKeyPath)
        case now
    }

    let attribute: DerivedAttributeDescription
    let form: Form
    /// The relationship the key path starts with, if any: changes to its destinations reach this attribute.
    let firstRelationship: RelationshipDescription?

    /// Checks `attribute`'s expression against `entity` (relationships resolved).
    /// - Throws: ``ModelError/Code/invalidDerivation`` naming the entity and attribute.
    init(_ attribute: DerivedAttributeDescription, of entity: EntityDescription) throws {
        self.attribute = attribute
        func failure(_ reason: String) -> ModelError {
            ModelError(
                code: .invalidDerivation,
                message: "Derived attribute '\(attribute.name)' of '\(entity.name)' \(reason).",
                context: ErrorContext(entityName: entity.name, key: attribute.name))
        }
        guard let expression = attribute.derivationExpression else {
            throw failure("has no derivation expression; set one such as 'name', 'items.@count' or 'now()'")
        }
        switch expression {
        case .keyPath(let path):
            firstRelationship = try Self.check(path, from: entity, allowsToMany: true, failure)
            form = .keyPath(CompiledKeyPath(path))
        case .function("now", let arguments) where arguments.isEmpty:
            firstRelationship = nil
            form = .now
        case .function(let name, let arguments)
        where DerivedAttributeDescription.stringFunctions.contains(name) && arguments.count == 1:
            guard case .keyPath(let path) = arguments[0] else {
                throw failure("applies \(name): to '\(arguments[0].expressionFormat)', which is not a key path")
            }
            firstRelationship = try Self.check(path, from: entity, allowsToMany: false, failure)
            form = .function(name, CompiledKeyPath(path))
        default:
            throw failure(
                "has the expression '\(expression.expressionFormat)', which derived attributes do not "
                    + "support; use a key path, a to-many @count or @sum, canonical:, lowercase:, uppercase: or now()")
        }
    }

    /// The value for `object`, converted to the attribute's type (`nil` when it cannot be).
    func value(for object: ManagedObject) -> Any? {
        let raw: Any?
        switch form {
        case .now: raw = Date()
        case .keyPath(let path): raw = try? path.value(of: object)
        case .function(let name, let path):
            let argument = try? path.value(of: object)
            raw = try? FunctionEvaluator.call(name, [argument])
        }
        guard let raw, !(raw is NSNull) else { return nil }
        if attribute.attributeType == .undefined { return raw }
        return attribute.attributeType.coerce(raw)
    }

    /// Checks that `path` leads from `entity` to an attribute through to-one relationships, or (when allowed) ends
    /// with a to-many relationship and a collection operator; returns the relationship it starts with.
    private static func check(
        _ path: String, from entity: EntityDescription, allowsToMany: Bool,
        _ failure: (String) -> ModelError
    ) throws -> RelationshipDescription? {
        let components = ObjectExpression.keyPathComponents(path)
        var current = entity
        var first: RelationshipDescription?
        var index = 0
        while index < components.count {
            guard case .key(let key) = components[index] else {
                throw failure("has the key path '\(path)', whose operator does not follow a to-many relationship")
            }
            let isLast = index == components.count - 1
            switch current.layout.propertiesByName[key] {
            case let composite as CompositeAttributeDescription where !isLast:
                // An element of a composite attribute (`magnitude.richter`).
                var keys: [String] = []
                for component in components[(index + 1)...] {
                    guard case .key(let elementKey) = component else { break }
                    keys.append(elementKey)
                }
                guard keys.count == components.count - index - 1,
                    composite.leafElements.contains(where: { $0.path == keys })
                else {
                    let element = keys.joined(separator: ".")
                    throw failure("has the key path '\(path)', but composite '\(key)' has no element '\(element)'")
                }
                return first
            case is AttributeDescription:
                guard isLast else { throw failure("has the key path '\(path)', which goes on past attribute '\(key)'") }
                return first
            case let relationship as RelationshipDescription:
                if index == 0 { first = relationship }
                guard let destination = relationship.destinationEntity else {
                    throw failure("has the key path '\(path)', whose relationship '\(key)' is unresolved")
                }
                if !relationship.isToMany {
                    guard !isLast else {
                        throw failure("has the key path '\(path)', which ends at a relationship, not an attribute")
                    }
                    current = destination
                    index += 1
                    continue
                }
                let rest = components[(index + 1)...]
                guard allowsToMany, case .collectionOperator(let op)? = rest.first else {
                    throw failure("has the key path '\(path)', which needs @count or @sum after to-many '\(key)'")
                }
                if op == .count, rest.count == 1 { return first }
                guard op != .count, rest.count == 2, case .key(let attributeKey) = rest.last!,
                    destination.layout.propertiesByName[attributeKey] is AttributeDescription
                else {
                    throw failure(
                        "has the key path '\(path)'; after a to-many relationship use @count, or "
                            + "@sum (@avg, @min, @max) and an attribute of '\(destination.name)'")
                }
                return first
            default:
                throw failure(
                    "has the key path '\(path)', but '\(current.name)' has no attribute or relationship "
                        + "named '\(key)'")
            }
        }
        throw failure("has an empty key path")
    }
}

/// The derived attributes of a frozen model: what each entity computes, and which changes reach which objects.
final class Derivations: Sendable {
    /// By entity (inherited attributes included): the derivations and the slots they fill.
    private let byEntity: [ObjectIdentifier: [(slot: Int, derivation: Derivation)]]
    /// By entity: the relationships from its objects to objects whose derived attributes they feed.
    private let feeding: [ObjectIdentifier: [RelationshipDescription]]

    /// The derivations of `entities`, or `nil` when none has a derived attribute.
    /// - Throws: ``ModelError/Code/invalidDerivation``.
    static func make(for entities: [EntityDescription]) throws -> Derivations? {
        var byEntity: [ObjectIdentifier: [(slot: Int, derivation: Derivation)]] = [:]
        var feeding: [ObjectIdentifier: [RelationshipDescription]] = [:]
        for entity in entities {
            let layout = entity.layout
            for (slot, property) in layout.properties.enumerated() {
                guard let attribute = property as? DerivedAttributeDescription else { continue }
                let derivation = try Derivation(attribute, of: entity)
                byEntity[ObjectIdentifier(entity), default: []].append((slot, derivation))
                guard let inverse = derivation.firstRelationship?.inverseRelationship,
                    let destination = derivation.firstRelationship?.destinationEntity
                else { continue }
                for fed in destination.selfAndDescendants
                where !(feeding[ObjectIdentifier(fed)] ?? []).contains(where: { $0 === inverse }) {
                    feeding[ObjectIdentifier(fed), default: []].append(inverse)
                }
            }
        }
        return byEntity.isEmpty ? nil : Derivations(byEntity: byEntity, feeding: feeding)
    }

    private init(
        byEntity: [ObjectIdentifier: [(slot: Int, derivation: Derivation)]],
        feeding: [ObjectIdentifier: [RelationshipDescription]]
    ) {
        self.byEntity = byEntity
        self.feeding = feeding
    }

    /// Recomputes the derived attributes of `changed` objects and of the objects they feed; a value that differs
    /// is written like ``ManagedObject/setPrimitiveValue(_:forKey:)`` writes one, so the object is saved with it.
    func recompute(changed: [ManagedObject]) {
        var seen: Set<ObjectIdentifier> = []
        var targets: [ManagedObject] = []
        func add(_ object: ManagedObject) {
            guard !object.isDeletedFlag, byEntity[ObjectIdentifier(object.entity)] != nil,
                seen.insert(ObjectIdentifier(object)).inserted
            else { return }
            targets.append(object)
        }
        for object in changed {
            add(object)
            for relationship in feeding[ObjectIdentifier(object.entity)] ?? [] {
                object.relatedObjects(relationship).forEach(add)
            }
        }
        for object in targets {
            for (slot, derivation) in byEntity[ObjectIdentifier(object.entity)] ?? [] {
                let value = derivation.value(for: object)
                guard !ManagedObject.slotValuesEqual(object.slotValue(slot), value) else { continue }
                object.setDerivedValue(value, slot: slot)
            }
        }
    }
}

// Derivation holds model objects that are immutable once frozen, like the model itself.
extension Derivation: @unchecked Sendable {}
