import AlmanacWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConnectionLimits {
    /// The keys of `almanacd.json` that set connection limits.
    static let configurationKeys = [
        "maxConnections", "maxConnectionsPerUser", "maxConnectionsByUser", "requestLineTimeout", "idleTimeout",
    ]

    /// The limits `almanacd.json` sets, the defaults for keys it leaves out:
    /// `"maxConnections": 8192, "maxConnectionsPerUser": 1024, "maxConnectionsByUser": {"1000": 4096, "backup": 16},
    /// "requestLineTimeout": 10, "idleTimeout": 300`. Users are uids or user names; timeouts are seconds, 0 turns
    /// one off.
    ///
    /// - Throws: ``ConfigurationError`` naming the key whose value cannot be used.
    init(configuration object: JSONObject, file: String) throws(ConfigurationError) {
        self.init()
        func count(_ key: String) throws(ConfigurationError) -> Int? {
            guard let value = object[key] else { return nil }
            guard let number = value.intValue, number > 0, number <= Int64(Int32.max) else {
                throw ConfigurationError(message: "\"\(key)\" in \(file) must be a positive whole number, not \(value)")
            }
            return Int(number)
        }
        func seconds(_ key: String) throws(ConfigurationError) -> Duration?? {
            guard let value = object[key] else { return nil }
            guard let number = value.doubleValue, number >= 0, number <= 86_400 * 365 else {
                throw ConfigurationError(
                    message: "\"\(key)\" in \(file) must be a number of seconds (0 turns it off), not \(value)")
            }
            return .some(number == 0 ? nil : .milliseconds(Int64((number * 1000).rounded())))
        }
        if let value = try count("maxConnections") { maxConnections = value }
        if let value = try count("maxConnectionsPerUser") { maxConnectionsPerUser = value }
        if let value = try seconds("requestLineTimeout") { requestLineTimeout = value }
        if let value = try seconds("idleTimeout") { idleTimeout = value }
        guard let users = object["maxConnectionsByUser"] else { return }
        guard let members = users.objectValue else {
            throw ConfigurationError(
                message: "\"maxConnectionsByUser\" in \(file) must map uids or user names to connection counts")
        }
        for (user, value) in members {
            guard let uid = Self.uid(of: user) else {
                throw ConfigurationError(
                    message: "\"maxConnectionsByUser\" in \(file) names \"\(user)\", which is neither a uid nor a user")
            }
            guard let number = value.intValue, number >= 0, number <= Int64(Int32.max) else {
                throw ConfigurationError(
                    message: "\"maxConnectionsByUser\".\"\(user)\" in \(file) must be a whole number, not \(value)")
            }
            maxConnectionsByUser[uid] = Int(number)
        }
    }

    /// A uid written as a number, or a user name looked up in the user database.
    static func uid(of user: String) -> uid_t? {
        if let number = uid_t(user) { return number }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var scratch = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(user, &entry, &scratch, scratch.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }
}
