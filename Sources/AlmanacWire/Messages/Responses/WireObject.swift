/// An object as sent on the wire: `{"uri": …, "entity": …, "store": …, "values": {…}}`.
///
/// `values` holds attributes by name (dates as ISO 8601 strings), to-one relationships as the related object's
/// URI, and requested key paths such as `room.name` under their full path.
public struct WireObject: WireMessageBody {
    /// The object's URI.
    public var uri: String
    /// The entity name.
    public var entity: String
    /// The id of the store holding the object.
    public var store: String
    /// The object's values.
    public var values: JSONObject

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
}
