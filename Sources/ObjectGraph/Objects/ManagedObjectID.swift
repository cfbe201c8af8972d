import Foundation
import Synchronization

/// The identity of a managed object: its entity, its store and its key in that store.
///
/// IDs are values: `Hashable` and `Sendable`, so they can cross threads and contexts where managed objects
/// cannot. A newly inserted object has a temporary ID until it is saved or given a permanent ID with
/// ``ManagedObjectContext/obtainPermanentIDs(for:)``.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The name of the object's entity.
    public let entityName: String
    /// The identifier (UUID) of the object's store; `nil` while the ID is temporary.
    public let storeIdentifier: String?
    /// The object's key: the primary key in its store, or a process-unique number while temporary.
    public let referenceKey: Int64
    /// A digest of the entity and store names, computed once: IDs are hashed and compared far more often than made
    /// (every registered object, every merged result), and hashing two strings each time dominated those lookups.
    /// Temporary IDs have unique keys and need none.
    private let namesDigest: UInt64

    /// Whether the ID is temporary (the object was never saved).
    public var isTemporaryID: Bool { storeIdentifier == nil }

    /// Creates a permanent ID; stores call this for the objects they hold.
    public init(entityName: String, storeIdentifier: String, referenceKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.referenceKey = referenceKey
        self.namesDigest = Self.digest(storeIdentifier, Self.digest(entityName, 0xcbf2_9ce4_8422_2325))
    }

    /// An ID of the same entity and store with another key: for stores making an ID per row they read (cheaper
    /// than ``init(entityName:storeIdentifier:referenceKey:)``, which digests the names).
    ///
    /// - Precondition: this ID is permanent.
    public func withReferenceKey(_ referenceKey: Int64) -> ManagedObjectID {
        precondition(storeIdentifier != nil, "a temporary ID has no store")
        return ManagedObjectID(self, referenceKey: referenceKey)
    }

    private init(_ other: ManagedObjectID, referenceKey: Int64) {
        self.entityName = other.entityName
        self.storeIdentifier = other.storeIdentifier
        self.referenceKey = referenceKey
        self.namesDigest = other.namesDigest
    }

    private init(temporaryFor entityName: String, key: Int64) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.referenceKey = key
        self.namesDigest = 0
    }

    /// A digest of a string's UTF-8 bytes, eight at a time, continuing from `seed`: stores make an ID per row they
    /// read, so this must stay far cheaper than hashing the strings. Not a defence against chosen collisions: the
    /// digest only feeds `Hasher`, which is seeded per process, and equality still compares the names.
    private static func digest(_ text: String, _ seed: UInt64) -> UInt64 {
        func mix(_ value: UInt64, _ word: UInt64) -> UInt64 {
            let product = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
            return product ^ (product >> 29)
        }
        var text = text
        return text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var value = mix(seed, UInt64(raw.count))
            var offset = 0
            while offset + 8 <= raw.count {
                value = mix(value, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < raw.count {
                tail = tail << 8 | UInt64(raw[offset])
                offset += 1
            }
            return mix(value, tail)
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(referenceKey)
        hasher.combine(namesDigest)
    }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.referenceKey == rhs.referenceKey && lhs.namesDigest == rhs.namesDigest
            && lhs.storeIdentifier == rhs.storeIdentifier && lhs.entityName == rhs.entityName
    }

    /// A new temporary ID for an entity.
    static func makeTemporary(entityName: String) -> ManagedObjectID {
        ManagedObjectID(temporaryFor: entityName, key: TemporaryKeys.next())
    }

    /// The ID as Core Data writes it: `x-coredata://STORE-UUID/Entity/pN`, or `x-coredata:///Entity/tUUIDN` while
    /// temporary.
    public func uriRepresentation() -> URL {
        URL(string: uriString)!
    }

    /// The text of ``uriRepresentation()``, without making a `URL` (for encoding many IDs).
    public var uriString: String {
        // Entity names are nearly always plain identifiers; only others go through percent-encoding.
        let isPlain = entityName.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
        }
        let entity = isPlain
            ? entityName : entityName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? entityName
        if let storeIdentifier {
            return "x-coredata://\(storeIdentifier)/\(entity)/p\(referenceKey)"
        }
        return "x-coredata:///\(entity)/t\(TemporaryKeys.processIdentifier)\(referenceKey)"
    }

    /// Parses a URI made by ``uriRepresentation()``; `nil` when it is not one.
    public init?(uriRepresentation uri: URL) {
        guard uri.scheme == "x-coredata" else { return nil }
        let components = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard components.count == 2, let key = components.last, key.count >= 2 else { return nil }
        let entity = String(components[0]).removingPercentEncoding ?? String(components[0])
        let host = uri.host ?? ""
        if key.first == "p", !host.isEmpty, let number = Int64(key.dropFirst()) {
            self.init(entityName: entity, storeIdentifier: host.uppercased(), referenceKey: number)
        } else if key.first == "t", host.isEmpty {
            let rest = key.dropFirst()
            let prefix = TemporaryKeys.processIdentifier
            guard rest.hasPrefix(prefix), let number = Int64(rest.dropFirst(prefix.count)) else { return nil }
            self.init(temporaryFor: entity, key: number)
        } else {
            return nil
        }
    }

    public var description: String { uriString }

    /// Orders IDs by store, then entity, then key: the tie-break of fetches.
    public static func < (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier { return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "") }
        if lhs.referenceKey != rhs.referenceKey { return lhs.referenceKey < rhs.referenceKey }
        return lhs.entityName < rhs.entityName
    }
}

/// The source of temporary keys: one counter per process, with a process-unique prefix for URIs.
enum TemporaryKeys {
    static let processIdentifier = UUID().uuidString
    private static let counter = Atomic<Int64>(0)

    static func next() -> Int64 { counter.add(1, ordering: .relaxed).newValue }
}
