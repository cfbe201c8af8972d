/// The members of a JSON object, in insertion order.
///
/// Setting an existing key replaces its value in place; setting a key to `nil` removes it. Equality and hashing
/// ignore the order of the keys.
public struct JSONObject: Sendable, Hashable {
    /// The members in insertion order. Lookups scan them while the object is small (wire objects are) and use
    /// `index` once it grows past `linearLimit` members.
    private var entries: [(key: String, value: JSONValue)]
    private var index: [String: Int]?
    private static let linearLimit = 16
    /// The compact encoding (keys in insertion order), when ``withEncodingKept()`` made it; any change drops it.
    @usableFromInline private(set) var keptEncoding: [UInt8]?

    /// An empty object.
    public init() {
        entries = []
        index = nil
        keptEncoding = nil
    }

    /// An empty object with room for `capacity` members.
    public init(minimumCapacity capacity: Int) {
        self.init()
        entries.reserveCapacity(capacity)
    }

    /// An object with the given members, in order; a repeated key keeps its first position and last value.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in members { self[key] = value }
    }

    /// The number of members.
    public var count: Int { entries.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { entries.isEmpty }

    /// The keys, in insertion order.
    public var keys: [String] { entries.map(\.key) }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        guard entries.count > Self.linearLimit else {
            index = nil
            return
        }
        var built: [String: Int] = [:]
        built.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() { built[entry.key] = position }
        index = built
    }

    /// The value for `key`, or `nil`; assigning `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            keptEncoding = nil
            if let position = position(of: key) {
                if let newValue {
                    entries[position].value = newValue
                } else {
                    entries.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                entries.append((key, newValue))
                if index != nil {
                    index![key] = entries.count - 1
                } else if entries.count > Self.linearLimit {
                    rebuildIndex()
                }
            }
        }
    }

    /// Whether the object has a member named `key`.
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// The members in insertion order.
    public var members: [(key: String, value: JSONValue)] { entries }

    /// The members as a dictionary (order is lost).
    public var dictionary: [String: JSONValue] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The object with its compact encoding kept: encoding it again (without sorting keys) copies the bytes.
    ///
    /// For objects that are encoded many times, such as a server's cached replies. Changing the object drops the
    /// kept encoding.
    public func withEncodingKept() -> JSONObject {
        var copy = self
        copy.keptEncoding = JSONValue.object(self).encoded()
        return copy
    }

    /// Inserts a member during decoding; returns `false` if the key was already present.
    mutating func insertNew(_ key: String, _ value: JSONValue) -> Bool {
        let isNew = position(of: key) == nil
        self[key] = value
        return isNew
    }

    /// Objects are equal when they have the same members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(dictionary) }
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
