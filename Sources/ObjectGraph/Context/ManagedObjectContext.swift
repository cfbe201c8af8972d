import Foundation

/// A scratchpad of managed objects: it fetches them, tracks their changes, validates and saves them, and undoes.
///
/// A context and its objects belong to one isolation domain (a task, an actor, a thread): neither is `Sendable`,
/// so the compiler keeps them there. Other domains get object IDs and `Sendable` events. Several contexts can share
/// one coordinator; merge one's saves into another with ``mergeChanges(fromContextDidSave:)``. A child context
/// (``init(parent:)``) saves into its parent instead of the stores: see <doc:NestedContexts>.
public final class ManagedObjectContext {
    /// The coordinator the context fetches from and saves to (a child's is its parent's).
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The context this one saves into (Core Data's `parent`); `nil` for a context that saves to the stores.
    public let parent: ManagedObjectContext?
    /// A name for logs and events; persistent history records it with each save (``PersistentHistoryTransaction/contextName``).
    public var name: String?
    /// Who saves: persistent history records it with each save of this context (Core Data's `transactionAuthor`).
    public var transactionAuthor: String?
    /// What a save does when objects changed in the store since the context read them.
    public var mergePolicy: MergePolicy = .error
    /// Whether changes are recorded for ``undo()``. Turn it off for bulk imports.
    public var isUndoRegistrationEnabled = true {
        didSet { link.recordsUndo = isRecordingUndo }
    }
    /// How many undo groups are kept (0, the default: no limit); setting it drops the oldest groups beyond it.
    public var undoLevels = 0 {
        didSet { trimUndoStack() }
    }
    /// Other contexts' saves waiting to be merged, when ``automaticallyMergesChangesFromParent`` is on.
    var automaticMerging: AutomaticMerging?
    /// Whether automatic merging, whenever it is on, merges on the main actor as soon as a save commits (the
    /// container's view context): kept here so that turning merging off and on again keeps it.
    var mergesOnMainActorWhenMerging = false

    let registered = ObjectRegistry()
    // The lists below change for every object inserted, changed or deleted. As with `ManagedObject`'s state, the
    // runtime's exclusivity checks on them are turned off: the context is confined to one isolation domain, and
    // their mutations (the lists' own methods) call nothing outside the list, so no accesses overlap.
    @exclusivity(unchecked)
    var inserted = PositionedObjectList(.inserted)
    @exclusivity(unchecked)
    var deleted = ObjectList()
    @exclusivity(unchecked)
    var changed = PositionedObjectList(.changed)
    /// Objects deleted while inserted (they leave the context at the next save or rollback unless the deletion is
    /// undone), so that neither has to look through every registered object for them. An undone deletion leaves its
    /// object listed (the save and rollback check the flags), so a redone one needs no new entry: only the save,
    /// rollback and reset empty the list, and they empty the undo and redo stacks too.
    @exclusivity(unchecked)
    var deletedWhileInserted = ObjectList()
    var assignedStores: [ObjectIdentifier: PersistentStore] = [:]
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    var openGroup: [UndoOperation] = []
    /// The action name given to the open group (see ``setActionName(_:)``).
    var openActionName = ""
    /// The links of the child contexts made on this one, so that the permanent IDs a save gives reach them; a
    /// link whose context went away is dropped when the next child is made.
    var childLinks: [Link] = []
    var isApplyingUndo = false {
        didSet { link.recordsUndo = isRecordingUndo }
    }
    @exclusivity(unchecked)
    var pending = PendingNotification()
    /// Counts the changes that may change which saved objects are updated, and how: a value of a saved object
    /// noted as changed (``noteChanged(_:notify:)``), an insertion, a deletion. A save finds its updated objects
    /// once and looks again only when this moved (a `willSave()` or a derived attribute changed something).
    var changeGeneration = 0
    /// The values objects held when ``ManagedObject/willChangeValue(forKey:)`` was called, by object and slot, until
    /// the matching ``ManagedObject/didChangeValue(forKey:)`` records them for undo.
    var valuesBeforeChange: [ObjectIdentifier: [Int: Any?]] = [:]
    var observers: [UUID: (ContextEvent) -> Void] = [:]
    var knownStoreGeneration: Int
    /// The entity and class of the last fault made: a fetch makes many of one entity in a row.
    var lastFaultClass: EntityClass?
    /// The entity and class of the last object inserted by entity name: imports insert many of one entity in a row.
    var lastInsertedClass: EntityClass?

    /// An entity and the class of its objects, as ``ManagedObjectClassRegistry`` gave it at a ``generation``.
    struct EntityClass {
        let entity: EntityDescription
        let objectClass: ManagedObject.Type
        let generation: Int

        init(_ entity: EntityDescription) {
            self.generation = ManagedObjectClassRegistry.generation
            self.entity = entity
            self.objectClass = ManagedObjectClassRegistry.objectClass(for: entity)
        }

        /// The shared names (``ManagedObjectID/namesIdentity``) of the last ID found to be of this entity: an ID
        /// with the same names is of it too, known without reading the entity's name (a class property, whose
        /// exclusivity check cost more than the rest of the test) or comparing strings. Shared names live as long
        /// as the process, so their identity is never another's.
        private var sharedNames: ObjectIdentifier?

        /// Whether this is the entity named `name` and no class was registered since.
        func holds(forEntityNamed name: String) -> Bool {
            entity.name == name && generation == ManagedObjectClassRegistry.generation
        }

        /// Whether `id` has the shared names last found to be of this entity, and no class was registered since.
        func knows(_ id: ManagedObjectID) -> Bool {
            id.namesIdentity == sharedNames && generation == ManagedObjectClassRegistry.generation
        }

        /// Whether this is the entity of `id` and no class was registered since; remembers the ID's shared names.
        mutating func learns(_ id: ManagedObjectID) -> Bool {
            guard holds(forEntityNamed: id.entityName) else { return false }
            if id.namesAreShared { sharedNames = id.namesIdentity }
            return true
        }
    }

    /// What the context's objects hold to reach it: a weak reference from each object would give the context a
    /// side table, and every retain of the context (several per object made) would take the runtime's slow path.
    /// The context clears the link when it goes away, so objects that outlive it see no context, as with a weak
    /// reference.
    final class Link {
        unowned(unsafe) var context: ManagedObjectContext?
        /// The context's ``isRecordingUndo``, kept here so that setting a new object's value need not reach the
        /// context at all when nothing is recorded (an import).
        var recordsUndo = true
        /// Whether the context has observers: changes of new objects are then reported to them too.
        var isObserved = false
    }

    let link = Link()

    /// Creates a context on a coordinator.
    public convenience init(coordinator: PersistentStoreCoordinator) {
        self.init(coordinator: coordinator, parent: nil)
    }

    init(coordinator: PersistentStoreCoordinator, parent: ManagedObjectContext?) {
        self.persistentStoreCoordinator = coordinator
        self.parent = parent
        self.knownStoreGeneration = coordinator.storeGeneration
        link.context = self
    }

    /// The coordinator's model.
    public var managedObjectModel: ManagedObjectModel { persistentStoreCoordinator.managedObjectModel }

    deinit {
        link.context = nil
        // Related objects hold each other (a session its room, the room its sessions): reference cycles, which
        // Core Data asks its users to break with refresh(_:mergeChanges:). Once the context is gone no object can
        // load related objects again (a fault firing then fills its attributes only), so the relationships of its
        // objects are dropped here and the cycles with them. (Objects of a
        // model without relationships or fetched properties hold no other objects: nothing to drop.)
        guard managedObjectModel.objectsReferToObjects else { return }
        registered.forEach { $0.releaseRelationships() }
        for object in inserted.objects { object.releaseRelationships() }
    }

    // MARK: State

    /// Whether the context holds unsaved changes.
    public var hasChanges: Bool {
        !inserted.isEmpty || !deleted.isEmpty || changed.contains { $0.isUpdated }
    }

    /// Objects inserted and not yet saved.
    public var insertedObjects: Set<ManagedObject> { Set(inserted.objects) }
    /// Objects whose saved values changed.
    public var updatedObjects: Set<ManagedObject> { Set(changed.objects.filter(\.isUpdated)) }
    /// Objects deleted and not yet saved.
    public var deletedObjects: Set<ManagedObject> { Set(deleted.objects) }
    /// Every object the context knows.
    public var registeredObjects: Set<ManagedObject> { Set(registered.values) }

    // MARK: Inserting

    /// Creates an object of the named entity, inserted into this context.
    ///
    /// - Precondition: the model has the entity and it is not abstract.
    @discardableResult
    public func insertNewObject(forEntityName entityName: String) -> ManagedObject {
        if let last = lastInsertedClass, last.holds(forEntityNamed: entityName) {
            return last.objectClass.init(entity: last.entity, insertInto: self)
        }
        guard let entity = managedObjectModel.entitiesByName[entityName] else {
            preconditionFailure("the model has no entity named '\(entityName)'")
        }
        let found = EntityClass(entity)
        lastInsertedClass = found
        return found.objectClass.init(entity: entity, insertInto: self)
    }

    /// Inserts an object that was created without a context.
    public func insert(_ object: ManagedObject) {
        checkStores()
        if object.managedObjectContext === self, object.isInserted { return }
        precondition(object.managedObjectContext == nil || object.managedObjectContext === self,
                     "an object can live in one context only")
        precondition(!object.entity.isAbstract, "entity '\(object.entity.name)' is abstract and cannot be instantiated")
        if object.isDeletedFlag, object.managedObjectContext === self {
            undelete(object)
            return
        }
        object.managedObjectContext = self
        object.isInsertedFlag = true
        registered[object.objectID] = object
        inserted.add(object)
        pending.inserted.append(object)
        changeGeneration &+= 1
        recordUndo(.insert(object))
        object.awakeFromInsert()
    }

    // MARK: Looking objects up

    /// The object with an ID: the registered one, or a fault that loads on first access (not checked to exist).
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        if let object = registered.object(for: objectID) { return object }
        // Short accesses to the context's copy: a subclass's initializer runs in between.
        var last = lastFaultClass
        let object = makeFault(for: objectID, using: &last)
        lastFaultClass = last
        registered.register(object)
        return object
    }

    /// ``object(with:)`` for one of many IDs, with the entity and class of the last fault made kept by the caller:
    /// a fetch makes many faults of one entity in a row, and reading the context's own copy checked exclusive
    /// access to it for each one (2% of the instructions of a sorted in-memory fetch of 100k objects).
    ///
    /// The ID is taken over: a new fault keeps it without a copy. The registry is asked, then told, with no
    /// closure between: a closure making the fault inside the registry's lookup retained and released the context
    /// and the ID's names once more for each object (the disassembly of a sorted fetch's loop), and a fetch makes
    /// objects by the hundred thousand.
    func object(with objectID: consuming ManagedObjectID, faultClass: inout EntityClass?) -> ManagedObject {
        if let object = registered.object(for: objectID) { return object }
        let object = makeFault(for: objectID, using: &faultClass)
        registered.register(object)
        return object
    }

    /// ``object(with:faultClass:)`` for one of a fetch's results, which name each ID once: while the registry holds
    /// `distinctFrom` objects (it held none when the fetch began, and only the fetch's own objects were registered
    /// since), no registered object can have this ID, and the new fault is registered without a lookup
    /// (``ObjectRegistry/registerDistinct(_:)``). Anything else registering an object meanwhile (a subclass's
    /// initializer, a relationship filled in) sets `distinctFrom` to nil: from then on, IDs are looked up.
    func object(
        with objectID: consuming ManagedObjectID, faultClass: inout EntityClass?, distinctFrom: inout Int?
    ) -> ManagedObject {
        guard let before = distinctFrom, registered.count == before else {
            distinctFrom = nil
            return object(with: objectID, faultClass: &faultClass)
        }
        let object = makeFault(for: objectID, using: &faultClass)
        guard registered.count == before else {
            distinctFrom = nil
            if let existing = registered.object(for: object.objectID) { return existing }
            registered.register(object)
            return object
        }
        registered.registerDistinct(object)
        distinctFrom = before + 1
        return object
    }

    /// A new fault for an object ID (not yet registered); `last` is the entity and class of the last one made.
    private func makeFault(for objectID: consuming ManagedObjectID, using last: inout EntityClass?)
        -> ManagedObject
    {
        let found: EntityClass
        if let known = last, known.knows(objectID) {
            found = known
        } else if var known = last, known.learns(objectID) {
            found = known
            last = known
        } else {
            guard let named = managedObjectModel.entitiesByName[objectID.entityName] else {
                preconditionFailure("the model has no entity named '\(objectID.entityName)'")
            }
            found = EntityClass(named)
            last = found
        }
        let (entity, objectClass) = (found.entity, found.objectClass)
        if objectClass == ManagedObject.self { return ManagedObject(faultOf: entity, objectID: objectID, in: self) }
        let object = objectClass.init(entity: entity, insertInto: nil)
        object.objectID = objectID
        object.managedObjectContext = self
        object.storage = .fault
        return object
    }

    /// The object with an ID, loaded from its store.
    ///
    /// - Throws: ``StoreError/Code/objectNotFound`` when no store holds it (deleted, or its store was removed).
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        checkStores()
        if let object = registered[objectID], !object.isFault, !object.isInvalid {
            return object
        }
        guard let record = try sourceRecord(for: objectID) else {
            throw StoreError(code: .objectNotFound,
                             message: "No attached store holds \(objectID.uriRepresentation().absoluteString).",
                             context: ErrorContext(entityName: objectID.entityName, objectID: objectID))
        }
        return materialize(objectID, record: record)
    }

    /// The registered object with an ID, without creating a fault; `nil` if the context does not know it.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        registered[objectID]
    }

    // MARK: Store assignment

    /// Chooses the store a new object is saved to.
    ///
    /// - Throws: ``StoreError/Code/readOnlyStore``, ``StoreError/Code/entityNotInConfiguration`` or
    ///   ``StoreError/Code/storeNotFound`` when the store cannot hold it; ``StoreError/Code/invalidObjectID`` when the
    ///   object was already saved (an object cannot move between stores).
    public func assign(_ object: ManagedObject, to store: PersistentStore) throws {
        precondition(object.managedObjectContext === self, "the object lives in another context")
        guard object.objectID.isTemporaryID else {
            throw StoreError(code: .invalidObjectID,
                             message: "The object already belongs to a store; only new objects can be assigned.",
                             context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
        }
        try persistentStoreCoordinator.checkAssignable(entity: object.entity, to: store)
        assignedStores[ObjectIdentifier(object)] = store
    }

    // MARK: Faults

    /// Loads a fault's values from its store; an object whose record is gone becomes invalid.
    func fulfillFault(of object: ManagedObject) {
        guard object.storage == .fault else { return }
        checkStores()
        guard object.storage == .fault else { return }
        // Taken, not copied: a copy retained the kept record's keys and row, and clearing the fault's released them.
        if let kept = object.faultValues.take() {
            if object.faultValuesGeneration == persistentStoreCoordinator.contentGeneration {
                object.apply(kept.record, in: self)
                object.awakeFromFetch()
                return
            }
        }
        if let batch = object.faultBatch, fulfillFaults(of: batch) { return }
        if let record = try? sourceRecord(for: object.objectID) {
            object.apply(record, in: self)
            object.awakeFromFetch()
        } else {
            object.storage = .invalid
        }
    }

    /// The registered object for an ID with the record's values applied (unless it has unsaved changes).
    ///
    /// With `asFault`, a new fault keeps the record's values and applies them when it fires (Core Data's
    /// `returnsObjectsAsFaults`), so a fetch whose objects are not all read does not fill every one of them.
    func materialize(_ objectID: ManagedObjectID, record: consuming StoreRecord?, asFault: Bool = false,
                     generation: UInt64 = 0) -> ManagedObject {
        filled(self.object(with: objectID), from: record, asFault: asFault, generation: generation)
    }

    /// The object, filled from `record` when it is a fault (see ``fill(_:from:asFault:generation:)``).
    func filled(
        _ object: ManagedObject, from record: consuming StoreRecord?, asFault: Bool, generation: UInt64
    ) -> ManagedObject {
        if object.storage == .fault, let record = record.take() {
            fill(object, from: record, asFault: asFault, generation: generation)
        }
        return object
    }

    /// ``materialize(_:record:asFault:generation:)`` for a fetch result, reading an atomic store's record in place;
    /// `withValues` false leaves a plain fault. `faultClass` is kept by the fetch across its results (see
    /// ``object(with:faultClass:)``). The result is read in place in the fetch's results: copying it out copied
    /// its reference to the store's rows twice (a retain and a release each) before the fault kept it. See
    /// ``object(with:faultClass:distinctFrom:)`` for `distinctFrom`.
    func materialize(
        _ results: [MergedFetchResult], at position: Int, withValues: Bool, asFault: Bool, generation: UInt64,
        faultClass: inout EntityClass?, distinctFrom: inout Int?
    ) -> ManagedObject {
        switch results[position].row {
        case .record(let rows, let index, let includesValues):
            let object = self.object(
                with: rows.objectID(at: index), faultClass: &faultClass, distinctFrom: &distinctFrom)
            if withValues, includesValues, object.storage == .fault {
                if asFault {
                    object.faultValues = .row(rows, index)
                    object.faultValuesGeneration = generation
                } else {
                    fill(object, from: rows.record(at: index), asFault: false, generation: generation)
                }
            }
            return object
        case .result(let results, let index):
            let object = self.object(
                with: results.results[index].objectID, faultClass: &faultClass, distinctFrom: &distinctFrom)
            let record = withValues ? results.takeRecord(at: index) : nil
            return filled(object, from: record, asFault: asFault, generation: generation)
        }
    }

    /// Fills an object from a record it takes over: a fetch's records were written long before, so a copy's retain
    /// (and the release of the original) would each cost a cache miss.
    private func fill(_ object: ManagedObject, from record: consuming StoreRecord, asFault: Bool,
                      generation: UInt64) {
        if asFault {
            object.version = record.version
            object.faultValuesGeneration = generation
            object.faultValues = .record(record)
        } else {
            object.apply(record, in: self)
            object.awakeFromFetch()
        }
    }

    /// Invalidates objects of stores that were removed since the context last looked.
    func checkStores() {
        let generation = persistentStoreCoordinator.storeGeneration
        guard generation != knownStoreGeneration else { return }
        knownStoreGeneration = generation
        let live = Set(persistentStoreCoordinator.persistentStores.map(\.identifier))
        var invalidated: [ManagedObject] = []
        let gone = registered.objects { object in object.objectID.storeIdentifier.map { !live.contains($0) } ?? false }
        for object in gone {
            registered[object.objectID] = nil
            inserted.remove(object)
            deleted.remove(object)
            changed.remove(object)
            object.storage = .invalid
            object.snapshot = nil
            invalidated.append(object)
        }
        for (key, store) in assignedStores where !live.contains(store.identifier) { assignedStores[key] = nil }
        if !invalidated.isEmpty {
            removeAllUndoActions()
            pending.invalidated.formUnion(invalidated)
        }
    }

    /// Records that an object changed (for `updatedObjects` and the next objects-did-change event).
    func noteChanged(_ object: ManagedObject, notify: Bool) {
        changeGeneration &+= 1
        guard object.managedObjectContext === self else { return }
        if !object.isInsertedFlag { changed.add(object) }
        if notify, !object.isDeletedFlag, !object.isInsertedFlag || link.isObserved { pending.updated.add(object) }
    }
}

extension ManagedObject {
    /// Fills the object's slots from a store record. Without a context (it went away before the fault fired)
    /// relationships stay empty: there is no context to make their objects in.
    func apply(_ record: StoreRecord, in context: ManagedObjectContext?) {
        let layout = slotLayout
        // An entity with stored attributes only keeps its record's row as its slots, sharing the buffer (see
        // `sharedSlots(of:)`): converting each value cost three quarters of firing such a fault (callgrind).
        if layout.recordsAreSlots, let row = record.row(laidOutBy: layout.recordKeys) {
            slots = sharedSlots(of: row)
            finishApplying(record)
            return
        }
        // A record laid out by the entity's own keys (a context saved it, or a store read it whole) is read by
        // position; any other by name.
        let row = record.row(laidOutBy: layout.recordKeys)
        let positions = layout.recordPositions
        func value(_ index: Int) -> (any Sendable)? {
            if let row {
                let position = positions[index]
                return position < 0 ? nil : row[position]
            }
            return record[layout.properties[index].name]
        }
        // The lists the record left out, read together when the first one is used.
        let unread = record.omitsToManyLists ? context.map { UnreadLists(owner: objectID, context: $0) } : nil
        func slotValue(_ index: Int, _ kind: EntityDescription.Layout.SlotKind) -> Any? {
            switch kind {
            case .attribute(let isTransient):
                return isTransient ? layout.template[index] : value(index)
            case .toMany:
                if let unread, let context {
                    return ToManyStorage(unread: unread, key: layout.properties[index].name, in: context)
                }
                let ids = value(index) as? [ManagedObjectID] ?? []
                return context.map { ToManyStorage(distinctIDs: ids, in: $0) } ?? ToManyStorage()
            case .toOne:
                return (value(index) as? ManagedObjectID).flatMap { context?.object(with: $0) }
            case .other:
                return nil
            }
        }
        // A fault shares the entity's template (see `init(faultOf:objectID:in:)`): writing into its slots copied
        // the template first (copy-on-write, each value through its witness table), then destroyed each copied
        // value again, a quarter of firing the fault (callgrind). The values go into a new array instead, for a
        // loaded object too (its old values are released with the old array).
        var filled: [Any?] = []
        filled.reserveCapacity(layout.kinds.count)
        for (index, kind) in layout.kinds.enumerated() { filled.append(slotValue(index, kind)) }
        slots = filled
        finishApplying(record)
    }

    /// What filling an object from a record does after its slots: the record's version, the object loaded.
    private func finishApplying(_ record: StoreRecord) {
        self.version = record.version
        storage = .loaded
        faultBatch = nil
        faultValues = nil
        snapshot = nil
        fetchedPropertyCache.removeAll()
    }
}

/// Objects in insertion order with constant-time membership.
///
/// Removal leaves a hole in the order, filled in when holes outnumber the objects, so listing the objects is linear.
struct ObjectList {
    private var positions = AddressTable()
    private var items: [ManagedObject?] = []

    var isEmpty: Bool { positions.isEmpty }
    var count: Int { positions.count }

    func contains(_ object: ManagedObject) -> Bool { positions[ObjectIdentifier(object)] != nil }

    mutating func add(_ object: ManagedObject) {
        guard positions.insert(items.count, forKey: ObjectIdentifier(object)) else { return }
        items.append(object)
    }

    mutating func remove(_ object: ManagedObject) {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(object)) else { return }
        items[position] = nil
        if positions.isEmpty {
            items.removeAll()
        } else if items.count > 32, items.count > 2 * positions.count {
            let live = items.compactMap { $0 }
            items = live
            for (position, object) in live.enumerated() {
                positions.updateValue(position, forKey: ObjectIdentifier(object))
            }
        }
    }

    mutating func removeAll() {
        positions.removeAll()
        items.removeAll()
    }

    mutating func formUnion(_ objects: [ManagedObject]) {
        for object in objects { add(object) }
    }

    /// The objects in the order they were added.
    var objects: [ManagedObject] {
        items.count == positions.count ? items.map { $0! } : items.compactMap { $0 }
    }
}

/// Objects in the order they were added, each keeping its own position in the list (see
/// ``ManagedObject/ListPositions``): adding and removing an object need no hash table. A context's inserted and
/// changed objects, and the changed objects of its next event, are listed this way: hashing every new object was
/// a twentieth of inserting objects through a context, and hashing every changed object (twice) a tenth of a child
/// context's save. An object lives in one context, so one position per kind of list is enough; a position left
/// behind by a list that was dropped is recognised as stale (the list holds another object there, or none).
struct PositionedObjectList {
    /// Which of an object's positions this list uses.
    enum Kind {
        case inserted, changed, pendingUpdate
    }

    let kind: Kind
    private var items: [ManagedObject?] = []
    private(set) var count = 0

    init(_ kind: Kind) { self.kind = kind }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func position(of object: ManagedObject) -> Int {
        switch kind {
        case .inserted: object.listPositions.inserted
        case .changed: object.listPositions.changed
        case .pendingUpdate: object.listPositions.pendingUpdate
        }
    }

    @inline(__always)
    private func setPosition(_ position: Int, of object: ManagedObject) {
        switch kind {
        case .inserted: object.listPositions.inserted = position
        case .changed: object.listPositions.changed = position
        case .pendingUpdate: object.listPositions.pendingUpdate = position
        }
    }

    func contains(_ object: ManagedObject) -> Bool {
        let position = position(of: object)
        return position >= 0 && position < items.count && items[position] === object
    }

    mutating func add(_ object: ManagedObject) {
        guard !contains(object) else { return }
        setPosition(items.count, of: object)
        items.append(object)
        count += 1
    }

    mutating func remove(_ object: ManagedObject) {
        guard contains(object) else { return }
        items[position(of: object)] = nil
        setPosition(-1, of: object)
        count -= 1
        if count == 0 {
            items.removeAll()
        } else if items.count > 32, items.count > 2 * count {
            items = items.filter { $0 != nil }
            for (position, object) in items.enumerated() { setPosition(position, of: object!) }
        }
    }

    mutating func removeAll() {
        removeAll { _ in }
    }

    /// Empties the list, calling `body` with each object it held, in order.
    mutating func removeAll(_ body: (ManagedObject) -> Void) {
        for case let object? in items {
            setPosition(-1, of: object)
            body(object)
        }
        items.removeAll()
        count = 0
    }

    /// Makes room for `capacity` objects in all.
    mutating func reserveCapacity(_ capacity: Int) { items.reserveCapacity(capacity) }

    mutating func formUnion(_ objects: [ManagedObject]) {
        for object in objects { add(object) }
    }

    /// The objects in the order they were added.
    var objects: [ManagedObject] {
        items.count == count ? items.map { $0! } : items.compactMap { $0 }
    }

    /// Whether an object satisfies `predicate`, asked in order, without making the array ``objects`` makes.
    /// `predicate` must not change the list.
    func contains(where predicate: (ManagedObject) -> Bool) -> Bool {
        for case let object? in items where predicate(object) { return true }
        return false
    }

    /// Calls `body` with each object in order, without making the array ``objects`` makes. `body` must not change
    /// the list.
    func forEachObject(_ body: (ManagedObject) -> Void) {
        for case let object? in items { body(object) }
    }
}
