/// The members of a JSON object, in insertion order.
///
/// Setting an existing key replaces its value in place; setting a key to `nil` removes it. Equality and hashing
/// ignore the order of the keys.
public struct JSONObject: Sendable, Hashable {
    private var storage: [String: JSONValue]
    /// The keys, in insertion order.
    public private(set) var keys: [String]

    /// An empty object.
    public init() {
        storage = [:]
        keys = []
    }

    /// An object with the given members, in order; a repeated key keeps its first position and last value.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in members { self[key] = value }
    }

    /// The number of members.
    public var count: Int { keys.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The value for `key`, or `nil`; assigning `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Whether the object has a member named `key`.
    public func contains(_ key: String) -> Bool { storage[key] != nil }

    /// The members in insertion order.
    public var members: [(key: String, value: JSONValue)] {
        keys.map { ($0, storage[$0]!) }
    }

    /// The members as a dictionary (order is lost).
    public var dictionary: [String: JSONValue] { storage }

    /// Inserts a member during decoding; returns `false` if the key was already present.
    mutating func insertNew(_ key: String, _ value: JSONValue) -> Bool {
        if storage.updateValue(value, forKey: key) != nil { return false }
        keys.append(key)
        return true
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.storage == rhs.storage }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

extension JSONObject: Sequence {
    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        members.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
