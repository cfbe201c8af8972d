extension WireRequest {
    /// `hello`: introduces the client. Answered with ``WireResponse/Hello``.
    public struct Hello: WireRequestBody {
        public static let operation = WireOperation.hello
        /// The client's name and version, for the daemon's log (optional).
        public var client: String?
        /// The protocol version the client speaks (optional, 1).
        public var protocolVersion: Int?

        public init(client: String? = nil, protocolVersion: Int? = WireProtocol.version) {
            self.client = client
            self.protocolVersion = protocolVersion
        }

        public init(json: JSONObject) throws(WireError) {
            client = try json.optionalString("client")
            protocolVersion = try json.optionalInt("protocol")
        }

        public var json: JSONObject {
            var object = JSONObject()
            object.set("client", client.map(JSONValue.string))
            object.set("protocol", protocolVersion.map { JSONValue.int($0) })
            return object
        }
    }
}
