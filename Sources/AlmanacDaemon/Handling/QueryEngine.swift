import AlmanacWire
import Foundation
import ObjectGraph
import ObjectGraphPostgres
import Schedules
import Synchronization

/// Executes decoded wire commands on the coordinator: the daemon's request handling, without any socket.
///
/// Each request runs in a context of its own. Reads (fetch, count, template, get, …) run at the same time as each
/// other, inside the coordinator's `performReading`; writes (insert, update, delete) and store changes (attaching,
/// replacing, detaching files) run alone. So a request sees every store entirely before or entirely after a
/// replacement, and a store is detached only after the requests using it finish.
public final class QueryEngine: Sendable {
    /// The daemon's schedule files.
    public let library: ScheduleLibrary
    /// The store of personal data (favourites, notes, reminders, runs, personal sessions).
    public let personalStore: PersistentStore
    /// Entity name -> store (file name, path or identifier; `personal` names the personal store).
    public var routingRules: [String: String] { rules.withLock { $0 } }
    private let rules: LockedValue<[String: String]>
    /// The daemon's version string for `hello`.
    public let version: String
    /// The most objects one `fetch` or `template` reply holds; a request that would answer with more is refused
    /// with `too_large` (before any object is read) and a hint to page.
    public let maximumReplyObjects: Int
    /// The default of ``maximumReplyObjects``: 50,000 objects. A reply of that many sessions grew a debug build's
    /// VmRSS by 160-185 MB (the reply cache keeps them); real schedules hold a few thousand sessions.
    public static let defaultMaximumReplyObjects = 50_000
    /// Encoded objects of earlier replies.
    let wireObjects = WireObjectCache()
    /// Earlier replies to reading requests, while the stores are unchanged.
    let replies = ReplyCache()
    /// How many fetch totals were counted, past the page or by a query of their own (for tests).
    let totalsCounted = LockedValue(0)

    private var coordinator: PersistentStoreCoordinator { library.coordinator }
    private var coding: ObjectCoding { ObjectCoding(coordinator: coordinator) }

    /// Creates an engine. Personal `Session`s go to the personal store unless `routingRules` says otherwise.
    public init(library: ScheduleLibrary, personalStore: PersistentStore, routingRules: [String: String] = [:],
                version: String, maximumReplyObjects: Int = QueryEngine.defaultMaximumReplyObjects) {
        self.library = library
        self.personalStore = personalStore
        self.rules = LockedValue(Self.withDefaults(routingRules))
        self.version = version
        self.maximumReplyObjects = max(1, maximumReplyObjects)
    }

    /// Replaces the routing rules (SIGHUP re-reads them from the configuration file).
    public func updateRoutingRules(_ rules: [String: String]) {
        self.rules.withLock { $0 = Self.withDefaults(rules) }
    }

    private static func withDefaults(_ rules: [String: String]) -> [String: String] {
        ["Session": "personal"].merging(rules) { _, configured in configured }
    }

    // MARK: Operations (``DaemonHandler/reply(to:author:)`` dispatches to them)

    /// `hello`: the protocol version, the daemon's version and the model's entity names.
    func hello() -> WireResponse.Hello {
        WireResponse.Hello(version: version, entities: coordinator.managedObjectModel.entities.map(\.name))
    }

    /// `model`: the served model.
    func model() -> WireResponse.Model {
        ModelDescription.body(coordinator.managedObjectModel)
    }

    /// `stores`: the personal store, then every file the library knows.
    func stores() throws(WireError) -> WireResponse.Stores {
        try reading { WireResponse.Stores(stores: storeList()) }
    }

    /// `fetch`; `key` names the request for the reply cache.
    func fetch(_ fetch: WireRequest.Fetch, key: ReplyCache.Key?) throws(WireError) -> WireResponse.Fetch {
        try reading {
            let request = try fetchRequest(fetch)
            switch fetch.resultType {
            case nil, "objects"?:
                return try kept(key, request) { token in
                    try fetchResponse(request, properties: fetch.properties, total: total(key, token))
                }
            case "dictionary"?:
                return try kept(key, request) { _ in try dictionaryResponse(request, fetch) }
            case let other?:
                throw WireError.badRequest("\"resultType\" is \"objects\" or \"dictionary\", not \"\(other)\"",
                                           field: "resultType")
            }
        }
    }

    /// A fetch with `"resultType": "dictionary"`: rows of properties, groups and aggregates.
    private func dictionaryResponse(_ request: FetchRequest, _ fetch: WireRequest.Fetch) throws -> WireResponse.Fetch {
        let functions = ["count": "count:", "sum": "sum:", "avg": "average:", "average": "average:", "min": "min:",
                         "max": "max:"]
        var names = fetch.properties ?? fetch.groupBy ?? []
        var fetched: [any FetchableProperty] = names
        for aggregate in fetch.aggregates {
            guard let function = functions[aggregate.function.lowercased()] else {
                throw WireError.badRequest("Unknown aggregate function '\(aggregate.function)'; use count, sum, avg, "
                    + "min or max.", field: "aggregates")
            }
            guard aggregate.key != nil || function == "count:" else {
                throw WireError.badRequest("The aggregate '\(aggregate.name)' needs a \"key\".", field: "aggregates")
            }
            let argument = aggregate.key.map(ObjectExpression.keyPath) ?? .evaluatedObject
            fetched.append(ExpressionDescription(
                name: aggregate.name, expression: ObjectExpression(forFunction: function, arguments: [argument])))
            names.append(aggregate.name)
        }
        request.resultType = .dictionary
        request.propertiesToFetch = fetched.isEmpty ? nil : fetched
        request.propertiesToGroupBy = fetch.groupBy
        if let having = fetch.having, !having.isEmpty {
            request.havingPredicate = try ObjectPredicate(format: having, argumentArray: [])
        }
        request.returnsDistinctResults = fetch.distinct ?? false
        let context = ManagedObjectContext(coordinator: coordinator)
        let rows = try context.fetchDictionaries(request)
        let coding = self.coding
        let encoded = rows.map { row in
            var object = JSONObject()
            // Keys in the order asked for (every attribute, by name, when none were named).
            for name in names.isEmpty ? row.keys.sorted() : names {
                if let value = row[name] { object[name] = coding.json(value) }
            }
            return object
        }
        let (limit, offset) = (request.fetchLimit, request.fetchOffset)
        guard limit != 0 || offset != 0 else { return WireResponse.Fetch(rows: encoded) }
        request.fetchLimit = 0
        request.fetchOffset = 0
        let total = try context.fetchDictionaries(request).count
        request.fetchLimit = limit
        request.fetchOffset = offset
        return WireResponse.Fetch(rows: encoded, total: total)
    }

    /// `count`; `key` names the request for the reply cache.
    func count(_ fetch: WireRequest.Fetch, key: ReplyCache.Key?) throws(WireError) -> WireResponse.Count {
        try reading {
            let request = try fetchRequest(fetch)
            return try kept(key, request) { _ in
                WireResponse.Count(count: try ManagedObjectContext(coordinator: coordinator).count(for: request))
            }
        }
    }

    /// `template`: a fetch by one of the model's fetch request templates.
    func template(_ template: WireRequest.Template, key: ReplyCache.Key?) throws(WireError) -> WireResponse.Fetch {
        try reading {
            let variables = template.variables.dictionary.mapValues(coding.variable)
            let request = try coordinator.managedObjectModel.fetchRequestFromTemplate(
                withName: template.name, substitutionVariables: variables)
            if !template.sort.isEmpty { request.sortKeys = template.sort.map(sortKey) }
            if let limit = template.limit { request.fetchLimit = try nonNegative(limit, "limit") }
            if let offset = template.offset { request.fetchOffset = try nonNegative(offset, "offset") }
            if template.name == "SearchSessions", let text = variables["TEXT"] as? String {
                return try kept(key, request) { _ in
                    try searchResponse(request, text: text, properties: template.properties)
                }
            }
            return try kept(key, request) { token in
                try fetchResponse(request, properties: template.properties, total: total(key, token))
            }
        }
    }

    /// `get`: one object by URI.
    func get(_ get: WireRequest.Get) throws(WireError) -> WireResponse.Get {
        try reading {
            let context = ManagedObjectContext(coordinator: coordinator)
            return WireResponse.Get(object: coding.wireObject(try existing(get.uri, in: context), properties: nil))
        }
    }

    /// The name of this engine's writing contexts, which persistent history records with each write: the relay of
    /// remote changes (``EventHub/publishRemoteChanges(of:coordinator:storeThreads:skipping:)``) skips them.
    public let writerName = "almanacd-" + UUID().uuidString.lowercased()

    /// `insert`: a new object in the explicit, routed or only possible store. `author` is recorded in the
    /// store's persistent history (the client's uid and request id).
    func insert(_ insert: WireRequest.Insert, author: String? = nil) throws(WireError) -> WireResponse.Insert {
        try writing { try performInsert(insert, author: author) }
    }

    /// `update`: new values for an object; answers with the object as saved.
    func update(_ update: WireRequest.Update, author: String? = nil) throws(WireError) -> WireResponse.Get {
        try writing {
            let context = ManagedObjectContext(coordinator: coordinator)
            context.transactionAuthor = author
        context.name = writerName
            let object = try existing(update.uri, in: context)
            try coding.apply(update.values, to: object, in: context)
            try context.save()
            return WireResponse.Get(object: coding.wireObject(object, properties: nil))
        }
    }

    /// `delete`: removes an object.
    func delete(_ delete: WireRequest.Delete, author: String? = nil) throws(WireError) {
        try writing {
            let context = ManagedObjectContext(coordinator: coordinator)
            context.transactionAuthor = author
        context.name = writerName
            context.delete(try existing(delete.uri, in: context))
            try context.save()
        }
    }

    /// `changes`: what the latest release of each conference (or the named one) changed.
    func changes(_ changes: WireRequest.Changes) throws(WireError) -> WireResponse.Changes {
        try reading { try changesResponse(conference: changes.conference) }
    }

    /// The reply kept for an identical `fetch`, `count` or `template` request, if the stores are unchanged since
    /// and that can be told without waiting (for a save, a store change, or another request's read of the personal
    /// store); else nil, and the request is dispatched as usual. Never blocks: for the event loop.
    public func keptReply(to request: WireRequest) -> DaemonReply? {
        switch request.operation {
        case .fetch?, .count?, .template?: break
        default: return nil
        }
        let key = ReplyCache.Key(request)
        guard replies.containsReply(for: key), let token = try? coordinator.contentTokenWithoutWaiting() else {
            return nil
        }
        return replies.reply(for: key, token: token)
    }

    // MARK: Running inside the coordinator

    /// Runs a read beside other reads. A store whose file another process rewrote in place fails: it is set aside,
    /// as if the file had been replaced a moment before, and the read runs again without it. The read runs again
    /// too when the watcher replaced or detached the failing file's store meanwhile (it saw the new version first).
    func reading<T>(_ body: () throws -> T) throws(WireError) -> T {
        var retried: Set<String> = []
        while true {
            let storesBefore = library.storeChangeCount
            do {
                return try coordinator.performReading(body)
            } catch {
                guard isStale(error, storesBefore: storesBefore, retried: &retried) else { throw WireError.from(error) }
            }
        }
    }

    /// Runs a write alone. A store rewrote in place under it is set aside too, but the write is not run again.
    private func writing<T>(_ body: () throws -> T) throws(WireError) -> T {
        do {
            return try coordinator.performAndWait(body)
        } catch {
            var retried: Set<String> = []
            _ = isStale(error, storesBefore: nil, retried: &retried)
            throw WireError.from(error)
        }
    }

    /// Whether `error` came from a store that no longer serves its file, each file once per request: its file changed
    /// under it (set aside now), or, given the library's `storesBefore` count, the watcher replaced or detached it
    /// since the request began.
    private func isStale(_ error: any Error, storesBefore: Int?, retried: inout Set<String>) -> Bool {
        guard !(error is WireError), let url = (error as? StoreError)?.context.storeURL, !retried.contains(url.path),
            library.setAsideIfChangedUnderItsStore(url)
                || storesBefore.map({ library.storeChangeCount != $0 }) == true
        else { return false }
        retried.insert(url.path)
        return true
    }

    // MARK: Fetching

    /// The kept reply to an identical request while the stores are unchanged, else `make()`'s (kept for the next).
    /// Runs inside the request's `performReading`, so the token and the reply describe the same data.
    private func kept<Body: KeptReplyBody>(
        _ key: ReplyCache.Key?, _ request: FetchRequest, make: (ContentToken?) throws -> Body
    ) throws -> Body {
        guard let key, request.predicate?.callsVolatileFunction != true else { return try make(nil) }
        let token: ContentToken?
        do {
            token = try coordinator.contentToken()
        } catch let error as StoreError where error.code == .unavailable {
            // A shared store's server is unreachable: the last reply to this request, marked stale; else the
            // request runs without the cache (schedule queries do not need that store).
            if var last = replies.lastReply(for: key).flatMap(Body.init(kept:)) {
                last.isStale = true
                return last
            }
            return try make(nil)
        }
        guard let token else { return try make(nil) }
        if let kept = replies.reply(for: key, token: token).flatMap(Body.init(kept:)) { return kept }
        let body = try make(token)
        replies.keep(body.kept, for: key, token: token)
        return body
    }

    func fetchRequest(_ fetch: WireRequest.Fetch) throws -> FetchRequest {
        guard coordinator.managedObjectModel.entitiesByName[fetch.entity] != nil else {
            throw WireError(code: .unknownEntity, message: "The model has no entity named '\(fetch.entity)'.")
        }
        let request = FetchRequest(entityName: fetch.entity)
        if let format = fetch.predicate, !format.isEmpty {
            let predicate = try ObjectPredicate(format: format, argumentArray: [])
            let variables = fetch.variables.dictionary.mapValues(coding.variable)
            let missing = predicate.referencedVariables.subtracting(variables.keys).sorted()
            guard missing.isEmpty else {
                throw WireError(code: .missingVariable,
                                message: "The predicate needs " + missing.map { "$" + $0 }.joined(separator: ", ")
                                    + "; pass them in \"variables\".",
                                details: ["variables": .array(missing.map { .string($0) })])
            }
            request.predicate = variables.isEmpty ? predicate : try predicate.withSubstitutionVariables(variables)
        }
        request.sortKeys = fetch.sort.map(sortKey)
        if let limit = fetch.limit { request.fetchLimit = try nonNegative(limit, "limit") }
        if let offset = fetch.offset { request.fetchOffset = try nonNegative(offset, "offset") }
        if let subentities = fetch.includesSubentities { request.includesSubentities = subentities }
        if let names = fetch.stores {
            request.affectedStores = try names.map { name in
                guard let store = store(named: name) else {
                    throw WireError(code: .notFound, message: "No attached store is named '\(name)'.")
                }
                return store
            }
        }
        return request
    }

    private func nonNegative(_ value: Int, _ field: String) throws(WireError) -> Int {
        guard value >= 0 else { throw WireError.badRequest("\"\(field)\" must not be negative", field: field) }
        return value
    }

    private func sortKey(_ key: WireRequest.SortKey) -> SortKey {
        let comparison: SortKey.Comparison
        switch key.comparison {
        case .compare: comparison = .compare
        case .caseInsensitive: comparison = .caseInsensitive
        case .localizedStandard: comparison = .localizedStandard
        }
        return SortKey(key.key, ascending: key.isAscending, comparison: comparison)
    }

    /// The number of objects `request` matches, ignoring its limit and offset, when that must be known before
    /// fetching: when the reply could hold more than ``maximumReplyObjects``. Throws `too_large` when it would.
    /// Counting reads no objects, so a request for a million objects costs a `COUNT`, not a million objects.
    func checkReplySize(_ request: FetchRequest, in context: ManagedObjectContext) throws -> Int? {
        let (limit, offset) = (request.fetchLimit, request.fetchOffset)
        guard limit == 0 || limit > maximumReplyObjects else { return nil }
        request.fetchLimit = 0
        request.fetchOffset = 0
        defer {
            request.fetchLimit = limit
            request.fetchOffset = offset
        }
        let total = try context.count(for: request)
        let replied = limit == 0 ? max(0, total - offset) : min(limit, max(0, total - offset))
        if replied > maximumReplyObjects { throw WireError.tooManyObjects(replied, limit: maximumReplyObjects) }
        return total
    }

    /// Where a fetch's total is kept: under the key of the same request without its paging, sorting and
    /// properties (for `fetch`, the key of the `count` request that asks for that total), with the content token
    /// of the reply being made. Nil when the reply is not kept.
    private func total(_ key: ReplyCache.Key?, _ token: ContentToken?) -> (key: ReplyCache.Key, token: ContentToken)? {
        guard let token, let totalKey = key?.totalKey else { return nil }
        return (totalKey, token)
    }

    /// The objects `request` fetches and their total; refused with `too_large` past ``maximumReplyObjects`` unless
    /// the caller checked the size already (`checkingSize` false).
    ///
    /// A page shorter than its limit needs no count: the list ends there. A total counted (or found so) for a page
    /// is kept under `total`'s key: the other pages of the same request (a client paging through a list, or many at
    /// different offsets) then count nothing while the stores are unchanged.
    private func fetchResponse(
        _ request: FetchRequest, properties: [String]?, checkingSize: Bool = true,
        total kept: (key: ReplyCache.Key, token: ContentToken)? = nil
    ) throws -> WireResponse.Fetch {
        let context = ManagedObjectContext(coordinator: coordinator)
        let counted = checkingSize ? try checkReplySize(request, in: context) : nil
        let coding = self.coding
        let entities = coordinator.managedObjectModel.entitiesByName
        let objects: [WireObject]
        // Entities whose objects show just their stored values are encoded from the stores' records: no managed
        // objects made (the context is new, so there are no unsaved changes to merge).
        let entity = entities[request.entityName]
        let fromRecords = entity?.selfAndDescendants.allSatisfy(coding.showsStoredValues(of:)) ?? false
        // A page's total when it is kept (the same request at another offset counted it while the stores were the
        // same), else counted in the walk of the page when the page comes from records.
        var total: Int?
        var walkedTotal = false
        if counted == nil, request.fetchLimit > 0, let kept,
            case .count(let keptCount)? = replies.reply(for: kept.key, token: kept.token)
        {
            total = keptCount.count
        }
        if let entity, fromRecords, properties == nil {
            let records: [StoreRecord]
            if counted == nil, total == nil, request.fetchLimit > 0 {
                (records, total) = try context.fetchRecordsWithTotal(request)
                walkedTotal = true
            } else {
                records = try context.fetchRecords(request)
            }
            // Entries of detached stores go once the cache holds more stores than are attached (a replaced or
            // deleted file's), so churn in the watched folders does not grow it.
            let attached = coordinator.persistentStores
            if wireObjects.storeCount > attached.count { wireObjects.removeEntries(ofStoresOtherThan: attached) }
            // The store of each record, from the coordinator's index (not a table of every attached store per
            // request; a local table of the stores seen cost more than the lookups it saved: callgrind).
            let coordinator = self.coordinator
            objects = wireObjects.values(for: records, stores: coordinator.persistentStore(withIdentifier:)) { record in
                // Cached objects are encoded again for every reply that has them: keep their bytes.
                coding.wireObject(record, entity: entities[record.objectID.entityName] ?? entity).withEncodingKept()
            }
        } else if let entity, fromRecords, let properties, coding.readsFromRecords(properties, of: entity) {
            // Named attributes and key paths through to-one relationships: no related objects (and their to-many
            // relationships) are made just to read `room.name`.
            var related: [ManagedObjectID: StoreRecord?] = [:]
            objects = try context.fetchRecords(request).map { record in
                try coding.wireObject(record, entity: entities[record.objectID.entityName] ?? entity,
                                      properties: properties) { id in
                    if let known = related[id] { return known }
                    let found = try context.storedRecord(for: id)
                    related[id] = found
                    return found
                }
            }
        } else {
            objects = try context.fetch(request).map { coding.wireObject($0, properties: properties) }
        }
        if let counted { return WireResponse.Fetch(objects: objects, total: counted) }
        let (limit, offset) = (request.fetchLimit, request.fetchOffset)
        // A page that ends before its limit ends the list: the total is what came before it and what it holds
        // (unless it is empty past the start, when the list may end anywhere before the offset).
        if limit == 0 || objects.count < limit, !objects.isEmpty || offset == 0 {
            let total = offset + objects.count
            if let kept, offset > 0 || limit > 0 {
                replies.keep(.count(WireResponse.Count(count: total)), for: kept.key, token: kept.token)
            }
            return WireResponse.Fetch(objects: objects, total: total)
        }
        if let total {
            if walkedTotal {
                totalsCounted.withLock { $0 += 1 }
                if let kept { replies.keep(.count(WireResponse.Count(count: total)), for: kept.key, token: kept.token) }
            }
            return WireResponse.Fetch(objects: objects, total: total)
        }
        request.fetchLimit = 0
        request.fetchOffset = 0
        let counter = try context.count(for: request)
        totalsCounted.withLock { $0 += 1 }
        request.fetchLimit = limit
        request.fetchOffset = offset
        if let kept { replies.keep(.count(WireResponse.Count(count: counter)), for: kept.key, token: kept.token) }
        return WireResponse.Fetch(objects: objects, total: counter)
    }

    /// `SearchSessions`: sessions whose title matches come first, then the others (each group in the request's
    /// order); `limit` and `offset` apply to the whole list, `total` counts both groups.
    private func searchResponse(_ request: FetchRequest, text: String, properties: [String]?) throws
        -> WireResponse.Fetch
    {
        guard let predicate = request.predicate else { return try fetchResponse(request, properties: properties) }
        let inTitle = ObjectPredicate.comparison(
            .keyPath("title"), .contains, .constant(.string(text)), options: [.caseInsensitive, .diacriticInsensitive])
        let (limit, offset) = (request.fetchLimit, request.fetchOffset)
        // The two groups partition the request's objects: one count says whether the reply is too large.
        _ = try checkReplySize(request, in: ManagedObjectContext(coordinator: coordinator))
        var objects: [WireObject] = []
        var total = 0
        // The page's objects only: the title group's from `offset`, then the other group's from where the page
        // continues in it.
        var skip = offset
        for part in [inTitle, .not(inTitle)] {
            let group = FetchRequest(entityName: request.entityName)
            group.predicate = .and([part, predicate])
            group.sortKeys = request.sortKeys
            group.includesSubentities = request.includesSubentities
            group.affectedStores = request.affectedStores
            let wanted = limit == 0 ? 0 : limit - objects.count
            guard limit == 0 || wanted > 0 else {
                total += try ManagedObjectContext(coordinator: coordinator).count(for: group)
                continue
            }
            group.fetchLimit = wanted
            group.fetchOffset = skip
            let reply = try fetchResponse(group, properties: properties, checkingSize: false)
            objects += reply.objects
            total += reply.total
            skip = max(0, skip - reply.total)
        }
        return WireResponse.Fetch(objects: objects, total: total)
    }

    private func existing(_ uri: String, in context: ManagedObjectContext) throws -> ManagedObject {
        guard let url = URL(string: uri), let id = coordinator.managedObjectID(forURIRepresentation: url),
            !id.isTemporaryID
        else {
            throw WireError(code: .notFound, message: "No object has the URI \(uri).")
        }
        do {
            return try context.existingObject(with: id)
        } catch {
            throw WireError(code: .notFound, message: "No object has the URI \(uri) (its store may have been detached).")
        }
    }

    // MARK: Writing

    private func performInsert(_ insert: WireRequest.Insert, author: String?) throws -> WireResponse.Insert {
        let model = coordinator.managedObjectModel
        guard let entity = model.entitiesByName[insert.entity], !entity.isAbstract else {
            throw WireError(code: .unknownEntity, message: "The model has no concrete entity named '\(insert.entity)'.")
        }
        let target = try targetStore(for: entity, explicit: insert.store)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.transactionAuthor = author
        context.name = writerName
        let object = context.insertNewObject(forEntityName: entity.name)
        try coding.apply(insert.values, to: object, in: context)
        try context.assign(object, to: target)
        try context.save()
        return WireResponse.Insert(uri: object.objectID.uriRepresentation().absoluteString, store: target.identifier)
    }

    /// The store a new object goes to: the explicit one (checked), else a routing rule, else the single writable
    /// store that holds the entity, else `ambiguous_store` listing the candidates.
    private func targetStore(for entity: EntityDescription, explicit: String?) throws -> PersistentStore {
        let candidates = coordinator.persistentStores.filter { !$0.isReadOnly && $0.holds(entityNamed: entity.name) }
        if let explicit {
            guard let store = store(named: explicit) else {
                throw WireError(code: .notFound, message: "No attached store is named '\(explicit)'.")
            }
            guard candidates.contains(where: { $0 === store }) else {
                throw WireError(code: .notWritable,
                                message: "The store '\(explicit)' is read-only or does not hold \(entity.name).")
            }
            return store
        }
        if let rule = routingRules[entity.name], let store = store(named: rule),
            candidates.contains(where: { $0 === store })
        {
            return store
        }
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty {
            throw WireError(code: .notWritable, message: "No writable store holds \(entity.name).")
        }
        let names = candidates.map { $0.url?.lastPathComponent ?? $0.identifier }
        throw WireError.ambiguousStore("Several writable stores hold \(entity.name): "
                                           + names.joined(separator: ", ") + "; name one in \"store\".",
                                       candidates: names)
    }

    /// A store by identifier, path or file name; `personal` names the personal store.
    func store(named name: String) -> PersistentStore? {
        if name == "personal" { return personalStore }
        return coordinator.persistentStores.first {
            $0.identifier == name || $0.url?.path == name || $0.url?.lastPathComponent == name
        }
    }

    // MARK: Listing

    private func storeList() -> [WireResponse.StoreInfo] {
        var personal = storeInfo(store: personalStore, file: personalStore.url?.path ?? "", loadedAt: nil, error: nil)
        if let state = personalStore.connectionState {
            // A shared store: its URL (without a password) and the state of its connection.
            personal.file = PostgresStoreLocation(url: personalStore.url ?? URL(fileURLWithPath: "/"))?.displayString
                ?? personal.file
            personal.connection = WireResponse.StoreConnection(
                state: WireResponse.StoreConnection.State(rawValue: state.status.rawValue) ?? .reconnecting,
                since: state.since, lastError: state.lastError)
        }
        var list = [personal]
        for entry in library.entriesByPath {
            var info = storeInfo(store: entry.store, file: entry.url.path, loadedAt: entry.loadedAt,
                                 error: entry.error, type: entry.type, readOnly: entry.isReadOnly)
            info.conference = entry.conference
            info.conferenceTitle = entry.conferenceTitle
            info.timeZone = entry.timeZone
            info.timeZoneSource = entry.timeZoneSource?.rawValue
            if entry.document == nil, entry.isServing, let store = entry.store, store.holds(entityNamed: "Conference") {
                // A Core Data store: its first conference, as stored.
                let request = FetchRequest(entityName: "Conference")
                request.affectedStores = [store]
                request.fetchLimit = 1
                if let record = try? ManagedObjectContext(coordinator: coordinator).fetchRecords(request).first {
                    info.conference = record["acronym"] as? String
                    info.conferenceTitle = record["title"] as? String
                    info.timeZone = record["timeZone"] as? String
                    info.timeZoneSource = info.timeZone == nil ? nil : (record["timeZoneSource"] as? String ?? "file")
                }
            }
            info.warnings = WireResponse.StoreWarnings(count: entry.warningCount, messages: entry.warnings)
            info.shadowedBy = entry.shadowedBy?.path
            info.settingsError = entry.settingsError
            if entry.shadowedBy != nil { info.status = .shadowed }
            list.append(info)
        }
        return list
    }

    private func storeInfo(store: PersistentStore?, file: String, loadedAt: Date?, error: String?,
                           type: PersistentStoreType? = nil, readOnly: Bool? = nil) -> WireResponse.StoreInfo {
        WireResponse.StoreInfo(
            id: store?.identifier ?? "", file: file, type: (store?.type ?? type)?.rawValue ?? "",
            configuration: store?.configurationName, isReadOnly: store?.isReadOnly ?? readOnly ?? true,
            objects: store.map(objectCount(in:)) ?? 0, loadedAt: loadedAt, error: error,
            status: store == nil ? .failed : (error == nil ? .serving : .stale))
    }

    func objectCount() -> Int {
        coordinator.performReading { coordinator.persistentStores.reduce(0) { $0 + objectCount(in: $1) } }
    }

    /// The number of objects in a store: its cache for atomic stores, a count per entity for incremental ones.
    func objectCount(in store: PersistentStore) -> Int {
        if let store = store as? any StoreObjectCounting { return coordinator.performReading { store.objectCount } }
        let entities = coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []
        let context = ManagedObjectContext(coordinator: coordinator)
        return entities.reduce(0) { total, entity in
            let request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            request.affectedStores = [store]
            return total + ((try? context.count(for: request)) ?? 0)
        }
    }

    /// The number of sessions in every store, for the status line.
    public func sessionCount() -> Int {
        let context = ManagedObjectContext(coordinator: coordinator)
        return (try? context.count(for: FetchRequest(entityName: "Session"))) ?? 0
    }

    // MARK: Changes

    private func changesResponse(conference: String?) throws -> WireResponse.Changes {
        var names = library.conferencesWithChanges
        if let conference {
            let name = try conferenceName(matching: conference)
            guard library.changes(forConference: name) != nil else {
                throw WireError(code: .notFound,
                                message: "No earlier release of '\(name)' is known; changes appear when a newer "
                                    + "file replaces an attached one.")
            }
            names = [name]
        }
        var changes = WireResponse.Changes(conference: conference.map { _ in names.first ?? "" })
        for name in names {
            guard let release = library.releaseChanges(forConference: name) else { continue }
            let diff = release.changes
            changes.added += diff.added.map { entry($0, name, previous: [:]) }
            changes.cancelled += diff.cancelled.map { item in
                var previous: JSONObject = ["status": .string(item.reason.rawValue)]
                if item.reason == .removed {
                    // Its old values: the session is in no schedule any more.
                    previous["title"] = .string(item.session.title)
                    previous["start"] = .string(WireDate.string(from: item.session.start))
                    previous["room"] = item.session.roomName.map { .string($0) } ?? .null
                }
                return entry(item.session, name, previous: previous,
                             formerURI: release.removedURIs[item.session.storedGUID])
            }
            changes.moved += diff.moved.map { move in
                entry(move.new, name, previous: [
                    "start": .string(WireDate.string(from: move.oldStart)),
                    "room": move.oldRoom.map { .string($0) } ?? .null,
                ])
            }
            changes.changed += diff.changed.map { edit in
                var previous: JSONObject = [:]
                for field in edit.fields {
                    switch field {
                    case .title: previous["title"] = .string(edit.old.title)
                    case .persons: previous["persons"] = .array(edit.old.personNames.map { .string($0) })
                    case .abstract: previous["abstract"] = edit.old.abstract.map { .string($0) } ?? .null
                    default: previous["\(field)"] = .string("changed")
                    }
                }
                return entry(edit.new, name, previous: previous)
            }
        }
        return changes
    }

    /// The name of the served conference a user's text names: its name (acronym), title or file name, compared
    /// case-insensitively (a file name with or without its extension).
    ///
    /// - Throws: `unknown_conference` listing the served names when none matches.
    func conferenceName(matching text: String) throws -> String {
        let request = FetchRequest(entityName: "Conference")
        let conferences = try ManagedObjectContext(coordinator: coordinator).fetchRecords(request)
        var names: [String] = []
        let wanted = text.trimmingCharacters(in: .whitespaces)
        func same(_ value: String?) -> Bool {
            guard let value else { return false }
            return value.caseInsensitiveCompare(wanted) == .orderedSame
        }
        for record in conferences {
            guard let name = record["acronym"] as? String else { continue }
            names.append(name)
            let source = record["source"] as? String
            let stem = source.map { ConferenceIdentity.fileStem(of: $0) }
            if same(name) || same(record["title"] as? String) || same(source) || same(stem) { return name }
        }
        // A file the library knows by its path's name, even when its conference is named otherwise.
        for entry in library.entriesByPath where entry.isServing {
            if same(entry.url.lastPathComponent) || same(entry.url.deletingPathExtension().lastPathComponent),
                let name = entry.conference
            {
                return name
            }
        }
        throw WireError.unknownConference(wanted, known: Array(Set(names)).sorted())
    }

    /// A change entry: the session as a wire object (with its live URI when the new release holds it) and what it
    /// was before.
    private func entry(_ session: SessionInfo, _ acronym: String, previous: JSONObject, formerURI: String? = nil)
        -> WireResponse.ChangeEntry
    {
        let guid = session.storedGUID
        var values = sessionJSON(session, acronym)
        values["guid"] = .string(guid)
        let request = FetchRequest(entityName: "Session")
        request.predicate = ObjectPredicate.comparison(.keyPath("guid"), .equalTo, .constant(.string(guid)))
        request.fetchLimit = 1
        let live = try? ManagedObjectContext(coordinator: coordinator).fetch(request).first
        // A removed session has no live object: it keeps the URI it had (its store was the replaced one).
        let uri = live?.objectID.uriRepresentation().absoluteString ?? formerURI
            ?? "x-almanac://\(acronym)/Session/\(guid)"
        let store = live?.objectID.storeIdentifier ?? URL(string: uri)?.host ?? ""
        return WireResponse.ChangeEntry(
            object: WireObject(uri: uri, entity: "Session", store: store, values: values), previous: previous)
    }

    private func sessionJSON(_ session: SessionInfo, _ acronym: String) -> JSONObject {
        ["conference.acronym": .string(acronym), "guid": .string(session.storedGUID),
         "title": .string(session.title), "start": .string(WireDate.string(from: session.start)),
         "end": .string(WireDate.string(from: session.end)), "room.name": session.roomName.map { .string($0) } ?? .null,
         "status": .string(session.status == .cancelled ? "cancelled" : "confirmed")]
    }
}
