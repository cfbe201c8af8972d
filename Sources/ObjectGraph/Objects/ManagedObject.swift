import Foundation

/// An object of the graph: an instance of an entity, living in exactly one managed object context.
///
/// Read and write values by key (``value(forKey:)``, ``setValue(_:forKey:)``) or through typed properties that a
/// subclass declares on top of them. Register a subclass with ``ManagedObjectClassRegistry`` under the entity's
/// class name, and the context creates instances of it. A managed object is not `Sendable`: it belongs to its
/// context's isolation domain; pass its ``objectID`` to other domains.
///
/// Subclasses override hooks to take part in the object's life: ``awakeFromInsert()``, ``awakeFromFetch()``,
/// ``willSave()``, ``didSave()``, ``prepareForDeletion()`` and the validation methods.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: EntityDescription
    /// The entity's layout, kept here: every value set or read needs it, and reaching it through the entity cost an
    /// access to the entity's state and a retain each time.
    let slotLayout: EntityDescription.Layout
    // The object's state below is read and written for every value set or read, and the runtime's exclusivity
    // checks on class properties (a thread-local access set, per access) cost about 5% of inserting objects through
    // a context. The state is internal, the object is confined to its context's isolation domain, and the
    // framework's only long accesses (`slots.withUnsafe...` closures) touch nothing else of the object, so no
    // accesses overlap and the checks are turned off.

    /// The object's ID: temporary until saved, then permanent.
    @exclusivity(unchecked)
    public internal(set) var objectID: ManagedObjectID
    /// The context the object lives in; `nil` before insertion, after its deletion is saved, and once the context
    /// is gone.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextLink?.context }
        set { contextLink = newValue?.link }
    }
    /// How the object reaches its context (see ``ManagedObjectContext/Link``).
    @exclusivity(unchecked)
    var contextLink: ManagedObjectContext.Link?

    /// The current values, one slot per property of the entity (see `EntityDescription.Layout`).
    /// To-one relationships hold `ManagedObject?`, to-many hold `ToManyStorage`.
    @exclusivity(unchecked)
    var slots: [Any?]
    /// The values as last read from or saved to the store, captured on the first change since then.
    @exclusivity(unchecked)
    var snapshot: [Any?]?
    /// The slots written since ``snapshot`` was captured, one bit per slot below 63; bit 63 stands for every slot
    /// (a later slot was written, or values were written wholesale). Only these slots, and to-many slots (their
    /// storage changes in place), can differ from the snapshot: finding an object's changes compares them alone.
    /// Comparing every slot of every changed object was half of a child context's save.
    var touchedSlots: UInt64 = 0
    @exclusivity(unchecked)
    var storage: StorageState = .loaded
    @exclusivity(unchecked)
    var version: Int64 = 0
    @exclusivity(unchecked)
    var isInsertedFlag = false
    @exclusivity(unchecked)
    var isDeletedFlag = false
    /// The object's positions in its context's lists of objects (see `PositionedObjectList`).
    @exclusivity(unchecked)
    var listPositions = ListPositions()

    /// An object's positions in its context's lists; -1 for none. 32 bits each: a list holds fewer than 2^31
    /// objects, and the three fit in the space of two words.
    struct ListPositions {
        private var storage: (Int32, Int32, Int32) = (-1, -1, -1)

        /// In the list of inserted objects.
        var inserted: Int {
            get { Int(storage.0) }
            set { storage.0 = Int32(truncatingIfNeeded: newValue) }
        }
        /// In the list of changed objects.
        var changed: Int {
            get { Int(storage.1) }
            set { storage.1 = Int32(truncatingIfNeeded: newValue) }
        }
        /// In the list of objects updated since the context's last event.
        var pendingUpdate: Int {
            get { Int(storage.2) }
            set { storage.2 = Int32(truncatingIfNeeded: newValue) }
        }
    }
    @exclusivity(unchecked)
    var fetchedPropertyCache = FetchedPropertyCache()
    /// The batch of a fetch with a batch size this fault belongs to; firing the fault fills the whole batch.
    @exclusivity(unchecked)
    var faultBatch: FaultBatch?
    /// A fault's values as the fetch that made it read them (Core Data's row cache): firing the fault applies them
    /// without asking the store, unless the coordinator's contents changed since (``faultValuesGeneration``).
    @exclusivity(unchecked)
    var faultValues: FaultValues?
    /// The coordinator's ``PersistentStoreCoordinator/contentGeneration`` when ``faultValues`` were read.
    @exclusivity(unchecked)
    var faultValuesGeneration: UInt64 = 0

    enum StorageState {
        case loaded, fault, invalid
    }

    /// Where a fault's kept values are.
    enum FaultValues {
        /// A record the fetch read.
        case record(StoreRecord)
        /// A record of a store that keeps sorted orders (``SortedOrderStore``), by position in the rows of the
        /// fetch that made the fault: read only when the fault fires, so the fetch itself reads neither the record
        /// nor its values.
        case row(OrderRows, Int)

        /// Whether the kept record left out the to-many lists (``StoreRecord/omitsToManyLists``).
        var omitsToManyLists: Bool {
            if case .record(let record) = self { return record.omitsToManyLists }
            return false
        }

        /// The kept record.
        var record: StoreRecord {
            switch self {
            case .record(let record): record
            case .row(let rows, let index): rows.record(at: index)
            }
        }
    }

    /// Creates an object of an entity and, when `context` is given, inserts it there (calling ``awakeFromInsert()``).
    ///
    /// Attributes start with their default values. Subclasses that override this initializer must call it.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        if !entity.isFrozenForUse { entity.managedObjectModel?.freeze() }
        self.entity = entity
        let layout = entity.layout
        self.slotLayout = layout
        self.objectID = ManagedObjectID.makeTemporary(like: layout.temporaryID)
        self.slots = Self.initialSlots(of: layout)
        if let context { context.insert(self) }
    }

    /// A fault for a saved object: its values load from `context` when first read. A context makes these for its
    /// fetches and ``ManagedObjectContext/object(with:)``, and registers them; application code gets objects from
    /// there rather than from this initializer.
    ///
    /// For the base class no temporary ID is made only to be replaced (subclasses' faults go through
    /// ``init(entity:insertInto:)``). It is public so that subclasses in other modules inherit every designated
    /// initializer, and with them ``init(context:)``.
    public init(
        faultOf entity: EntityDescription, objectID: ManagedObjectID, in context: borrowing ManagedObjectContext
    ) {
        if !entity.isFrozenForUse { entity.managedObjectModel?.freeze() }
        // The context is borrowed: an initializer takes its arguments owned, and the caller retained the context
        // for each fault only for this to release it again. Only its link is kept. (callgrind: one retain and one
        // release fewer per fault; a sorted fetch of 91,500 objects 17.9 -> 16.0 ms.)
        let layout = entity.layout
        self.entity = entity
        self.slotLayout = layout
        self.objectID = objectID
        // A fault shares the template until it fires (its relationships' slots hold nil there, as a refreshed
        // fault's do): a fetch of many objects that are never read allocates no slots, and firing writes a new
        // array rather than replacing the empty lists of its own.
        self.slots = layout.template
        self.storage = .fault
        self.contextLink = context.link
    }

    /// A new object's slots: attribute defaults, empty to-many storage of its own.
    ///
    /// Made here, not copied from the template on the first value set: nils are written for the concrete type, and
    /// only defaults are copied (the template's copy-on-write copied every slot through the existential's value
    /// witness).
    private static func initialSlots(of layout: EntityDescription.Layout) -> [Any?] {
        let template = layout.template
        var slots = [Any?].nils(count: template.count)
        for index in layout.defaultSlots { slots[index] = template[index] }
        for index in layout.toManySlots { slots[index] = ToManyStorage() }
        return slots
    }

    /// Drops the object's related objects (and the values kept for saving and fetched properties, which may hold
    /// related objects too); its context calls this when it goes away, to break reference cycles.
    func releaseRelationships() {
        // A fault holds no related objects: its slots are the template's or nils (and writing them would copy
        // the shared template).
        if storage == .fault {
            snapshot = nil
            if !fetchedPropertyCache.isEmpty { fetchedPropertyCache.removeAll() }
            return
        }
        let layout = slotLayout
        guard layout.hasRelationships || snapshot != nil || !fetchedPropertyCache.isEmpty else { return }
        for (index, kind) in layout.kinds.enumerated() {
            switch kind {
            case .toOne: slots[index] = nil
            case .toMany:
                // Emptied in place: a new empty storage for each list cost an allocation (and a weak reference).
                if let storage = slots[index] as? ToManyStorage {
                    storage.release()
                } else {
                    slots[index] = ToManyStorage()
                }
            case .attribute, .other: break
            }
        }
        snapshot = nil
        fetchedPropertyCache.removeAll()
    }

    // MARK: State

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { isInsertedFlag && !isDeletedFlag }
    /// Whether the object was deleted and the deletion not yet saved.
    public var isDeleted: Bool { isDeletedFlag }
    /// Whether the object's values have not been loaded yet (they load on first access, through the object's
    /// context). Keep the context alive while you read its objects: a fault whose context went away fills only its
    /// attributes, from the values its fetch kept, and its relationships stay empty.
    public var isFault: Bool { storage == .fault }
    /// Whether the object's data is gone: its store was removed or another context deleted it.
    public var isInvalid: Bool { storage == .invalid }
    /// Whether saved values changed since they were read.
    public var isUpdated: Bool { !isInsertedFlag && !isDeletedFlag && hasChangedSlots }
    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool { isInsertedFlag || isDeletedFlag || isUpdated }

    // MARK: Hooks

    /// Called once when the object is inserted into a context; set initial values here with
    /// ``setPrimitiveValue(_:forKey:)``.
    open func awakeFromInsert() {}
    /// Called when the object's values were loaded from a store.
    open func awakeFromFetch() {}
    /// Called before a save that includes the object; changes made here are saved too.
    open func willSave() {}
    /// Called after a save that included the object.
    open func didSave() {}
    /// Called when the object is deleted, before delete rules are applied.
    open func prepareForDeletion() {}

    /// Whether the object may be inserted; the default checks every property. Throw to refuse.
    open func validateForInsert() throws {
        if let error = ValidationError.combining(validateProperties()) { throw error }
    }

    /// Whether the object's changes may be saved; the default checks every property. Throw to refuse.
    open func validateForUpdate() throws {
        if let error = ValidationError.combining(validateProperties()) { throw error }
    }

    /// Whether the object may be deleted; the default refuses while a deny relationship has destinations.
    open func validateForDelete() throws {
        var errors: [ValidationError] = []
        for case let relationship as RelationshipDescription in entity.allProperties
        where relationship.deleteRule == .deny {
            let count = relatedObjects(relationship).filter { !$0.isDeleted }.count
            if count > 0 {
                errors.append(validationError(.relationshipDeniedDelete, key: relationship.name,
                                              text: "cannot be deleted while %@ refers to \(count) object(s)"))
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Validates one value for a key; override to add checks for particular keys (call `super` first).
    ///
    /// The default applies the model's rules: optionality, ranges, lengths, patterns and validation predicates.
    open func validateValue(_ value: Any?, forKey key: String) throws {
        guard let property = entity.propertiesByName[key] else {
            throw validationError(.unknownKey, key: key, text: "%@ is not a property of this entity")
        }
        if let error = ValidationError.combining(PropertyValidator(object: self).validate(value, for: property)) {
            throw error
        }
    }

    /// Called when nil is set for a non-optional scalar attribute (a number or Boolean). The default stores nil,
    /// and the save then fails with ``ValidationError/Code/missingMandatoryProperty``.
    open func setNilValueForKey(_ key: String) {
        setValueTracked(nil, slot: slot(for: key))
    }

    // MARK: Hashable

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    open var description: String {
        let state = isFault ? " (fault)" : isInvalid ? " (invalid)" : ""
        return "<\(entity.name) \(objectID.uriRepresentation().absoluteString)\(state)>"
    }

    // MARK: Internal helpers

    func slot(for key: String) -> Int {
        guard let index = slotLayout.slot(forKey: key) else {
            preconditionFailure("entity '\(entity.name)' has no property named '\(key)'")
        }
        return index
    }

    func validationError(_ code: ValidationError.Code, key: String, text: String) -> ValidationError {
        entity.validationError(code, key: key, text: text, objectID: objectID)
    }

    /// The destinations of a relationship as an array (empty for none).
    func relatedObjects(_ relationship: RelationshipDescription) -> [ManagedObject] {
        let value = slotValue(slot(for: relationship.name))
        if relationship.isToMany { return (value as? ToManyStorage)?.objects ?? [] }
        return (value as? ManagedObject).map { [$0] } ?? []
    }

    /// Validates every property through ``validateValue(_:forKey:)`` and collects all failures.
    func validateProperties() -> [ValidationError] {
        if storage == .fault { fireFault() }
        let layout = slotLayout
        let count = layout.properties.count
        // Subclasses may override validateValue(_:forKey:), so only plain objects take the short way for values
        // that cannot fail: nil or the canonical type for an attribute without other rules.
        // Those are found first, reading the slots in place (see `SlotView`); the others are validated after.
        var errors: [ValidationError] = []
        func validate(_ index: Int) {
            let plain: Any?
            switch layout.kinds[index] {
            case .other: return  // fetched properties
            case .toMany:
                let value = slots[index]
                plain = (value as? ToManyStorage).map { $0.objects as Any } ?? value
            case .attribute, .toOne: plain = slots[index]
            }
            let name = layout.properties[index].name
            do {
                try validateValue(plain, forKey: name)
            } catch let error as ValidationError {
                errors += error.allErrors
            } catch {
                errors.append(validationError(.custom, key: name, text: "\(error)"))
            }
        }
        guard type(of: self) == ManagedObject.self else {
            for index in 0..<count { validate(index) }
            return errors
        }
        var others: [Int] = []
        slots.withSlotView { view in
            let optionality = layout.typeOnlyOptionality
            let types = layout.attributeTypes
            for index in 0..<count {
                if let isOptional = optionality[index], let type = types[index] {
                    if view.typeIdentifier(at: index) == nil ? isOptional : type.isCanonical(at: index, in: view) {
                        continue
                    }
                }
                others.append(index)
            }
        }
        for index in others { validate(index) }
        return errors
    }
}

/// The to-many lists an object's record left out (``StoreRecord/omitsToManyLists``), shared by the object's unread
/// ``ToManyStorage``s: the first of them used reads the owner's record from its store once, for all of them (an
/// edit's snapshot copies every list). None when the store, the record or the context is gone: the lists stay
/// empty, as a fault that cannot fire.
final class UnreadLists {
    private let owner: ManagedObjectID
    /// The context, reached through its link (see ``ManagedObjectContext/Link``) rather than a weak reference.
    private let link: ManagedObjectContext.Link
    /// The owner's record once read (`.some(nil)` when there was none).
    private var record: StoreRecord??

    init(owner: ManagedObjectID, context: borrowing ManagedObjectContext) {
        self.owner = owner
        self.link = context.link
    }

    /// The destinations of the relationship `key`, read with the others the first time one is asked.
    func ids(forKey key: String) -> [ManagedObjectID] {
        if record == nil {
            record = .some(link.context.flatMap { try? $0.persistentStoreCoordinator.record(for: owner) })
        }
        return record??[key] as? [ManagedObjectID] ?? []
    }
}

/// The objects of a to-many relationship, kept in order with a membership index.
final class ToManyStorage {
    private var list: [ManagedObject] = []
    /// Destinations read from a record and not yet asked for: their IDs, made objects of the context on first use
    /// (Core Data's to-many fault). Filling an object from its record then costs no registry lookup per destination:
    /// a prefetched room's list of sessions is mostly never read.
    private var pending: [ManagedObjectID]?
    /// The context `pending` is made objects of, reached through its link (see ``ManagedObjectContext/Link``): a
    /// weak reference to the context gave it a side table, and every retain of the context then took the runtime's
    /// slow path (a twentieth of a prefetching fetch, perf).
    private var pendingLink: ManagedObjectContext.Link?
    private var pendingContext: ManagedObjectContext? { pendingLink?.context }
    /// The lists its owner's record left out (``StoreRecord/omitsToManyLists``) and the key of this one: read from
    /// the store, into `pending`, when the list is first used.
    private var unread: (lists: UnreadLists, key: String)?
    /// The objects' identities, made when a membership test first needs them on a list longer than `linearLimit`
    /// (then kept in step with `list`): most lists read from a store are short and never asked, and building a
    /// set for each one was a fifth of filling objects from their records.
    private var members: Set<ObjectIdentifier>?
    private static let linearLimit = 16

    init(_ objects: [ManagedObject] = []) {
        for object in objects { append(object) }
    }

    /// Storage for objects known to be distinct (a store's record names each destination once).
    init(distinct objects: [ManagedObject]) {
        list = objects
    }

    /// Storage for the distinct destinations a record names, made objects of `context` when first needed.
    init(distinctIDs ids: [ManagedObjectID], in context: borrowing ManagedObjectContext) {
        if !ids.isEmpty {
            pending = ids
            pendingLink = context.link
        }
    }

    /// Storage for the list `key` of `lists`, read when first used, its objects made in `context`.
    init(unread lists: UnreadLists, key: String, in context: borrowing ManagedObjectContext) {
        unread = (lists, key)
        pendingLink = context.link
    }

    /// Empties the storage, letting go of its objects and of what it would read (its owner's context went away).
    func release() {
        list = []
        pending = nil
        pendingLink = nil
        unread = nil
        members = nil
    }

    /// Reads a list its record left out (see ``UnreadLists``).
    private func readIfUnread() {
        guard let (lists, key) = unread else { return }
        unread = nil
        pending = lists.ids(forKey: key)
    }

    /// The destinations in order.
    var objects: [ManagedObject] {
        resolve()
        return list
    }

    var count: Int {
        readIfUnread()
        if let pending, pendingContext != nil { return pending.count }
        return objects.count
    }

    /// The destinations' IDs in order, without making objects of those not made yet.
    var objectIDs: [ManagedObjectID] {
        readIfUnread()
        if let pending, pendingContext != nil { return pending }
        return objects.map(\.objectID)
    }

    private func resolve() {
        readIfUnread()
        guard let ids = pending else { return }
        pending = nil
        guard let context = pendingContext else { return }
        pendingLink = nil
        list = ids.map { context.object(with: $0) }
    }

    func contains(_ object: ManagedObject) -> Bool {
        resolve()
        if list.count <= Self.linearLimit, members == nil { return list.contains { $0 === object } }
        if members == nil { members = Set(list.lazy.map { ObjectIdentifier($0) }) }
        return members!.contains(ObjectIdentifier(object))
    }

    @discardableResult
    func append(_ object: ManagedObject) -> Bool {
        guard !contains(object) else { return false }
        list.append(object)
        members?.insert(ObjectIdentifier(object))
        return true
    }

    func insert(_ object: ManagedObject, at index: Int) {
        guard !contains(object) else { return }
        list.insert(object, at: min(index, list.count))
        members?.insert(ObjectIdentifier(object))
    }

    /// Removes an object; returns its former index.
    @discardableResult
    func remove(_ object: ManagedObject) -> Int? {
        resolve()
        if let members, !members.contains(ObjectIdentifier(object)) { return nil }
        guard let index = list.firstIndex(where: { $0 === object }) else { return nil }
        list.remove(at: index)
        members?.remove(ObjectIdentifier(object))
        return index
    }

    func copy() -> ToManyStorage {
        readIfUnread()
        if let pending, let pendingContext { return ToManyStorage(distinctIDs: pending, in: pendingContext) }
        return ToManyStorage(distinct: objects)
    }
}

/// The results of an object's fetched properties by name, kept until the object is refreshed. Most objects never
/// read one, so no dictionary is made: making an empty one and releasing it were 2% of making a fault.
struct FetchedPropertyCache {
    private var results: [String: [ManagedObject]]?

    var isEmpty: Bool { results?.isEmpty ?? true }

    mutating func removeAll() { results = nil }

    subscript(name: String) -> [ManagedObject]? {
        get { results?[name] }
        set {
            if results == nil {
                guard newValue != nil else { return }
                results = [:]
            }
            results![name] = newValue
        }
    }
}
