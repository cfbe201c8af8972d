/// A context's registered objects by ID.
///
/// Stores hand out reference keys 1, 2, 3… per store, so the saved objects of one store and entity sit in an
/// array indexed by reference key: a fetch of 100k objects then writes into a table of pointers instead of probing
/// a hash table of 56-byte entries spread over megabytes (one cache miss per object, the largest single cost of
/// such a fetch). New objects' temporary keys come from one counter, so a context inserting many objects gets
/// nearly consecutive keys: their table starts at the first one it saw. Keys far past what the context holds,
/// below a table's start, or of IDs with names of their own go to a dictionary.
///
/// A fetch into a context that holds no objects registers its objects in a list, placed in their tables when the
/// registry is first asked about an ID (``registerDistinct(_:)``): a sorted fetch meets keys in no order, and
/// looking each one up in a table of 100k pointers before registering it cost a cache miss per object (perf: a
/// seventh of a sorted in-memory fetch of 100k objects), for a context that is often read and let go without any
/// lookup. Let go, it then releases the objects in the order they were made, not scattered by key.
///
/// Each object is registered under its own ``ManagedObject/objectID``. A class, so that looking up remembers the
/// last table used (a fetch registers many objects of one store and entity in a row).
final class ObjectRegistry {
    private struct Table {
        /// The shared names of the table's IDs (``ManagedObjectID/sharedPair``): one store and entity, or one
        /// entity's temporary IDs.
        let names: IDNames.Pair
        /// The identity of `names`, compared with each ID's (``ManagedObjectID/namesIdentity``) without retaining
        /// either pair: taking the ID's shared pair to compare it retained and released it, two atomic operations
        /// on every lookup.
        let identity: ObjectIdentifier
        /// Whether the table holds temporary IDs: it starts over from the next key once it is empty (after a save).
        let isTemporary: Bool
        /// The key of `objects[0]`: 0 for stores' keys, the first key seen for temporary ones.
        var base: Int64
        /// Objects by key minus `base` (`nil`: none registered under that key here, though `others` may have it).
        var objects: [ManagedObject?] = []
        /// How many of `objects` are not nil.
        var live = 0

        /// The position of a key in `objects`, when the table could hold it.
        func slot(of key: Int64) -> Int? {
            key >= base ? Int(key - base) : nil
        }
    }

    // Every object a context makes or saves goes through here, several accesses each, and the runtime's
    // exclusivity checks on a class's properties cost a thread-local lookup per access. The registry is private to
    // its context's isolation domain and none of its accesses calls out while it lasts (`make` runs between them),
    // so none overlap: the checks are turned off.
    @exclusivity(unchecked)
    private var tables: [Table] = []
    @exclusivity(unchecked)
    private var tableIndex: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked)
    private var lastTable = -1
    @exclusivity(unchecked)
    private var others: [ManagedObjectID: ManagedObject] = [:]
    /// Objects registered by ``registerDistinct(_:)`` and not yet in `tables` or `others`. Checked as usual: with
    /// the checks off, the sorted fetch row moved less than its noise (three interleaved rounds).
    private var unplaced: [ManagedObject] = []
    /// How many objects are registered.
    @exclusivity(unchecked)
    private(set) var count = 0
    /// The room a caller announced (``reserveCapacity(_:)``): tables may grow to twice what is registered and
    /// announced, so a sparse key costs at most a few pointers per registered object.
    @exclusivity(unchecked)
    private var announced = 0

    /// The table for an ID's store and entity, if one exists (or `create`: made now).
    private func table(for id: ManagedObjectID, create: Bool) -> Int? {
        // An ID whose own names are the last table's shared pair belongs there.
        if lastTable >= 0, tables[lastTable].identity == id.namesIdentity { return lastTable }
        guard let names = id.sharedPair else { return nil }
        let identity = ObjectIdentifier(names)
        if let index = tableIndex[identity] {
            lastTable = index
            return index
        }
        guard create else { return nil }
        let isTemporary = id.isTemporaryID
        let base = isTemporary ? id.referenceKey : 0
        tables.append(Table(names: names, identity: identity, isTemporary: isTemporary, base: base))
        tableIndex[identity] = tables.count - 1
        lastTable = tables.count - 1
        return lastTable
    }

    /// The object registered under an ID.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { object(for: id) }
        set {
            if let object = newValue { insert(object, for: id) } else { remove(id) }
        }
    }

    /// The object registered under an ID, if any. The ID is borrowed (a subscript's index is passed owned: the
    /// caller copies it first).
    func object(for id: borrowing ManagedObjectID) -> ManagedObject? {
        if !unplaced.isEmpty { placeUnplaced() }
        if let index = table(for: id, create: false), let slot = tables[index].slot(of: id.referenceKey),
            slot < tables[index].objects.count, let object = tables[index].objects[slot]
        {
            return object
        }
        return others.isEmpty ? nil : others[copy id]
    }

    /// Registers a new object (none is registered under its ID) under its own ID. The ID's key and names are read
    /// in place: the usual case, a slot of the last table used, copies nothing.
    func register(_ object: ManagedObject) {
        if !unplaced.isEmpty { placeUnplaced() }
        let key = object.objectID.referenceKey
        if lastTable >= 0, others.isEmpty, tables[lastTable].identity == object.objectID.namesIdentity,
            let slot = tables[lastTable].slot(of: key), slot < tables[lastTable].objects.count,
            tables[lastTable].objects[slot] == nil
        {
            tables[lastTable].objects[slot] = object
            tables[lastTable].live += 1
            count += 1
            return
        }
        insert(object, for: object.objectID)
    }

    /// Registers a new object known to differ in ID from every registered one (a fetch's objects, made in a context
    /// that held none), without looking at the tables until an ID is next asked about.
    func registerDistinct(_ object: ManagedObject) {
        unplaced.append(object)
        count += 1
    }

    /// Puts the objects of ``registerDistinct(_:)`` in their tables.
    private func placeUnplaced() {
        let objects = unplaced
        unplaced = []
        count -= objects.count
        for object in objects { register(object) }
    }

    private func insert(_ object: ManagedObject, for id: ManagedObjectID) {
        if !unplaced.isEmpty { placeUnplaced() }
        if let index = table(for: id, create: true), tables[index].isTemporary, tables[index].live == 0 {
            tables[index].base = id.referenceKey
            tables[index].objects.removeAll(keepingCapacity: tables[index].objects.count <= 2 * (count + 1024))
        }
        if let index = table(for: id, create: true), let slot = tables[index].slot(of: id.referenceKey) {
            let size = tables[index].objects.count
            let limit = 2 * (count + announced) + 1024
            if slot < size || slot < limit {
                if slot >= size {
                    let grown = min(max(slot + 1, size * 2), max(limit, slot + 1))
                    tables[index].objects.append(contentsOf: repeatElement(nil, count: grown - size))
                }
                if tables[index].objects[slot] == nil {
                    tables[index].live += 1
                    // A key registered before the table reached it may be among the others.
                    if others.isEmpty || others.removeValue(forKey: id) == nil { count += 1 }
                }
                tables[index].objects[slot] = object
                return
            }
        }
        if others.updateValue(object, forKey: id) == nil { count += 1 }
    }

    private func remove(_ id: ManagedObjectID) {
        if !unplaced.isEmpty { placeUnplaced() }
        if let index = table(for: id, create: false), let slot = tables[index].slot(of: id.referenceKey),
            slot < tables[index].objects.count, tables[index].objects[slot] != nil
        {
            tables[index].objects[slot] = nil
            tables[index].live -= 1
            count -= 1
            return
        }
        if !others.isEmpty, others.removeValue(forKey: id) != nil { count -= 1 }
    }

    /// Makes room for `capacity` objects in all.
    func reserveCapacity(_ capacity: Int) {
        announced = max(announced, capacity - count)
    }

    /// Every registered object (in no particular order).
    var values: [ManagedObject] { objects { _ in true } }

    /// Calls `body` with each registered object in place, in no particular order: no list of them is made (a
    /// context going away goes through every object once, and the list retained and released each). `body` must
    /// not change the registry.
    func forEach(_ body: (ManagedObject) -> Void) {
        for object in unplaced { body(object) }
        for table in tables {
            for case let object? in table.objects { body(object) }
        }
        for object in others.values { body(object) }
    }

    /// The registered objects that pass a test (in no particular order): a list the caller may change the registry
    /// while going through, without copying every object first.
    func objects(where isIncluded: (ManagedObject) -> Bool) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        forEach { object in if isIncluded(object) { objects.append(object) } }
        return objects
    }

    /// Forgets every object.
    func removeAll() {
        tables.removeAll()
        tableIndex.removeAll()
        lastTable = -1
        others.removeAll()
        unplaced.removeAll()
        count = 0
        announced = 0
    }
}
