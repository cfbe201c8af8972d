import AlmanacWire
import ObjectGraph

/// Replies (typed bodies) to reading requests (`fetch`, `count`, `template`), kept for the next identical request while the stores
/// hold the same data.
///
/// A reply is kept with the coordinator's ``ObjectGraph/ContentToken`` read in the same `performReading` as the
/// reply was made, and served again only while the token read for the new request is equal: any save, any store
/// attached, replaced or detached, and any commit another process makes to an SQLite store change it. Requests
/// whose predicate calls `now()` are never kept, nor are replies of more than ``maxObjects`` objects. At most
/// ``limit`` replies are kept; when full, the least recently used quarter goes.
final class ReplyCache: Sendable {
    /// A request without its `id`. Its hash is computed once: a kept reply is looked up twice per request (is one
    /// kept, then is it current), and hashing the fields was most of a cache hit's own cost.
    struct Key: Hashable, Sendable {
        let op: String
        let fields: JSONObject
        private let hash: Int

        init(op: String, fields: JSONObject) {
            self.op = op
            self.fields = fields
            var hasher = Hasher()
            hasher.combine(op)
            hasher.combine(fields)
            hash = hasher.finalize()
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.op == rhs.op && lhs.fields == rhs.fields
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        /// The key of a request: its operation and fields, without its `id`.
        init(_ request: WireRequest) {
            self.init(op: request.op, fields: request.fields)
        }

        /// For a `fetch` of objects or a `template`, the key its total is kept under: the request without the fields
        /// that do not change the total (`limit`, `offset`, `sort`, `properties`). A fetch's is the key of the `count`
        /// request with the remaining fields, which counts the same objects. Nil for other requests.
        var totalKey: Key? {
            let op: String
            switch self.op {
            case "fetch":
                if let type = fields["resultType"], type != .string("objects") { return nil }
                op = "count"
            case "template": op = "template-total"
            default: return nil
            }
            var fields = self.fields
            for name in ["limit", "offset", "sort", "properties", "resultType"] { fields[name] = nil }
            return Key(op: op, fields: fields)
        }
    }

    private struct Entry {
        var token: ContentToken
        var body: DaemonReply
        var lastUse: Int
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var use = 0
        var hits = 0
    }

    private let state = LockedValue(State())
    /// The most replies kept.
    let limit: Int
    /// Replies with more objects than this are not kept.
    let maxObjects: Int

    init(limit: Int = 256, maxObjects: Int = 500) {
        self.limit = limit
        self.maxObjects = maxObjects
    }

    /// The reply kept for `key` when it was made with the stores in the state `token` describes.
    func reply(for key: Key, token: ContentToken) -> DaemonReply? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.token == token else { return nil }
            state.use += 1
            state.hits += 1
            state.entries[key]!.lastUse = state.use
            return entry.body
        }
    }

    /// The reply kept for `key`, whatever the stores' state: the last known answer, for when a shared store's
    /// server cannot be reached to tell whether it still holds.
    func lastReply(for key: Key) -> DaemonReply? {
        state.withLock { $0.entries[key]?.body }
    }

    /// Whether a reply is kept for `key`, whatever the stores' state (a cheap check before reading the token).
    func containsReply(for key: Key) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    /// Keeps a reply made with the stores in the state `token` describes (unless it is too large).
    func keep(_ body: DaemonReply, for key: Key, token: ContentToken) {
        if case .fetch(let fetch) = body, fetch.objects.count > maxObjects { return }
        state.withLock { state in
            state.use += 1
            if state.entries[key] == nil, state.entries.count >= limit {
                // The least recently used quarter goes at once: one sort per `limit / 4` new replies, rather than a
                // search of every entry for each.
                let oldest = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(max(1, limit / 4))
                for (key, _) in oldest { state.entries[key] = nil }
            }
            state.entries[key] = Entry(token: token, body: body, lastUse: state.use)
        }
    }

    /// The number of replies kept.
    var count: Int { state.withLock { $0.entries.count } }

    /// How many requests were answered from the cache.
    var hits: Int { state.withLock { $0.hits } }
}
