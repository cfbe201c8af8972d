/// An object as sent on the wire: `{"uri": …, "entity": …, "store": …, "values": {…}}`.
///
/// `values` holds attributes by name (dates as ISO 8601 strings), to-one relationships as the related object's
/// URI, and requested key paths such as `room.name` under their full path.
public struct WireObject: WireMessageBody {
    /// The object's URI.
    public var uri: String { didSet { keptEncoding = nil } }
    /// The entity name.
    public var entity: String { didSet { keptEncoding = nil } }
    /// The id of the store holding the object.
    public var store: String { didSet { keptEncoding = nil } }
    /// The object's values.
    public var values: JSONObject { didSet { keptEncoding = nil } }
    /// The compact encoding, when ``withEncodingKept()`` made it; any change drops it.
    @usableFromInline private(set) var keptEncoding: [UInt8]?

    public init(uri: String, entity: String, store: String, values: JSONObject) {
        self.uri = uri
        self.entity = entity
        self.store = store
        self.values = values
    }

    public init(json: JSONObject) throws(WireError) {
        uri = try json.requiredString("uri")
        entity = try json.requiredString("entity")
        store = try json.optionalString("store") ?? ""
        values = try json.optionalObject("values") ?? [:]
    }

    public var json: JSONObject {
        ["uri": .string(uri), "entity": .string(entity), "store": .string(store), "values": .object(values)]
    }

    /// The object with its encoding kept: encoding it again copies the bytes. For objects encoded into many
    /// replies, such as the daemon's cached objects.
    public func withEncodingKept() -> WireObject {
        var copy = self
        var bytes: [UInt8] = []
        encode(into: &bytes)
        copy.keptEncoding = bytes
        return copy
    }

    /// Writes the object as a JSON object.
    @inlinable
    public func encode<Output: JSONOutput>(into output: inout Output) {
        if let keptEncoding {
            output.writeJSONBytes(keptEncoding)
            return
        }
        output.writeJSONText("{\"uri\":")
        JSONValue.encodeString(uri, into: &output)
        output.writeJSONText(",\"entity\":")
        JSONValue.encodeString(entity, into: &output)
        output.writeJSONText(",\"store\":")
        JSONValue.encodeString(store, into: &output)
        output.writeJSONText(",\"values\":")
        JSONValue.object(values).encode(into: &output)
        output.writeJSONByte(UInt8(ascii: "}"))
    }

    /// Objects are equal when their fields are (whether an encoding is kept does not matter).
    public static func == (lhs: WireObject, rhs: WireObject) -> Bool {
        lhs.uri == rhs.uri && lhs.entity == rhs.entity && lhs.store == rhs.store && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uri)
        hasher.combine(entity)
        hasher.combine(store)
        hasher.combine(values)
    }
}
