import Foundation

extension ManagedObject {
    // MARK: Reading

    /// The value of a property.
    ///
    /// Attributes return their canonical value (see ``AttributeType``) or `nil`; a to-one relationship returns the
    /// related `ManagedObject` or `nil`; a to-many relationship returns `Set<ManagedObject>`, or `[ManagedObject]` when
    /// ordered; a fetched property returns `[ManagedObject]`. A fault loads its values first.
    ///
    /// - Precondition: the entity has a property named `key` (an unknown key is a programmer error). Use
    ///   ``EntityDescription/propertiesByName`` to check keys that come from outside.
    public func value(forKey key: String) -> Any? {
        let index = slot(for: key)
        switch slotLayout.kinds[index] {
        case .attribute, .toOne:
            // No cast of the value: casting a string to a class (`ToManyStorage`) goes through Foundation's
            // bridging checks, which cost more than the rest of the read.
            return slotValue(index)
        case .toMany, .other:
            let property = slotLayout.properties[index]
            if let fetched = property as? FetchedPropertyDescription { return fetchedValue(fetched) }
            let value = slotValue(index)
            if let storage = value as? ToManyStorage {
                let relationship = property as! RelationshipDescription
                return relationship.isOrdered ? storage.objects : Set(storage.objects)
            }
            return value
        }
    }

    /// The value of a property, cast to a type; `nil` when absent or of another type.
    public func value<T>(forKey key: String, as type: T.Type) -> T? {
        value(forKey: key) as? T
    }

    /// The destinations of a relationship as an array, in order for ordered relationships.
    public func objects(forKey key: String) -> [ManagedObject] {
        guard let relationship = entity.relationshipsByName[key] else {
            preconditionFailure("entity '\(entity.name)' has no relationship named '\(key)'")
        }
        return relatedObjects(relationship)
    }

    /// The value at a key path: through to-one relationships (`room.name`), with `@count`, `@sum`, `@avg`, `@min` and
    /// `@max` on to-many relationships (`persons.@count`).
    public func value(forKeyPath keyPath: String) -> Any? {
        try? ObjectExpression.value(atKeyPath: keyPath, of: self)
    }

    /// Sets the value at a key path: a key of this object, an element of a composite attribute
    /// (`magnitude.richter`, the other elements kept), or a key path of the destination of a to-one relationship
    /// (nothing happens when the relationship is nil), as Key-Value Coding's `setValue(_:forKeyPath:)`.
    ///
    /// A key path naming nothing, or through a to-many relationship, is a programmer error.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.firstIndex(of: ".") else {
            setValue(value, forKey: keyPath)
            return
        }
        let first = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        switch entity.propertiesByName[first] {
        case is CompositeAttributeDescription:
            let path = rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let current = self.value(forKey: first).map { assumeSendable($0) }
            let updated = CompositeAttributeDescription.setting(
                value.map { assumeSendable($0) }, at: path[...], in: current)
            setValue(updated, forKey: first)
        case let relationship as RelationshipDescription where !relationship.isToMany:
            (self.value(forKey: first) as? ManagedObject)?.setValue(value, forKeyPath: rest)
        default:
            preconditionFailure(
                "'\(keyPath)' is not a key path through a to-one relationship or a composite attribute of "
                    + "'\(entity.name)'")
        }
    }

    /// The value of a property without firing change tracking or loading related objects' inverses.
    public func primitiveValue(forKey key: String) -> Any? {
        let value = slotValue(slot(for: key))
        if let storage = value as? ToManyStorage { return storage.objects }
        return value
    }

    /// The values of changed properties (changed since the object was read or last saved), by key. For an
    /// inserted object, every property that has a value.
    public func changedValues() -> [String: Any?] {
        var result: [String: Any?] = [:]
        let properties = slotLayout.properties
        if isInsertedFlag {
            for (index, property) in properties.enumerated() where slots[index] != nil {
                result[property.name] = publicValue(slots[index], property)
            }
            return result
        }
        for index in changedSlots() { result[properties[index].name] = publicValue(slots[index], properties[index]) }
        return result
    }

    /// The values of properties as last read from or saved to the store (all properties when `keys` is nil).
    /// An inserted object has no committed values.
    public func committedValues(forKeys keys: [String]?) -> [String: Any?] {
        guard !isInsertedFlag else { return [:] }
        let properties = slotLayout.properties
        let source = snapshot ?? slots
        var result: [String: Any?] = [:]
        for (index, property) in properties.enumerated() where property is AttributeDescription
            || property is RelationshipDescription
        {
            if let keys, !keys.contains(property.name) { continue }
            result[property.name] = publicValue(source[index], property)
        }
        return result
    }

    func publicValue(_ value: Any?, _ property: PropertyDescription) -> Any? {
        guard let storage = value as? ToManyStorage else { return value }
        return (property as? RelationshipDescription)?.isOrdered == true ? storage.objects : Set(storage.objects)
    }

    /// The slots whose values differ from the snapshot, in ascending order.
    func changedSlots() -> [Int] {
        var changed: [Int] = []
        appendChangedSlots(to: &changed)
        return changed
    }

    /// Appends ``changedSlots()`` to `list`, so that a save lists every object's changes in one array.
    func appendChangedSlots(to list: inout [Int]) {
        guard let snapshot else { return }
        let start = list.count
        let current = slots
        current.withSlotView { now in
            snapshot.withSlotView { then in
                forEachCandidateSlot { index in
                    if !Self.slotValuesEqual(current, now, snapshot, then, at: index) { list.append(index) }
                    return true
                }
            }
        }
        assert(
            list[start...].elementsEqual(slots.indices.filter { !Self.slotValuesEqual(slots[$0], snapshot[$0]) }),
            "a slot was written without being marked in touchedSlots")
    }

    /// Whether some slot differs from the snapshot (``changedSlots()`` is not empty), without listing them.
    var hasChangedSlots: Bool {
        guard let snapshot else { return false }
        let current = slots
        var found = false
        current.withSlotView { now in
            snapshot.withSlotView { then in
                forEachCandidateSlot { index in
                    found = !Self.slotValuesEqual(current, now, snapshot, then, at: index)
                    return !found
                }
            }
        }
        return found
    }

    /// Calls `body` with each slot that may differ from the snapshot, in ascending order, until it returns false:
    /// the slots written since the snapshot (``touchedSlots``) and the to-many slots, or every slot.
    private func forEachCandidateSlot(_ body: (Int) -> Bool) {
        var mask = touchedSlots
        for index in slotLayout.toManySlots { mask |= Self.touchBit(index) }
        if mask & Self.everySlotTouched != 0 {
            for index in slots.indices where !body(index) { return }
            return
        }
        while mask != 0 {
            let index = mask.trailingZeroBitCount
            guard body(index) else { return }
            mask &= mask - 1
        }
    }

    /// The bit of ``touchedSlots`` that stands for a slot.
    @inline(__always)
    static func touchBit(_ index: Int) -> UInt64 { index < 63 ? 1 << UInt64(index) : everySlotTouched }
    /// The bit of ``touchedSlots`` that stands for every slot.
    static var everySlotTouched: UInt64 { 1 << 63 }

    /// Marks a slot as written since the snapshot; call it with every write of a slot after ``captureSnapshot()``.
    @inline(__always)
    func touch(_ index: Int) { touchedSlots |= Self.touchBit(index) }

    /// Marks every slot as written since the snapshot (values written wholesale, or a new snapshot put under them).
    func touchEverySlot() { touchedSlots |= Self.everySlotTouched }

    /// ``slotValuesEqual(_:_:)`` for the values at `index` of two arrays of slots, read in place through their
    /// views when they are nil or of an inline type.
    @inline(__always)
    private static func slotValuesEqual(
        _ lhs: [Any?], _ lhsView: SlotView, _ rhs: [Any?], _ rhsView: SlotView, at index: Int
    ) -> Bool {
        SlotView.valuesEqual(lhsView, rhsView, at: index) ?? slotValuesEqual(lhs[index], rhs[index])
    }

    static func slotValuesEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        if let lhs, let rhs, let equal = sameTypeValuesEqual(lhs, rhs) { return equal }
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (a as ToManyStorage, b as ToManyStorage):
            return a.objects.count == b.objects.count && zip(a.objects, b.objects).allSatisfy { $0 === $1 }
        case let (a as ManagedObject, b as ManagedObject): return a === b
        case let (a as AnyHashable, b as AnyHashable): return a == b
        default: return false
        }
    }

    /// Two values of one of the common attribute types, compared as that type; `nil` for other values. Casting an
    /// attribute value to `AnyHashable` looks its conformance up, and casting a string to a class (the
    /// relationship cases below) goes through the bridging checks: comparing the slots of changed objects that way
    /// was the largest cost of a save of 10k changed objects (every save asks `isUpdated` several times).
    private static func sameTypeValuesEqual(_ lhs: Any, _ rhs: Any) -> Bool? {
        let type = AttributeType.typeIdentifier(of: lhs)
        guard type == AttributeType.typeIdentifier(of: rhs) else { return nil }
        switch type {
        case ObjectIdentifier(String.self): return opened(lhs, as: String.self) == opened(rhs, as: String.self)
        case ObjectIdentifier(Int.self): return opened(lhs, as: Int.self) == opened(rhs, as: Int.self)
        case ObjectIdentifier(Double.self): return opened(lhs, as: Double.self) == opened(rhs, as: Double.self)
        case ObjectIdentifier(Date.self): return opened(lhs, as: Date.self) == opened(rhs, as: Date.self)
        case ObjectIdentifier(Bool.self): return opened(lhs, as: Bool.self) == opened(rhs, as: Bool.self)
        default: return nil
        }
    }

    /// `value as? U`, cast from the value's own type: passing an existential here opens it, so the cast does not
    /// unwrap the existential first (about half the cost of casting the `Any`).
    @inline(__always)
    private static func opened<T, U>(_ value: T, as _: U.Type) -> U? { value as? U }

    /// The value in a slot, loading the object's values first if it is a fault.
    func slotValue(_ index: Int) -> Any? {
        if storage == .fault { fireFault() }
        return slots[index]
    }

    /// Loads a fault's values through its context; when the context is gone, from the values its fetch kept
    /// (attributes only: relationships need a context to make their objects in).
    func fireFault() {
        if let context = managedObjectContext {
            context.fulfillFault(of: self)
        } else if let kept = faultValues {
            apply(kept.record, in: nil)
            awakeFromFetch()
        }
    }

    // MARK: Writing

    /// Sets the value of a property, recording the change for saving and undo and keeping inverses consistent.
    ///
    /// Attribute values are converted to the attribute's canonical type when that loses nothing (an `Int32` for an
    /// `integer64`, an `Int` for a `double`). Setting nil on a non-optional number or Boolean calls
    /// ``setNilValueForKey(_:)``. To-one relationships take a `ManagedObject` or nil; to-many relationships take a
    /// `Set<ManagedObject>` or `[ManagedObject]`.
    ///
    /// - Precondition: the key exists, the value can be converted, and related objects live in the same context.
    ///   Use ``AttributeType/coerce(_:)`` to check values that come from outside first.
    public func setValue(_ value: consuming Any?, forKey key: String) {
        let layout = slotLayout
        guard let index = layout.slot(forKey: key) else {
            preconditionFailure("entity '\(entity.name)' has no property named '\(key)'")
        }
        setValue(converting: value, slot: index, key: key)
    }

    /// ``setValue(_:forKey:)`` once the slot is known: values already of their attribute's canonical type as they
    /// are, other values converted, nil, and related objects.
    private func setValue(converting value: Any?, slot index: Int, key: String) {
        let layout = slotLayout
        if let value, let attributeType = layout.attributeTypes[index], attributeType.isCanonical(value) {
            setValueTracked(value, slot: index)
            return
        }
        switch layout.properties[index] {
        case let attribute as AttributeDescription:
            guard let value else {
                if !attribute.isOptional, attribute.attributeType.isNumeric || attribute.attributeType == .boolean {
                    setNilValueForKey(key)
                } else {
                    setValueTracked(nil, slot: index)
                }
                return
            }
            guard let converted = attribute.coerce(value) else {
                preconditionFailure("a \(type(of: value)) cannot be stored in attribute '\(key)' of type "
                    + attribute.attributeType.rawValue)
            }
            setValueTracked(converted, slot: index)
        case let relationship as RelationshipDescription:
            if relationship.isToMany {
                let objects: [ManagedObject]
                switch value {
                case nil: objects = []
                case let set as Set<ManagedObject>: objects = Array(set)
                case let array as [ManagedObject]: objects = array
                default: preconditionFailure("to-many relationship '\(key)' takes a Set or an Array of ManagedObject")
                }
                replaceToMany(relationship, slot: index, with: objects)
            } else {
                guard value == nil || value is ManagedObject else {
                    preconditionFailure("to-one relationship '\(key)' takes a ManagedObject or nil")
                }
                setToOne(relationship, slot: index, to: value as? ManagedObject)
            }
        default:
            preconditionFailure("'\(key)' is a fetched property and cannot be set")
        }
    }

    /// Sets a value without undo registration, change notification or inverse maintenance; the value is still saved.
    /// Use it in ``awakeFromInsert()`` and in custom accessors.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        let index = slot(for: key)
        _ = slotValue(index)
        let property = slotLayout.properties[index]
        if let relationship = property as? RelationshipDescription, relationship.isToMany {
            let objects = (value as? [ManagedObject]) ?? (value as? Set<ManagedObject>).map(Array.init) ?? []
            captureSnapshot()
            slots[index] = ToManyStorage(objects)
        } else if let attribute = property as? AttributeDescription, let value {
            guard let converted = attribute.coerce(value) else {
                preconditionFailure("a \(type(of: value)) cannot be stored in attribute '\(key)'")
            }
            captureSnapshot()
            slots[index] = converted
        } else {
            captureSnapshot()
            slots[index] = value
        }
        touch(index)
        managedObjectContext?.noteChanged(self, notify: false)
    }

    /// Adds an object to a to-many relationship (at the end, for ordered ones), keeping the inverse consistent.
    public func addObject(_ object: ManagedObject, toRelationship key: String) {
        let index = slot(for: key)
        guard let relationship = slotLayout.properties[index] as? RelationshipDescription, relationship.isToMany else {
            preconditionFailure("'\(key)' is not a to-many relationship of '\(entity.name)'")
        }
        addToMany(relationship, slot: index, object)
    }

    /// Removes an object from a to-many relationship, keeping the inverse consistent.
    public func removeObject(_ object: ManagedObject, fromRelationship key: String) {
        let index = slot(for: key)
        guard let relationship = slotLayout.properties[index] as? RelationshipDescription, relationship.isToMany else {
            preconditionFailure("'\(key)' is not a to-many relationship of '\(entity.name)'")
        }
        removeFromToMany(relationship, slot: index, object)
    }

    // MARK: Relationship maintenance

    func setToOne(_ relationship: RelationshipDescription, slot index: Int, to target: ManagedObject?) {
        let old = slotValue(index) as? ManagedObject
        guard old !== target else { return }
        if let target { checkSameContext(target) }
        setValueTracked(target, slot: index)
        guard let inverse = relationship.inverseRelationship else { return }
        if let old { old.detachInverse(inverse, from: self) }
        if let target { target.attachInverse(inverse, to: self) }
    }

    func addToMany(_ relationship: RelationshipDescription, slot index: Int, _ object: ManagedObject) {
        checkSameContext(object)
        guard let storage = slotValue(index) as? ToManyStorage, !storage.contains(object) else { return }
        insertTracked(object, slot: index, at: storage.count)
        if let inverse = relationship.inverseRelationship { object.attachInverse(inverse, to: self) }
    }

    func removeFromToMany(_ relationship: RelationshipDescription, slot index: Int, _ object: ManagedObject) {
        guard let storage = slotValue(index) as? ToManyStorage, storage.contains(object) else { return }
        removeTracked(object, slot: index)
        if let inverse = relationship.inverseRelationship { object.detachInverse(inverse, from: self) }
    }

    func replaceToMany(_ relationship: RelationshipDescription, slot index: Int, with objects: [ManagedObject]) {
        guard let storage = slotValue(index) as? ToManyStorage else { return }
        let keep = Set(objects.map(ObjectIdentifier.init))
        for object in storage.objects where !keep.contains(ObjectIdentifier(object)) {
            removeFromToMany(relationship, slot: index, object)
        }
        for object in objects { addToMany(relationship, slot: index, object) }
        guard relationship.isOrdered else { return }
        // Ordered relationships take the order given: move each object to its position (membership is unchanged,
        // so inverses stay as they are).
        var seen: Set<ObjectIdentifier> = []
        let order = objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
        for (position, object) in order.enumerated() where storage.objects[position] !== object {
            removeTracked(object, slot: index)
            insertTracked(object, slot: index, at: position)
        }
    }

    /// Makes this object's inverse relationship point at `source` (a to-one is re-pointed, a to-many gains it).
    func attachInverse(_ inverse: RelationshipDescription, to source: ManagedObject) {
        let index = slot(for: inverse.name)
        if inverse.isToMany {
            guard let storage = slotValue(index) as? ToManyStorage, !storage.contains(source) else { return }
            insertTracked(source, slot: index, at: storage.count)
        } else {
            let previous = slotValue(index) as? ManagedObject
            guard previous !== source else { return }
            setValueTracked(source, slot: index)
            if let previous, let back = inverse.inverseRelationship {
                previous.detachInverse(back, from: self)
            }
        }
    }

    /// Removes `source` from this object's inverse relationship.
    func detachInverse(_ inverse: RelationshipDescription, from source: ManagedObject) {
        let index = slot(for: inverse.name)
        if inverse.isToMany {
            guard let storage = slotValue(index) as? ToManyStorage, storage.contains(source) else { return }
            removeTracked(source, slot: index)
        } else if slotValue(index) as? ManagedObject === source {
            setValueTracked(nil, slot: index)
        }
    }

    private func checkSameContext(_ object: ManagedObject) {
        precondition(object.managedObjectContext == nil || managedObjectContext == nil
                        || object.managedObjectContext === managedObjectContext,
                     "objects in different contexts cannot be related")
    }

    // MARK: Tracked primitives (each records undo and marks the object changed)

    func setValueTracked(_ value: consuming Any?, slot index: Int) {
        if storage == .fault { fireFault() }
        // A new object's value, with no undo to record: no snapshot, no change to note, nothing for the context.
        if isInsertedFlag, !(contextLink.map { $0.recordsUndo || $0.isObserved } ?? false) {
            slots[index] = consume value
            if !fetchedPropertyCache.isEmpty { fetchedPropertyCache.removeAll() }
            return
        }
        captureSnapshot()
        let context = managedObjectContext
        if let context, context.isRecordingUndo {
            // The old value moves from the slot into the undo operation, uncopied.
            var old = consume value
            swap(&slots[index], &old)
            context.recordUndo(.set(self, index, other: old))
        } else {
            slots[index] = consume value
        }
        touch(index)
        if !fetchedPropertyCache.isEmpty { fetchedPropertyCache.removeAll() }
        // An inserted object is saved whole; only saved objects are tracked as changed (and new ones reported to
        // the context's observers).
        if !isInsertedFlag || contextLink?.isObserved == true { context?.noteChanged(self, notify: true) }
    }

    func insertTracked(_ object: ManagedObject, slot index: Int, at position: Int) {
        captureSnapshot()
        (slots[index] as! ToManyStorage).insert(object, at: position)
        managedObjectContext?.recordUndo(.toManyInsert(self, index, object, position))
        managedObjectContext?.noteChanged(self, notify: true)
    }

    func removeTracked(_ object: ManagedObject, slot index: Int) {
        captureSnapshot()
        guard let position = (slots[index] as! ToManyStorage).remove(object) else { return }
        managedObjectContext?.recordUndo(.toManyRemove(self, index, object, position))
        managedObjectContext?.noteChanged(self, notify: true)
    }

    /// Keeps a copy of the committed values before the first change since the last read or save.
    func captureSnapshot() {
        guard snapshot == nil, !isInsertedFlag else { return }
        // Only to-many slots hold storage that changes in place: casting every slot to find them was most of the
        // time a child's save spent setting its changes on the parent's objects.
        let toManySlots = slotLayout.toManySlots
        if toManySlots.isEmpty {
            // The current buffer becomes the snapshot (it may be shared with a record), and the object writes to a
            // copy made now, faster than the copy-on-write copy the first write would make (see `SlotView`).
            snapshot = slots
            slots = slots.copyingSlots()
            touchedSlots = 0
            return
        }
        var copy = slots.copyingSlots()
        for index in toManySlots {
            if let storage = copy[index] as? ToManyStorage { copy[index] = storage.copy() }
        }
        snapshot = copy
        touchedSlots = 0
    }

    /// ``captureSnapshot()``, writing the object's values from now on into `buffer`, an array of as many slots that
    /// nothing else holds (a child's snapshot of the same object, which a push would free), instead of a new copy.
    /// Slots of `buffer` that do not hold this object's value already (the same bits, see
    /// `SlotView.valuesIdentical`) get it. Objects with to-many slots take the
    /// usual way: their snapshots copy the lists' storage. The object is loaded: the push takes its objects from
    /// `liveObject(for:)`, which fires faults.
    func captureSnapshot(reusing buffer: consuming [Any?]?) {
        assert(storage != .fault, "a fault's slots are no values to keep as a snapshot")
        guard snapshot == nil, !isInsertedFlag else { return }
        guard var buffer, buffer.count == slots.count, buffer.count <= 64, slotLayout.toManySlots.isEmpty else {
            captureSnapshot()
            return
        }
        // One pass over both views for the slots whose values differ, then those copied.
        var differing: UInt64 = slots.withSlotView { mine in
            buffer.withSlotView { theirs in
                var differing: UInt64 = 0
                for index in 0..<mine.count where !SlotView.valuesIdentical(mine, theirs, at: index) {
                    differing |= 1 << UInt64(index)
                }
                return differing
            }
        }
        while differing != 0 {
            let index = differing.trailingZeroBitCount
            buffer[index] = slots[index]
            differing &= differing - 1
        }
        snapshot = slots
        slots = buffer
        touchedSlots = 0
    }

    // MARK: Fetched properties

    func fetchedValue(_ property: FetchedPropertyDescription) -> [ManagedObject] {
        if let cached = fetchedPropertyCache[property.name] { return cached }
        guard let context = managedObjectContext else { return [] }
        let request = FetchRequest(entityName: property.destinationEntityName)
        request.sortKeys = property.sortKeys
        if let predicate = property.predicate {
            request.predicate = try? predicate.withSubstitutionVariables(["FETCH_SOURCE": self,
                                                                         "FETCHED_PROPERTY": property.name])
            if request.predicate == nil { return [] }
        }
        let result = (try? context.fetch(request)) ?? []
        fetchedPropertyCache[property.name] = result
        return result
    }
}

extension ManagedObject: PredicateEvaluable {
    /// The value of a property for predicates: to-many relationships as arrays.
    public func predicateValue(forKey key: String) throws -> Any? {
        guard let index = slotLayout.slot(forKey: key) else { throw unknownKeyError(key, entityName: entity.name) }
        let property = slotLayout.properties[index]
        if let fetched = property as? FetchedPropertyDescription { return fetchedValue(fetched) }
        let value = slotValue(index)
        if let storage = value as? ToManyStorage { return storage.objects }
        return value
    }

    /// A managed object compares equal to its ID and to other objects with the same ID.
    public var predicateIdentity: (any Hashable & Sendable)? { objectID }
}
