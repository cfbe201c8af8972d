import Foundation

extension PersistentStoreCoordinator {
    /// Inserts the objects of a ``BatchInsertRequest`` into one store, in one save.
    ///
    /// Every object is converted and validated before anything is written; when any fails, nothing is written and
    /// the error lists the failures (the first 100) with the position of each object in the batch. Save observers
    /// (``addSaveObserver(_:)``) hear of the new objects; contexts see them when they next fetch.
    ///
    /// - Throws: ``ModelError/Code/unknownEntity``; ``StoreError/Code/unsupportedRequest`` for an abstract entity
    ///   or a relationship's key; ``ValidationError`` (``ValidationError/Code/unknownKey`` for a key that is not
    ///   a stored attribute, ``ValidationError/Code/wrongType``, the model's rules); the routing errors of
    ///   ``ManagedObjectContext/save()``; the store's own errors.
    ///
    /// Objects that break a uniqueness constraint (see ``EntityDescription/uniquenessConstraints``) fail the batch
    /// with ``StoreError/Code/constraintConflict`` under the default ``MergePolicy/error``. With
    /// ``MergePolicy/mergeByPropertyObjectTrump`` (or ``MergePolicy/overwrite``) an object sharing a saved object's constrained values updates that object's
    /// attributes instead of being inserted (an "upsert", as Core Data's batch inserts do under
    /// `NSMergeByPropertyObjectTrumpMergePolicy`; the saved object keeps the attributes a dictionary leaves out, and
    /// its relationships); with ``MergePolicy/mergeByPropertyStoreTrump`` (or ``MergePolicy/rollback``) it is left
    /// out. Objects of the batch that
    /// share values with each other are inserted once: the last of them, or the first. The result's IDs name, for
    /// each object, the object that holds its values. `ManagedObjectContext/execute(_:)` passes the context's
    /// merge policy.
    public func execute(_ request: BatchInsertRequest, mergePolicy: MergePolicy = .error) throws -> BatchInsertResult {
        guard let entity = managedObjectModel.entitiesByName[request.entityName] else {
            throw ModelError(code: .unknownEntity, message: "The model has no entity named '\(request.entityName)'.",
                             context: ErrorContext(entityName: request.entityName))
        }
        guard !entity.isAbstract else {
            throw StoreError(code: .unsupportedRequest,
                             message: "Entity '\(entity.name)' is abstract; batch insert objects of a concrete "
                                + "sub-entity.", context: ErrorContext(entityName: entity.name))
        }
        let store = try storeForBatchInsert(of: entity, among: request.affectedStores)
        var builder = try BatchRecordBuilder(entity: entity)
        if let objects = request.objectsToInsert {
            builder.reserveCapacity(objects.count)
            for values in objects {
                if builder.isSaturated { break }
                builder.add(values)
            }
        } else if let handler = request.dictionaryHandler {
            var values: [String: any Sendable] = [:]
            while !builder.isSaturated, !handler(&values) {
                builder.add(values)
                values.removeAll(keepingCapacity: true)
            }
        } else if let handler = request.managedObjectHandler {
            let object = ManagedObjectClassRegistry.objectClass(for: entity).init(entity: entity, insertInto: nil)
            // As a new object's, its values are not tracked as changes to saved ones (no snapshot is taken).
            object.isInsertedFlag = true
            while !builder.isSaturated, !handler(object) {
                builder.add(object)
                builder.reset(object)
            }
        }
        var (rows, givenPositions) = try builder.finish()
        guard !rows.isEmpty else {
            return BatchInsertResult(resultType: request.resultType, count: 0,
                                     objectIDs: request.resultType == .objectIDs ? [] : nil)
        }
        let ids = try newObjectIDs(entityName: entity.name, in: store, count: rows.count)
        var changes = StoreChanges()
        changes.inserted.reserveCapacity(rows.count)
        let keys = entity.layout.recordKeys
        // Each row moves into its record (popped from the reversed list): no second reference to release later.
        rows.reverse()
        for id in ids {
            changes.inserted.append(StoreRecord(objectID: id, version: 1, keys: keys, row: rows.removeLast()))
        }
        // Each object's ID in the result: its new one, or, once merged by a uniqueness conflict, the survivor's.
        var resultIDs = ids
        var attempts = 0
        while true {
            attempts += 1
            do {
                try save([(store, changes)])
                break
            } catch let error as StoreError
                where error.code == .constraintConflict && mergePolicy != .error && attempts < 3 {
                try resolveConstraintConflicts(error, in: &changes, resultIDs: &resultIDs, entity: entity,
                                               ids: ids, givenPositions: givenPositions, mergePolicy: mergePolicy)
            }
        }
        if hasSaveObservers {
            notifySaved(ContextDidSave(insertedObjectIDs: Set(changes.inserted.map(\.objectID)),
                                       updatedObjectIDs: Set(changes.updated.map(\.objectID))))
        }
        return BatchInsertResult(resultType: request.resultType, count: resultIDs.count,
                                 objectIDs: request.resultType == .objectIDs ? resultIDs : nil)
    }

    /// Resolves a batch's uniqueness conflicts by the merge policy (see ``execute(_:mergePolicy:)``): objects that
    /// share a saved object's values update it (``MergePolicy/mergeByPropertyObjectTrump`` and
    /// ``MergePolicy/overwrite``: the last one's values) or are dropped (``MergePolicy/mergeByPropertyStoreTrump`` and
    /// ``MergePolicy/rollback``); objects of the batch that share values with each other are kept once (the last
    /// or the first). An upsert writes the positions `givenPositions` lists for the object (by its place in `ids`);
    /// without them, every attribute. Throws the error when a conflict cannot be resolved so.
    private func resolveConstraintConflicts(_ error: StoreError, in changes: inout StoreChanges,
                                            resultIDs: inout [ManagedObjectID], entity: EntityDescription,
                                            ids: [ManagedObjectID], givenPositions: [[Int]]?,
                                            mergePolicy: MergePolicy) throws {
        // Built here, on a conflict only: a batch without conflicts hashes no ID for it.
        let inputPositions = givenPositions == nil
            ? [:] : Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let insertedPositions = Dictionary(changes.inserted.enumerated().map { ($1.objectID, $0) },
                                           uniquingKeysWith: { first, _ in first })
        let updatedPositions = Dictionary(changes.updated.enumerated().map { ($1.objectID, $0) },
                                          uniquingKeysWith: { first, _ in first })
        var dropped = Set<ManagedObjectID>()
        var survivorOf: [ManagedObjectID: ManagedObjectID] = [:]
        let layout = entity.layout
        for conflict in error.constraintConflicts {
            let positions = conflict.conflictingObjectIDs.compactMap { insertedPositions[$0] }
            guard positions.count == conflict.conflictingObjectIDs.count else { throw error }
            let winner = mergePolicy.keepsInMemoryValues ? positions.last! : positions.first!
            guard let saved = conflict.databaseObjectID else {
                for position in positions where position != winner {
                    dropped.insert(changes.inserted[position].objectID)
                    survivorOf[changes.inserted[position].objectID] = changes.inserted[winner].objectID
                }
                continue
            }
            // Only a saved object of the batch's own entity can take a row of the batch's layout.
            guard saved.entityName == entity.name, let existing = try record(for: saved) else { throw error }
            for position in positions {
                dropped.insert(changes.inserted[position].objectID)
                survivorOf[changes.inserted[position].objectID] = saved
            }
            guard mergePolicy.keepsInMemoryValues else { continue }
            // The values the winner was given; the saved object keeps its other attributes and its relationships,
            // which batches cannot set.
            guard case .row(_, var row) = changes.inserted[winner].storage else { throw error }
            let kept = inputPositions[changes.inserted[winner].objectID].map { Set(givenPositions![$0]) }
            for position in row.indices where !(kept?.contains(position) ?? (position < layout.recordAttributeCount)) {
                row[position] = existing[layout.recordKeys.names[position]]
            }
            let update = StoreRecord(objectID: saved, version: existing.version, keys: layout.recordKeys, row: row)
            if let known = updatedPositions[saved] {
                changes.updated[known] = update
            } else {
                changes.updated.append(update)
            }
        }
        changes.inserted.removeAll { dropped.contains($0.objectID) }
        for index in resultIDs.indices {
            // Follow the chain: a survivor may itself have been merged into another by an earlier attempt.
            while let survivor = survivorOf[resultIDs[index]] { resultIDs[index] = survivor }
        }
    }

    /// The store a batch insert writes to: the first of `candidates` that is attached, writable and holds the
    /// entity, or, without candidates, the store a context's save would route a new object to.
    private func storeForBatchInsert(of entity: EntityDescription,
                                     among candidates: [PersistentStore]?) throws -> PersistentStore {
        guard let candidates else { return try storeForNewObject(of: entity, assigned: nil) }
        guard let store = candidates.first(where: { (try? checkAssignable(entity: entity, to: $0)) != nil }) else {
            throw StoreError(code: .noStoreForEntity,
                             message: "None of the request's \(candidates.count) affected store(s) is attached, "
                                + "writable and configured to hold entity '\(entity.name)'.",
                             context: ErrorContext(entityName: entity.name))
        }
        return store
    }
}

/// Turns a batch insert's dictionaries into record rows laid out by the entity's record keys (see
/// `EntityDescription.Layout.recordKeys`), converting each value to its attribute's type and applying the model's
/// validation rules.
struct BatchRecordBuilder {
    /// More failures than this stop the conversion: the error then lists the first ones.
    static let failureLimit = 100

    private let entity: EntityDescription
    private let layout: EntityDescription.Layout
    /// How many values a row holds (stored attributes, then stored relationships).
    private let width: Int
    /// The default values of the attributes that have one, by row position: a new row gets them before the given
    /// values overwrite some.
    private let defaults: [(position: Int, value: any Sendable)]
    /// The type of the attribute at each row position.
    private let types: [AttributeType]
    /// The composite attributes by row position (nil for others): their values convert element by element.
    private let composites: [CompositeAttributeDescription?]
    /// The Swift type of the values already canonical at each attribute position, when telling needs no more than
    /// the type and, for narrower integers, a range check (see `AttributeType.isCanonical(_:)`).
    private let canonicalTypes: [ObjectIdentifier?]
    /// The range of the integer attributes narrower than 64 bits, by position.
    private let integerRanges: [ClosedRange<Int>?]
    /// The positions of attributes that must have a value and have no other rule.
    private let required: [Int]
    /// The positions of attributes with rules beyond type and optionality.
    private let ruled: [(position: Int, attribute: AttributeDescription)]
    /// The slots of the attributes of a handler's managed object (all of them, stored or not), and their defaults.
    private let attributeSlots: [(slot: Int, value: Any?)]
    /// The slots of a handler's managed object that hold stored relationships, which batch inserts cannot set.
    private let relationshipSlots: [(slot: Int, relationship: RelationshipDescription)]
    private var rows: [[(any Sendable)?]] = []
    /// The row positions each dictionary gave, when the entity has uniqueness constraints (an upsert then writes
    /// only those over a saved object).
    private var givenPositions: [[Int]]?
    private var failures: [ValidationError] = []
    private var storeFailure: StoreError? {
        didSet { isSaturated = true }
    }

    init(entity: EntityDescription) throws {
        self.entity = entity
        let layout = entity.layout
        self.layout = layout
        let attributeSlots = layout.recordSlots.prefix(layout.recordAttributeCount)
        types = attributeSlots.map { layout.attributeTypes[$0]! }
        composites = attributeSlots.map { layout.properties[$0] as? CompositeAttributeDescription }
        canonicalTypes = types.map { $0.isInteger ? ObjectIdentifier(Int.self) : $0.canonicalTypeIdentifier }
        integerRanges = types.map { $0 == .integer64 ? nil : $0.integerRange }
        width = layout.recordSlots.count
        defaults = attributeSlots.enumerated().compactMap { position, slot in
            layout.template[slot].map { (position, assumeSendable($0)) }
        }
        var required: [Int] = []
        var ruled: [(Int, AttributeDescription)] = []
        for (position, slot) in attributeSlots.enumerated() {
            switch layout.typeOnlyOptionality[slot] {
            case false?: required.append(position)
            case true?: break
            case nil: ruled.append((position, layout.properties[slot] as! AttributeDescription))
            }
        }
        self.required = required
        self.ruled = ruled
        var ancestor: EntityDescription? = entity
        while let current = ancestor, current.uniquenessConstraints.isEmpty { ancestor = current.superentity }
        givenPositions = ancestor == nil ? nil : []
        self.attributeSlots = layout.kinds.indices.compactMap { slot in
            guard case .attribute = layout.kinds[slot] else { return nil }
            return (slot, layout.template[slot])
        }
        self.relationshipSlots = layout.recordSlots.dropFirst(layout.recordAttributeCount).map { slot in
            (slot, layout.properties[slot] as! RelationshipDescription)
        }
        // Relationships cannot be set, so one that must hold objects fails every object alike.
        for slot in layout.recordSlots.dropFirst(layout.recordAttributeCount) {
            let relationship = layout.properties[slot] as! RelationshipDescription
            if !relationship.isOptional || (relationship.isToMany && relationship.minCount > 0) {
                throw entity.validationError(
                    relationship.isToMany ? .relationshipLacksMinimumCount : .missingMandatoryProperty,
                    key: relationship.name, text: "%@ is required, and batch inserts cannot set relationships",
                    objectID: nil)
            }
        }
    }

    mutating func reserveCapacity(_ count: Int) { rows.reserveCapacity(count) }

    /// Whether enough has failed that the batch will be refused whatever follows: more objects need not be read.
    /// Kept rather than computed: the loops ask before every object, and reading the optional error copied it.
    private(set) var isSaturated = false

    /// Converts and checks one object's values; failures are kept for ``finish()``.
    mutating func add(_ values: [String: any Sendable]) {
        let index = rows.count
        let keys = layout.recordKeys
        let (types, canonicalTypes, integerRanges) = (self.types, self.canonicalTypes, self.integerRanges)
        // Keys that are not stored attributes (position nil) and values of the wrong type, reported below.
        var problems: [(key: String, position: Int?)] = []
        var row = [(any Sendable)?].nils(count: width)
        if givenPositions != nil {
            givenPositions!.append(values.keys.compactMap { keys.position(of: $0) })
        }
        row.withUnsafeMutableBufferPointer { row in
            for (position, value) in defaults { row[position] = value }
            for (key, value) in values {
                guard let position = keys.position(of: key), position < types.count else {
                    problems.append((key, nil))
                    continue
                }
                if let canonical = canonicalTypes[position], AttributeType.typeIdentifier(of: value) == canonical,
                    integerRanges[position].map({ $0.contains(value as? Int ?? 0) }) ?? true
                {
                    row[position] = value
                } else if let converted = composites[position].map({ $0.coerce(value) })
                    ?? types[position].coerce(value)
                {
                    row[position] = converted
                } else {
                    problems.append((key, position))
                }
            }
        }
        check(row, problems: problems, at: index)
    }

    /// Checks the values a managed object handler set on `object`, taken as they are: setting them converted them.
    mutating func add(_ object: ManagedObject) {
        let index = rows.count
        if let (_, relationship) = relationshipSlots.first(where: { !object.relatedObjects($0.relationship).isEmpty }) {
            reject(key: relationship.name, at: index)
            return
        }
        let recordSlots = layout.recordSlots
        let attributeCount = types.count
        if givenPositions != nil { givenPositions!.append(Array(0..<attributeCount)) }
        var row = [(any Sendable)?].nils(count: width)
        row.withUnsafeMutableBufferPointer { row in
            // Attribute values are Sendable (see `assumeSendable`).
            let slots = object.slots
            for position in 0..<attributeCount { row[position] = slots[recordSlots[position]].map(assumeSendable) }
        }
        check(row, problems: [], at: index)
    }

    /// Puts a managed object handler's object back as new: its attributes at their defaults.
    func reset(_ object: ManagedObject) {
        object.slots.withUnsafeMutableBufferPointer { slots in
            for (slot, value) in attributeSlots { slots[slot] = value }
        }
        object.touchEverySlot()
    }

    /// Checks a converted row against the model's rules (the positions in `problems` were reported already: their
    /// values had the wrong type), and keeps it, or an empty row when it failed.
    private mutating func check(_ row: [(any Sendable)?], problems: [(key: String, position: Int?)], at index: Int) {
        var failed = !problems.isEmpty
        for (key, position) in problems {
            if let position {
                fail(entity.wrongTypeError(key: key, type: types[position], objectID: nil), at: index)
            } else {
                reject(key: key, at: index)
            }
        }
        // A value of the wrong type was reported already: its place is not also missing or checked against rules.
        func wasRejected(_ position: Int) -> Bool { problems.contains { $0.position == position } }
        for position in required where row[position] == nil && !wasRejected(position) {
            fail(entity.validationError(.missingMandatoryProperty, key: layout.recordKeys.names[position],
                                        text: "%@ is required", objectID: nil), at: index)
            failed = true
        }
        if !ruled.isEmpty {
            let validator = PropertyValidator(entity: entity, objectID: nil)
            for (position, attribute) in ruled where !wasRejected(position) {
                for error in validator.validate(row[position], for: attribute) {
                    fail(error, at: index)
                    failed = true
                }
            }
        }
        rows.append(failed ? [] : row)
    }

    /// The rows and the positions each was given (see `givenPositions`), or the failures.
    ///
    /// The builder lets go of the rows, so that the caller holds the only reference to them (the builder lives to
    /// the end of the caller's scope: a copy left here cost a pass over every row when it went).
    mutating func finish() throws -> (rows: [[(any Sendable)?]], givenPositions: [[Int]]?) {
        if let storeFailure { throw storeFailure }
        if let error = ValidationError.combining(failures) { throw error }
        let taken = rows
        rows = []
        return (taken, givenPositions)
    }

    private mutating func reject(key: String, at index: Int) {
        if layout.relationshipsByName[key] != nil {
            storeFailure = StoreError(code: .unsupportedRequest,
                                      message: "Object \(index) of the batch sets relationship '\(key)' of "
                                        + "'\(entity.name)'; batch inserts cannot set relationships.",
                                      context: ErrorContext(entityName: entity.name, key: key))
        } else {
            fail(entity.notStoredAttributeError(key: key, refusedBy: "batch inserts"), at: index)
        }
    }

    private mutating func fail(_ error: ValidationError, at index: Int) {
        var error = error
        error.message = "Object \(index) of the batch: " + error.message
        failures.append(error)
        if failures.count >= Self.failureLimit { isSaturated = true }
    }
}
