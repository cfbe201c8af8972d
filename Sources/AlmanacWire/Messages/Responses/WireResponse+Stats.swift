extension WireResponse {
    /// The answer to `stats`.
    ///
    /// `{"requests": n, "errors": n, "latency": {"p50": ms, "p90": ms, "p99": ms, "max": ms}, "stores": n,
    /// "objects": n, "residentMemory": bytes, "uptime": seconds}`.
    public struct Stats: WireMessageBody {
        /// Request latency percentiles, in milliseconds.
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
        public var latency: Latency
        /// Attached stores.
        public var stores: Int
        /// Objects in all stores.
        public var objects: Int
        /// Resident memory of the daemon, in bytes.
        public var residentMemory: Int
        /// Seconds since the daemon started.
        public var uptime: Double?

        public init(
            requests: Int,
            errors: Int,
            latency: Latency,
            stores: Int,
            objects: Int,
            residentMemory: Int,
            uptime: Double? = nil
        ) {
            self.requests = requests
            self.errors = errors
            self.latency = latency
            self.stores = stores
            self.objects = objects
            self.residentMemory = residentMemory
            self.uptime = uptime
        }

        public init(json: JSONObject) throws(WireError) {
            requests = try json.optionalInt("requests") ?? 0
            errors = try json.optionalInt("errors") ?? 0
            let latency = try json.optionalObject("latency") ?? [:]
            self.latency = Latency(
                p50: latency["p50"]?.doubleValue ?? 0,
                p90: latency["p90"]?.doubleValue ?? 0,
                p99: latency["p99"]?.doubleValue ?? 0,
                max: latency["max"]?.doubleValue ?? 0
            )
            stores = try json.optionalInt("stores") ?? 0
            objects = try json.optionalInt("objects") ?? 0
            residentMemory = try json.optionalInt("residentMemory") ?? 0
            uptime = json["uptime"]?.doubleValue
        }

        public var json: JSONObject {
            var object: JSONObject = [
                "requests": .int(requests), "errors": .int(errors),
                "latency": [
                    "p50": .double(latency.p50), "p90": .double(latency.p90), "p99": .double(latency.p99),
                    "max": .double(latency.max),
                ],
                "stores": .int(stores), "objects": .int(objects), "residentMemory": .int(residentMemory),
            ]
            object.set("uptime", uptime.map(JSONValue.double))
            return object
        }
    }
}
