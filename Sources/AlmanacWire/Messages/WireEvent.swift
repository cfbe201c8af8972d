/// An event line sent on a subscribed connection: `{"event": "storeAttached", …fields}`.
public struct WireEvent: WireMessageBody {
    /// The kind of event.
    public struct Kind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A store was added (fields: `store`, a ``WireResponse/StoreInfo``).
        public static let storeAttached = Kind(rawValue: "storeAttached")
        /// A store's file changed and was loaded again (fields: `store`, `changes` counts).
        public static let storeReplaced = Kind(rawValue: "storeReplaced")
        /// A store was removed (fields: `store` id, `file`).
        public static let storeDetached = Kind(rawValue: "storeDetached")
        /// A store's file could not be loaded (fields: `file`, `error`).
        public static let storeFailed = Kind(rawValue: "storeFailed")
        /// Objects were inserted, updated or deleted (fields: `inserted`, `updated`, `deleted` URI arrays).
        public static let objectsChanged = Kind(rawValue: "objectsChanged")
    }

    /// The kind of event.
    public var kind: Kind
    /// The event's other fields.
    public var fields: JSONObject

    public init(kind: Kind, fields: JSONObject = [:]) {
        self.kind = kind
        self.fields = fields
        self.fields["event"] = nil
    }

    public init(json: JSONObject) throws(WireError) {
        self.init(kind: Kind(rawValue: try json.requiredString("event")), fields: json)
    }

    public var json: JSONObject {
        var object: JSONObject = ["event": .string(kind.rawValue)]
        for (key, value) in fields { object[key] = value }
        return object
    }

    /// The event as one line of JSON ending in `\n`.
    public func encodedLine() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        encodeLine(into: &bytes)
        return bytes
    }

    /// Writes the event as one line of JSON ending in `\n`: `{"event":"…",…fields}`.
    @inlinable
    public func encodeLine<Output: JSONOutput>(into output: inout Output) {
        output.writeJSONText("{\"event\":")
        JSONValue.encodeString(kind.rawValue, into: &output)
        for (key, value) in fields.members where key != "event" { output.writeJSONMember(key, value) }
        output.writeJSONText("}\n")
    }
}
