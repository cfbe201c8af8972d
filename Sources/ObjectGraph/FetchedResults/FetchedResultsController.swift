import Foundation

/// Keeps the results of a fetch up to date as its context changes, and tells what changed: Core Data's
/// `NSFetchedResultsController`.
///
/// ```swift
/// let request = TypedFetchRequest<Session>(entityName: "Session")
/// request.sortKeys = [SortKey("day"), SortKey("start")]
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                           sectionNameKeyPath: "day")
/// try controller.performFetch()
/// controller.delegate = listView
/// ```
///
/// After ``performFetch()``, every change of the context (inserts, deletes, updates of objects and of their sort or
/// section values, saves, merges from other contexts) is applied to the results without fetching again, once per
/// ``ManagedObjectContext/processPendingChanges()``, and reported to the ``delegate`` and to every
/// ``updates()`` sequence. Objects enter and leave as they start or stop matching the predicate; the fetch limit
/// and offset are applied to the whole ordered set of matching objects, which the controller keeps (so a limited
/// controller holds every matching object, not only the ones it shows).
///
/// The results are ordered by the request's sort keys, then as fetches order ties (store order, saved objects before
/// new ones, object IDs). Sections are runs of objects with one value of ``sectionNameKeyPath``: as in Core Data,
/// the sort keys must order objects by section first. A change of a related object (a sort key path `room.name`
/// when the room is renamed) is not seen, as in Core Data: refresh the objects that depend on it.
///
/// A controller belongs to its context's isolation domain.
public final class FetchedResultsController<Result: ManagedObject> {
    /// The request whose results are kept. Change it only before ``performFetch()`` (which reads it again).
    public let fetchRequest: FetchRequest
    /// The context whose changes are followed.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose values name the sections; `nil` for one section holding every object.
    public let sectionNameKeyPath: String?
    /// Told of every change of the results after ``performFetch()``.
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?

    /// Every object matching the request, in order (the limit and offset are applied to them by ``window``).
    var rows = ContiguousArray<ResultRow<Result>>()
    /// The rows by object.
    var rowsByObject: [ObjectIdentifier: ResultRow<Result>] = [:]
    /// The sections of the objects shown, when there is a section key path.
    var sectionRanges: [SectionRange] = []
    /// What the request said at the last ``performFetch()``.
    var settings: Settings?
    var observer: UUID?
    /// The objects shown, made on first use after a change.
    var cachedObjects: [Result]?
    var cachedSections: [FetchedResultsSectionInfo<Result>]?
    let streams = LockedValue<[UUID: AsyncStream<FetchedResultsUpdate>.Continuation]>([:])

    /// The request's settings the controller works with.
    struct Settings {
        let order: ResultOrder
        let entityNames: Set<String>
        let predicate: ObjectPredicate?
        let affectedStores: Set<String>?
        let fetchLimit: Int
        let fetchOffset: Int
        let sectionKeyPath: CompiledKeyPath?

        /// Whether the controller shows only part of the matching objects.
        var isWindowed: Bool { fetchLimit > 0 || fetchOffset > 0 }
    }

    /// A section of the objects shown: a run of rows, by position among them.
    struct SectionRange: Equatable {
        var name: String
        var start: Int
        var count: Int
    }

    /// Creates a controller; nothing is fetched before ``performFetch()``.
    ///
    /// - Parameters:
    ///   - fetchRequest: What to fetch; its sort keys must order objects by section first when there are sections.
    ///   - managedObjectContext: The context to fetch in and to follow.
    ///   - sectionNameKeyPath: The key path naming each object's section, or `nil` for one section.
    ///   - cacheName: Accepted for Core Data's signature; no cache is kept.
    public init(
        fetchRequest: FetchRequest, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: String? = nil, cacheName: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    /// Creates a controller for a typed request (see the initializer with a ``FetchRequest``).
    public convenience init(
        fetchRequest: TypedFetchRequest<Result>, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: String? = nil, cacheName: String? = nil
    ) {
        self.init(
            fetchRequest: fetchRequest.fetchRequest, managedObjectContext: managedObjectContext,
            sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName)
    }

    deinit {
        if let observer { managedObjectContext.removeObserver(observer) }
        let continuations = streams.withLock { streams in
            defer { streams.removeAll() }
            return Array(streams.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    // MARK: Fetching

    /// Fetches the results (again, with the request as it is now) and follows the context's changes from now on.
    /// The delegate is not told of the new results.
    ///
    /// - Throws: the errors of ``ManagedObjectContext/fetch(_:)-(FetchRequest)``; ``StoreError/Code/invalidFetchRequest``
    ///   when the request's result type is not objects, or an object fetched is not of class `Result`; key path
    ///   errors of the sort keys and of ``sectionNameKeyPath``. The results are unchanged when it throws.
    public func performFetch() throws {
        let request = fetchRequest
        guard request.resultType == .managedObject else {
            throw StoreError(
                code: .invalidFetchRequest,
                message: "A fetched results controller fetches objects; the request's resultType is "
                    + "\(request.resultType).",
                context: ErrorContext(entityName: request.entityName))
        }
        let entity = try managedObjectContext.entity(named: request.entityName)
        let settings = Settings(
            order: ResultOrder(keys: request.sortKeys),
            entityNames: Set(request.includesSubentities ? entity.selfAndDescendants.map(\.name) : [entity.name]),
            predicate: request.predicate, affectedStores: request.affectedStores.map { Set($0.map(\.identifier)) },
            fetchLimit: max(0, request.fetchLimit), fetchOffset: max(0, request.fetchOffset),
            sectionKeyPath: sectionNameKeyPath.map(CompiledKeyPath.init))
        // Every matching object, whatever the limit: objects leaving the first ones are replaced from here.
        let all = request.objectRequest()
        all.sortKeys = request.sortKeys
        all.relationshipKeyPathsForPrefetching = request.relationshipKeyPathsForPrefetching
        let objects = try managedObjectContext.fetch(all)
        let storeIndexes = storeIndexes()
        var fetched = ContiguousArray<ResultRow<Result>>()
        fetched.reserveCapacity(objects.count)
        for object in objects {
            guard let typed = object as? Result else {
                throw StoreError(
                    code: .invalidFetchRequest,
                    message: "An object of entity '\(object.entity.name)' is a \(type(of: object)), not a "
                        + "\(Result.self); register the class with ManagedObjectClassRegistry.",
                    context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
            }
            fetched.append(try makeRow(for: typed, settings: settings, storeIndexes: storeIndexes))
        }
        // The fetch sorted them already, perhaps with a store's own collation: the rows are kept in the
        // controller's order, which later changes are placed by.
        let order = settings.order
        fetched.sort { order.precedes($0, $1) }
        rows = fetched
        rowsByObject = Dictionary(uniqueKeysWithValues: fetched.map { (ObjectIdentifier($0.object), $0) })
        self.settings = settings
        rebuildSections()
        invalidateCaches()
        if observer == nil {
            observer = managedObjectContext.addObserver { [weak self] event in self?.contextChanged(event) }
        }
    }

    // MARK: Results

    /// The objects shown, in order across sections; `nil` before ``performFetch()``.
    public var fetchedObjects: [Result]? {
        guard settings != nil else { return nil }
        if let cachedObjects { return cachedObjects }
        let objects = rows[window].map(\.object)
        cachedObjects = objects
        return objects
    }

    /// The sections, in order; `nil` before ``performFetch()``. Without a section key path there is one section,
    /// named "", even when it is empty.
    public var sections: [FetchedResultsSectionInfo<Result>]? {
        guard let settings else { return nil }
        if let cachedSections { return cachedSections }
        let window = self.window
        let made: [FetchedResultsSectionInfo<Result>]
        if settings.sectionKeyPath == nil {
            made = [FetchedResultsSectionInfo(name: "", objects: rows[window].map(\.object))]
        } else {
            made = sectionRanges.map { range in
                let start = window.lowerBound + range.start
                return FetchedResultsSectionInfo(
                    name: range.name,
                    objects: rows[start..<start + range.count].map(\.object))
            }
        }
        cachedSections = made
        return made
    }

    /// The object at an index path (`[section, item]`).
    ///
    /// - Precondition: the index path is within ``sections``.
    public func object(at indexPath: IndexPath) -> Result {
        let window = self.window
        guard settings?.sectionKeyPath != nil else {
            precondition(
                indexPath.section == 0 && indexPath.item >= 0 && indexPath.item < window.count,
                "index path \(indexPath) is outside the results")
            return rows[window.lowerBound + indexPath.item].object
        }
        precondition(
            indexPath.section >= 0 && indexPath.section < sectionRanges.count,
            "index path \(indexPath) is outside the results")
        let range = sectionRanges[indexPath.section]
        precondition(
            indexPath.item >= 0 && indexPath.item < range.count, "index path \(indexPath) is outside the results")
        return rows[window.lowerBound + range.start + indexPath.item].object
    }

    /// Where an object is in the results; `nil` when it is not shown.
    public func indexPath(forObject object: Result) -> IndexPath? {
        guard let settings, let row = rowsByObject[ObjectIdentifier(object)],
            let index = settings.order.index(of: row, in: rows), window.contains(index)
        else { return nil }
        return indexPath(atOffset: index - window.lowerBound, in: sectionRanges)
    }

    /// The index titles of the sections, in order, each once (the first letter of each section's name).
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (sections ?? []).compactMap { section in
            guard let title = section.indexTitle, seen.insert(title).inserted else { return nil }
            return title
        }
    }

    /// The index title of a section name: its first letter, upper-cased.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        FetchedResultsSectionInfo<Result>.indexTitle(forSectionName: sectionName)
    }

    /// The first section whose index title is `title`; the section of the nearest earlier title when none is
    /// (index titles are in order).
    ///
    /// - Precondition: `sectionIndex` is within ``sectionIndexTitles``.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let sections = self.sections ?? []
        if let found = sections.firstIndex(where: { $0.indexTitle == title }) { return found }
        let titles = sectionIndexTitles
        precondition(sectionIndex >= 0 && sectionIndex < titles.count, "no section index title at \(sectionIndex)")
        return sections.firstIndex { $0.indexTitle == titles[sectionIndex] } ?? 0
    }

    /// Core Data's `deleteCache(withName:)`, for code that clears a controller's cache before changing its request.
    /// A controller here keeps no cache on disk (the `cacheName` of the initializers is only accepted), so there is
    /// nothing to delete: changing the ``fetchRequest``'s predicate or sort keys and calling ``performFetch()`` again is
    /// enough.
    public static func deleteCache(withName name: String?) {}

    /// Every change of the results from now on, one ``FetchedResultsUpdate`` per change of the context, until the
    /// controller goes away. Each call makes a new sequence; none is dropped.
    public func updates() -> AsyncStream<FetchedResultsUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: FetchedResultsUpdate.self)
        let token = UUID()
        continuation.onTermination = { [streams] _ in streams.withLock { _ = $0.removeValue(forKey: token) } }
        streams.withLock { $0[token] = continuation }
        return stream
    }

    // MARK: Positions

    /// The positions in ``rows`` of the objects shown.
    var window: Range<Int> {
        guard let settings else { return 0..<0 }
        let lower = min(settings.fetchOffset, rows.count)
        let upper = settings.fetchLimit > 0 ? min(rows.count, lower + settings.fetchLimit) : rows.count
        return lower..<upper
    }

    /// The index path of the object at `offset` among the objects shown, given their sections.
    func indexPath(atOffset offset: Int, in ranges: [SectionRange]) -> IndexPath {
        guard settings?.sectionKeyPath != nil else { return IndexPath(item: offset, section: 0) }
        let section = sectionIndex(containing: offset, in: ranges)
        return IndexPath(item: offset - ranges[section].start, section: section)
    }

    /// The section holding the object at `offset` (the last section starting at or before it).
    func sectionIndex(containing offset: Int, in ranges: [SectionRange]) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].start <= offset { low = middle + 1 } else { high = middle }
        }
        return max(0, low - 1)
    }

    /// Sections from the rows shown.
    func rebuildSections() {
        guard settings?.sectionKeyPath != nil else {
            sectionRanges = []
            return
        }
        var ranges: [SectionRange] = []
        let window = self.window
        for (offset, row) in rows[window].enumerated() {
            if let last = ranges.last, last.name == row.sectionName {
                ranges[ranges.count - 1].count += 1
            } else {
                ranges.append(SectionRange(name: row.sectionName, start: offset, count: 1))
            }
        }
        sectionRanges = ranges
    }

    func invalidateCaches() {
        cachedObjects = nil
        cachedSections = nil
    }

    // MARK: Rows

    /// The position of each store among the coordinator's stores.
    func storeIndexes() -> [String: Int] {
        var indexes: [String: Int] = [:]
        for (index, store) in managedObjectContext.persistentStoreCoordinator.persistentStores.enumerated() {
            indexes[store.identifier] = index
        }
        return indexes
    }

    /// A row for an object as it is now.
    func makeRow(for object: Result, settings: Settings, storeIndexes: [String: Int]) throws -> ResultRow<Result> {
        let keys = settings.order.keys
        var values: [SortValue] = []
        values.reserveCapacity(keys.count)
        for key in keys { values.append(SortValue(try key.value(of: object), key.comparison)) }
        return ResultRow(
            object: object, values: values,
            sectionName: try settings.sectionKeyPath.map { Self.sectionName(try $0.value(of: object)) } ?? "",
            storeIndex: object.objectID.storeIdentifier.flatMap { storeIndexes[$0] } ?? Int.max,
            objectID: object.objectID)
    }

    /// A section key path's value as a section name: a string as it is, `nil` as "", anything else described.
    static func sectionName(_ value: Any?) -> String {
        switch value {
        case nil: ""
        case let string as String: string
        case let value?: "\(value)"
        }
    }
}
