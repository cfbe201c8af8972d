/// An object as sent on the wire: `{"uri": …, "entity": …, "store": …, "values": {…}}`.
///
/// `values` holds attributes by name (dates as ISO 8601 strings), to-one relationships as the related object's
/// URI, and requested key paths such as `room.name` under their full path.
public struct WireObject: WireMessageBody {
    /// The fields, in one immutable box: copying an object (into a reply, out of the daemon's cache of encoded
    /// objects) retains one reference instead of one per field. Each retain of a cached object's field touched memory
    /// of its own: with the fields apart, a 50-object reply from the daemon's cache retained and released five
    /// references per object, most of them cache misses (perf: a fifth of a reply-cache miss's work). Setting a
    /// field makes a new box.
    @usableFromInline final class Fields: Sendable {
        @usableFromInline let uri: String
        @usableFromInline let entity: String
        @usableFromInline let store: String
        @usableFromInline let values: JSONObject
        @usableFromInline let keptEncoding: [UInt8]?

        init(uri: String, entity: String, store: String, values: JSONObject, keptEncoding: [UInt8]?) {
            self.uri = uri
            self.entity = entity
            self.store = store
            self.values = values
            self.keptEncoding = keptEncoding
        }

        /// These fields with the ones given replaced, and no kept encoding (or `keptEncoding`).
        func replacing(
            uri: String? = nil, entity: String? = nil, store: String? = nil, values: JSONObject? = nil,
            keptEncoding: [UInt8]? = nil
        ) -> Fields {
            Fields(
                uri: uri ?? self.uri, entity: entity ?? self.entity, store: store ?? self.store,
                values: values ?? self.values, keptEncoding: keptEncoding)
        }
    }

    @usableFromInline private(set) var fields: Fields

    /// The object's URI.
    public var uri: String {
        get { fields.uri }
        set { fields = fields.replacing(uri: newValue) }
    }
    /// The entity name.
    public var entity: String {
        get { fields.entity }
        set { fields = fields.replacing(entity: newValue) }
    }
    /// The id of the store holding the object.
    public var store: String {
        get { fields.store }
        set { fields = fields.replacing(store: newValue) }
    }
    /// The object's values.
    public var values: JSONObject {
        get { fields.values }
        set { fields = fields.replacing(values: newValue) }
    }
    /// The compact encoding, when ``withEncodingKept()`` made it; any change drops it.
    @inlinable var keptEncoding: [UInt8]? { fields.keptEncoding }

    public init(uri: String, entity: String, store: String, values: JSONObject) {
        fields = Fields(uri: uri, entity: entity, store: store, values: values, keptEncoding: nil)
    }

    public init(json: JSONObject) throws(WireError) {
        self.init(
            uri: try json.requiredString("uri"), entity: try json.requiredString("entity"),
            store: try json.optionalString("store") ?? "", values: try json.optionalObject("values") ?? [:])
    }

    public var json: JSONObject {
        ["uri": .string(uri), "entity": .string(entity), "store": .string(store), "values": .object(values)]
    }

    /// The object with its encoding kept: encoding it again copies the bytes. For objects encoded into many
    /// replies, such as the daemon's cached objects.
    public func withEncodingKept() -> WireObject {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        var copy = self
        copy.fields = fields.replacing(keptEncoding: bytes)
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
