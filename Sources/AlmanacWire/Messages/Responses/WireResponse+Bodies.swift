import struct Foundation.Date

extension WireResponse {
    /// The answer to `hello`: `{"protocol": 1, "version": "…", "entities": [...]}`.
    public struct Hello: WireMessageBody, WireReplyBody {
        public var protocolVersion: Int
        /// The daemon's version.
        public var version: String
        /// The entity names of the served model.
        public var entities: [String]

        public init(protocolVersion: Int = WireProtocol.version, version: String, entities: [String]) {
            self.protocolVersion = protocolVersion
            self.version = version
            self.entities = entities
        }

        public init(json: JSONObject) throws(WireError) {
            protocolVersion = try json.requiredInt("protocol")
            version = try json.optionalString("version") ?? ""
            entities = try json.optionalStringArray("entities") ?? []
        }

        public var json: JSONObject {
            [
                "protocol": .int(protocolVersion), "version": .string(version),
                "entities": .array(entities.map(JSONValue.string)),
            ]
        }
    }

    /// What a store's reader tolerated or repaired: how many warnings and the first few.
    public struct StoreWarnings: WireMessageBody, Hashable {
        /// How many warnings there are in all.
        public var count: Int
        /// The first few (at most ten), in order.
        public var messages: [String]

        public init(count: Int = 0, messages: [String] = []) {
            self.count = count
            self.messages = messages
        }

        public init(json: JSONObject) throws(WireError) {
            count = try json.optionalInt("count") ?? 0
            messages = try json.optionalStringArray("messages") ?? []
        }

        public var json: JSONObject { ["count": .int(count), "messages": .array(messages.map(JSONValue.string))] }
    }

    /// One store in the answer to `stores`.
    public struct StoreInfo: WireMessageBody {
        /// Whether a store answers queries.
        public enum Status: String, Sendable, Hashable {
            /// Attached and queried.
            case serving
            /// Loaded but not queried: another file holds a newer release of the same conference (``shadowedBy``).
            case shadowed
            /// The last attempt to read the file failed and nothing of it is served (``error``).
            case failed
            /// The last attempt failed (``error``), and the earlier version keeps serving.
            case stale
        }

        /// The store's identifier.
        public var id: String
        /// The file the store was loaded from.
        public var file: String
        /// The store type, e.g. `xml`, `sqlite`, `binary`, `frab`.
        public var type: String
        /// The model configuration the store is attached with.
        public var configuration: String?
        public var isReadOnly: Bool
        /// The number of objects in the store.
        public var objects: Int
        /// When the store was (last) loaded.
        public var loadedAt: Date?
        /// Why the store failed to load, if it did.
        public var error: String?
        /// Whether the store answers queries; absent from older daemons (read as serving, or failed with an error).
        public var status: Status
        /// The name of the conference the file holds (what `--conference` and `conference.acronym` match).
        public var conference: String?
        /// The conference's title.
        public var conferenceTitle: String?
        /// The conference time zone: an IANA name, or a fixed offset such as `+01:00`.
        public var timeZone: String?
        /// Where the zone came from: `file`, `offsets`, `configured` or `assumed`.
        public var timeZoneSource: String?
        /// What the reader tolerated or repaired (dropped duplicates, repeat runs, an assumed zone…).
        public var warnings: StoreWarnings
        /// The file holding the newer release this one yields to, when ``status`` is shadowed.
        public var shadowedBy: String?
        /// Why the per-file settings matching this file could not be used (the file keeps its earlier reading).
        public var settingsError: String?
        /// The connection of a store on a server (the PostgreSQL personal store) to it; `nil`, and absent from the
        /// JSON, for stores in local files.
        public var connection: StoreConnection?

        public init(
            id: String,
            file: String,
            type: String,
            configuration: String? = nil,
            isReadOnly: Bool,
            objects: Int,
            loadedAt: Date? = nil,
            error: String? = nil,
            status: Status? = nil,
            conference: String? = nil,
            conferenceTitle: String? = nil,
            timeZone: String? = nil,
            timeZoneSource: String? = nil,
            warnings: StoreWarnings = StoreWarnings(),
            shadowedBy: String? = nil,
            settingsError: String? = nil
        ) {
            self.id = id
            self.file = file
            self.type = type
            self.configuration = configuration
            self.isReadOnly = isReadOnly
            self.objects = objects
            self.loadedAt = loadedAt
            self.error = error
            self.status = status ?? (error == nil ? .serving : (id.isEmpty ? .failed : .stale))
            self.conference = conference
            self.conferenceTitle = conferenceTitle
            self.timeZone = timeZone
            self.timeZoneSource = timeZoneSource
            self.warnings = warnings
            self.shadowedBy = shadowedBy
            self.settingsError = settingsError
        }

        public init(json: JSONObject) throws(WireError) {
            id = try json.optionalString("id") ?? ""
            file = try json.optionalString("file") ?? ""
            type = try json.optionalString("type") ?? ""
            configuration = try json.optionalString("configuration")
            isReadOnly = try json.optionalBool("readOnly") ?? false
            objects = try json.optionalInt("objects") ?? 0
            loadedAt = try json.optionalDate("loadedAt")
            error = try json.optionalString("error")
            let fallback: Status = error == nil ? .serving : (id.isEmpty ? .failed : .stale)
            status = try json.optionalString("status").flatMap(Status.init(rawValue:)) ?? fallback
            conference = try json.optionalString("conference")
            conferenceTitle = try json.optionalString("conferenceTitle")
            timeZone = try json.optionalString("timeZone")
            timeZoneSource = try json.optionalString("timeZoneSource")
            warnings = try json.optionalObject("warnings").map { object throws(WireError) in
                try StoreWarnings(json: object)
            } ?? StoreWarnings()
            shadowedBy = try json.optionalString("shadowedBy")
            settingsError = try json.optionalString("settingsError")
            connection = try json.optionalObject("connection").map { object throws(WireError) in
                try StoreConnection(json: object)
            }
        }

        public var json: JSONObject {
            var json: JSONObject = [
                "id": id.isEmpty ? .null : .string(id), "file": .string(file),
                "type": type.isEmpty ? .null : .string(type),
                "configuration": configuration.map(JSONValue.string) ?? .null, "readOnly": .bool(isReadOnly),
                "objects": .int(objects), "loadedAt": loadedAt.map { .string(WireDate.string(from: $0)) } ?? .null,
                "error": error.map(JSONValue.string) ?? .null, "status": .string(status.rawValue),
                "conference": conference.map(JSONValue.string) ?? .null,
                "conferenceTitle": conferenceTitle.map(JSONValue.string) ?? .null,
                "timeZone": timeZone.map(JSONValue.string) ?? .null,
                "timeZoneSource": timeZoneSource.map(JSONValue.string) ?? .null,
                "warnings": .object(warnings.json), "shadowedBy": shadowedBy.map(JSONValue.string) ?? .null,
                "settingsError": settingsError.map(JSONValue.string) ?? .null,
            ]
            if let connection { json["connection"] = .object(connection.json) }
            return json
        }
    }

    /// A shared store's connection to its server, in ``StoreInfo/connection``:
    /// `{"state": "connected" | "reconnecting" | "closed", "since": date?, "lastError": string?}`.
    public struct StoreConnection: WireMessageBody {
        /// Whether the store is connected.
        public enum State: String, Sendable, Hashable {
            /// The connection is open.
            case connected
            /// The connection was lost (or never made): the daemon is trying again, with back-off.
            case reconnecting
            /// The store was removed.
            case closed
        }

        /// Whether the store is connected.
        public var state: State
        /// Since when (connected since, or reconnecting since).
        public var since: Date?
        /// The last connection failure, if there was one.
        public var lastError: String?

        public init(state: State, since: Date? = nil, lastError: String? = nil) {
            self.state = state
            self.since = since
            self.lastError = lastError
        }

        public init(json: JSONObject) throws(WireError) {
            state = try json.optionalString("state").flatMap(State.init(rawValue:)) ?? .connected
            since = try json.optionalDate("since")
            lastError = try json.optionalString("lastError")
        }

        public var json: JSONObject {
            [
                "state": .string(state.rawValue), "since": since.map { .string(WireDate.string(from: $0)) } ?? .null,
                "lastError": lastError.map(JSONValue.string) ?? .null,
            ]
        }
    }

    /// The answer to `stores`: `{"stores": [...]}`.
    public struct Stores: WireMessageBody, WireReplyBody {
        public var stores: [StoreInfo]

        public init(stores: [StoreInfo]) { self.stores = stores }
        public init(json: JSONObject) throws(WireError) { stores = try json.objects("stores", StoreInfo.init(json:)) }
        public var json: JSONObject { ["stores": .array(stores.map { .object($0.json) })] }
    }

    /// The answer to `fetch` and `template`: `{"objects": [...], "total": n}`.
    public struct Fetch: WireMessageBody, WireReplyBody {
        public var objects: [WireObject]
        /// The rows of a fetch with `"resultType": "dictionary"` (then ``objects`` is empty and not sent): one
        /// object per matching object or per group, keyed by property, group and aggregate name.
        public var rows: [JSONObject]?
        /// The number of matching objects before `limit` and `offset` (of rows, for a dictionary fetch).
        public var total: Int
        /// Whether the reply is the last one made before the server of a shared store became unreachable
        /// (`"stale": true`, sent only then): the objects may have changed since.
        public var isStale = false

        public init(objects: [WireObject], total: Int? = nil) {
            self.objects = objects
            self.total = total ?? objects.count
        }

        /// A dictionary fetch's answer.
        public init(rows: [JSONObject], total: Int? = nil) {
            self.objects = []
            self.rows = rows
            self.total = total ?? rows.count
        }

        public init(json: JSONObject) throws(WireError) {
            if let rows = try json.optionalArray("rows") {
                self.rows = try rows.map { value throws(WireError) in
                    guard case .object(let row) = value else {
                        throw WireError(code: .badRequest, message: "\"rows\" holds objects")
                    }
                    return row
                }
                objects = []
                total = try json.optionalInt("total") ?? rows.count
                isStale = try json.optionalBool("stale") ?? false
                return
            }
            objects = try json.objects("objects", WireObject.init(json:))
            total = try json.optionalInt("total") ?? objects.count
            isStale = try json.optionalBool("stale") ?? false
        }

        public var json: JSONObject {
            var json: JSONObject =
                if let rows { ["rows": .array(rows.map { .object($0) }), "total": .int(total)] } else {
                    ["objects": .array(objects.map { .object($0.json) }), "total": .int(total)]
                }
            if isStale { json["stale"] = .bool(true) }
            return json
        }

        /// The kept encodings' sizes, and a guess for the other objects.
        public var encodedByteCountEstimate: Int {
            objects.reduce(64) { $0 + ($1.keptEncoding?.count ?? 256) + 1 }
        }

        /// Writes the objects (copying the kept encodings of cached ones) and the total.
        @inlinable
        public func encodeMembers<Output: JSONOutput>(into output: inout Output) {
            if let rows {
                output.writeJSONText(",\"rows\":")
                JSONValue.array(rows.map { .object($0) }).encode(into: &output)
                output.writeJSONText(",\"total\":")
                JSONValue.int(total).encode(into: &output)
                if isStale { output.writeJSONText(",\"stale\":true") }
                return
            }
            output.writeJSONText(",\"objects\":[")
            for position in objects.indices {
                if position > 0 { output.writeJSONByte(UInt8(ascii: ",")) }
                // A kept encoding is read alone: copying the object to encode it retained and released its strings,
                // values and bytes, which cost as much as copying the bytes.
                if let kept = objects[position].keptEncoding {
                    output.writeJSONBytes(kept)
                } else {
                    objects[position].encode(into: &output)
                }
            }
            output.writeJSONText("],\"total\":")
            JSONValue.int(total).encode(into: &output)
            if isStale { output.writeJSONText(",\"stale\":true") }
        }
    }

    /// The answer to `count`: `{"count": n}`.
    public struct Count: WireMessageBody, WireReplyBody {
        public var count: Int
        /// Whether the count is the last one made before the server of a shared store became unreachable
        /// (`"stale": true`, sent only then).
        public var isStale = false

        public init(count: Int) { self.count = count }
        public init(json: JSONObject) throws(WireError) {
            count = try json.requiredInt("count")
            isStale = try json.optionalBool("stale") ?? false
        }
        public var json: JSONObject { isStale ? ["count": .int(count), "stale": .bool(true)] : ["count": .int(count)] }

        @inlinable
        public func encodeMembers<Output: JSONOutput>(into output: inout Output) {
            output.writeJSONText(",\"count\":")
            JSONValue.int(count).encode(into: &output)
            if isStale { output.writeJSONText(",\"stale\":true") }
        }
    }

    /// The answer to `get` and `update`: `{"object": {...}}`.
    public struct Get: WireMessageBody, WireReplyBody {
        public var object: WireObject

        public init(object: WireObject) { self.object = object }
        public init(json: JSONObject) throws(WireError) { object = try WireObject(json: try json.requiredObject("object")) }
        public var json: JSONObject { ["object": .object(object.json)] }

        @inlinable
        public func encodeMembers<Output: JSONOutput>(into output: inout Output) {
            output.writeJSONText(",\"object\":")
            object.encode(into: &output)
        }
    }

    /// The answer to `ping` and `delete`: no fields, `{"id": …, "ok": true}`.
    public struct Empty: WireMessageBody, WireReplyBody {
        public init() {}
        public init(json: JSONObject) throws(WireError) {}
        public var json: JSONObject { JSONObject() }

        @inlinable
        public func encodeMembers<Output: JSONOutput>(into output: inout Output) {}
    }

    /// The answer to `insert`: `{"uri": …, "store": …}`.
    public struct Insert: WireMessageBody, WireReplyBody {
        public var uri: String
        public var store: String

        public init(uri: String, store: String) {
            self.uri = uri
            self.store = store
        }

        public init(json: JSONObject) throws(WireError) {
            uri = try json.requiredString("uri")
            store = try json.optionalString("store") ?? ""
        }

        public var json: JSONObject { ["uri": .string(uri), "store": .string(store)] }
    }

    /// The answer to `subscribe`: `{"subscribed": true}`; events follow on the same connection.
    public struct Subscribed: WireMessageBody, WireReplyBody {
        public var isSubscribed: Bool

        public init(isSubscribed: Bool = true) { self.isSubscribed = isSubscribed }
        public init(json: JSONObject) throws(WireError) { isSubscribed = try json.requiredBool("subscribed") }
        public var json: JSONObject { ["subscribed": .bool(isSubscribed)] }
    }
}
