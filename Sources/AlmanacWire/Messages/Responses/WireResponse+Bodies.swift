import struct Foundation.Date

extension WireResponse {
    /// The answer to `hello`: `{"protocol": 1, "version": "…", "entities": [...]}`.
    public struct Hello: WireMessageBody {
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

    /// One store in the answer to `stores`.
    public struct StoreInfo: WireMessageBody {
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

        public init(
            id: String,
            file: String,
            type: String,
            configuration: String? = nil,
            isReadOnly: Bool,
            objects: Int,
            loadedAt: Date? = nil,
            error: String? = nil
        ) {
            self.id = id
            self.file = file
            self.type = type
            self.configuration = configuration
            self.isReadOnly = isReadOnly
            self.objects = objects
            self.loadedAt = loadedAt
            self.error = error
        }

        public init(json: JSONObject) throws(WireError) {
            id = try json.requiredString("id")
            file = try json.optionalString("file") ?? ""
            type = try json.optionalString("type") ?? ""
            configuration = try json.optionalString("configuration")
            isReadOnly = try json.optionalBool("readOnly") ?? false
            objects = try json.optionalInt("objects") ?? 0
            loadedAt = try json.optionalDate("loadedAt")
            error = try json.optionalString("error")
        }

        public var json: JSONObject {
            [
                "id": .string(id), "file": .string(file), "type": .string(type),
                "configuration": configuration.map(JSONValue.string) ?? .null, "readOnly": .bool(isReadOnly),
                "objects": .int(objects), "loadedAt": loadedAt.map { .string(WireDate.string(from: $0)) } ?? .null,
                "error": error.map(JSONValue.string) ?? .null,
            ]
        }
    }

    /// The answer to `stores`: `{"stores": [...]}`.
    public struct Stores: WireMessageBody {
        public var stores: [StoreInfo]

        public init(stores: [StoreInfo]) { self.stores = stores }
        public init(json: JSONObject) throws(WireError) { stores = try json.objects("stores", StoreInfo.init(json:)) }
        public var json: JSONObject { ["stores": .array(stores.map { .object($0.json) })] }
    }

    /// The answer to `fetch` and `template`: `{"objects": [...], "total": n}`.
    public struct Fetch: WireMessageBody {
        public var objects: [WireObject]
        /// The number of matching objects before `limit` and `offset`.
        public var total: Int

        public init(objects: [WireObject], total: Int? = nil) {
            self.objects = objects
            self.total = total ?? objects.count
        }

        public init(json: JSONObject) throws(WireError) {
            objects = try json.objects("objects", WireObject.init(json:))
            total = try json.optionalInt("total") ?? objects.count
        }

        public var json: JSONObject { ["objects": .array(objects.map { .object($0.json) }), "total": .int(total)] }
    }

    /// The answer to `count`: `{"count": n}`.
    public struct Count: WireMessageBody {
        public var count: Int

        public init(count: Int) { self.count = count }
        public init(json: JSONObject) throws(WireError) { count = try json.requiredInt("count") }
        public var json: JSONObject { ["count": .int(count)] }
    }

    /// The answer to `get` and `update`: `{"object": {...}}`.
    public struct Get: WireMessageBody {
        public var object: WireObject

        public init(object: WireObject) { self.object = object }
        public init(json: JSONObject) throws(WireError) { object = try WireObject(json: try json.requiredObject("object")) }
        public var json: JSONObject { ["object": .object(object.json)] }
    }

    /// The answer to `insert`: `{"uri": …, "store": …}`.
    public struct Insert: WireMessageBody {
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
    public struct Subscribed: WireMessageBody {
        public var isSubscribed: Bool

        public init(isSubscribed: Bool = true) { self.isSubscribed = isSubscribed }
        public init(json: JSONObject) throws(WireError) { isSubscribed = try json.requiredBool("subscribed") }
        public var json: JSONObject { ["subscribed": .bool(isSubscribed)] }
    }
}
