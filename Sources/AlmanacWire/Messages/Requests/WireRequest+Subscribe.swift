extension WireRequest {
    /// `subscribe`: events on this connection from now on. Without ``fetch``, the daemon's events (stores attached,
    /// replaced, detached or failed; objects saved); with it, only `resultsChanged` events
    /// (``WireEvent/ResultsChanged``) that keep the fetch's results up to date, the first inserting every current
    /// result.
    public struct Subscribe: WireRequestBody {
        public static let operation = WireOperation.subscribe
        /// The fetch whose results to follow (`entity`, `predicate`, `variables`, `sort`, `limit`, `offset`,
        /// `properties`, `stores`, `includeSubentities`, as `fetch` takes them; objects only).
        public var fetch: Fetch?

        public init(fetch: Fetch? = nil) { self.fetch = fetch }

        public init(json: JSONObject) throws(WireError) {
            fetch = try json.optionalObject("fetch").map { object throws(WireError) in try Fetch(json: object) }
        }

        public var json: JSONObject {
            guard let fetch else { return [:] }
            return ["fetch": .object(fetch.json)]
        }
    }
}
