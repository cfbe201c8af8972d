extension WireResponse {
    /// The answer to `stats`.
    ///
    /// `{"requests": n, "errors": n, "latency": {"p50": ms, "p90": ms, "p99": ms, "max": ms}, "stores": n,
    /// "objects": n, "residentMemory": bytes, "subscribers": n, "uptime": seconds}`.
    public struct Stats: WireMessageBody, WireReplyBody {
        /// Request latency percentiles and maximum, in milliseconds.
        public struct Latency: Sendable, Hashable {
            public var p50: Double
            public var p90: Double
            public var p99: Double
            public var max: Double

            public init(p50: Double = 0, p90: Double = 0, p99: Double = 0, max: Double = 0) {
                self.p50 = p50
                self.p90 = p90
                self.p99 = p99
                self.max = max
            }
        }

        /// Requests answered since start.
        public var requests: Int
        /// Requests answered with an error since start.
        public var errors: Int
        /// Over the last 10,000 requests.
        public var latency: Latency
        /// Attached stores.
        public var stores: Int
        /// Objects in all stores.
        public var objects: Int
        /// Resident memory of the daemon, in bytes.
        public var residentMemory: Int
        /// Connections subscribed to events.
        public var subscribers: Int
        /// Seconds since the daemon started.
        public var uptime: Double

        public init(
            requests: Int,
            errors: Int,
            latency: Latency,
            stores: Int,
            objects: Int,
            residentMemory: Int,
            subscribers: Int = 0,
            uptime: Double
        ) {
            self.requests = requests
            self.errors = errors
            self.latency = latency
            self.stores = stores
            self.objects = objects
            self.residentMemory = residentMemory
            self.subscribers = subscribers
            self.uptime = uptime
        }

        /// Reads the body.
        ///
        /// - Throws: `bad_request` naming the first field that is missing or not a number.
        public init(json: JSONObject) throws(WireError) {
            requests = try json.requiredInt("requests")
            errors = try json.requiredInt("errors")
            let latency = try json.requiredObject("latency")
            self.latency = Latency(
                p50: try latency.requiredDouble("p50"),
                p90: try latency.requiredDouble("p90"),
                p99: try latency.requiredDouble("p99"),
                max: try latency.requiredDouble("max")
            )
            stores = try json.requiredInt("stores")
            objects = try json.requiredInt("objects")
            residentMemory = try json.requiredInt("residentMemory")
            subscribers = try json.optionalInt("subscribers") ?? 0
            uptime = try json.requiredDouble("uptime")
        }

        public var json: JSONObject {
            [
                "requests": .int(requests), "errors": .int(errors),
                "latency": [
                    "p50": .double(latency.p50), "p90": .double(latency.p90), "p99": .double(latency.p99),
                    "max": .double(latency.max),
                ],
                "stores": .int(stores), "objects": .int(objects), "residentMemory": .int(residentMemory),
                "subscribers": .int(subscribers), "uptime": .double(uptime),
            ]
        }
    }
}
