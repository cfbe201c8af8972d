import Foundation
import Synchronization

/// The identity of a managed object: its entity, its store and its key in that store.
///
/// IDs are values: `Hashable` and `Sendable`, so they can cross threads and contexts where managed objects
/// cannot. A newly inserted object has a temporary ID until it is saved or given a permanent ID with
/// ``ManagedObjectContext/obtainPermanentIDs(for:)``.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The entity name and store identifier, shared by every ID of that entity in that store.
    private let names: IDNames.Pair
    /// The object's key: the primary key in its store, or a process-unique number while temporary.
    public let referenceKey: Int64

    /// The name of the object's entity.
    public var entityName: String { names.entityName }
    /// The identifier (UUID) of the object's store; `nil` while the ID is temporary.
    public var storeIdentifier: String? { names.storeIdentifier }

    /// The names this ID shares with every ID of its entity and store (`nil` when none are shared).
    var sharedPair: IDNames.Pair? {
        if names.isShared { return names }
        // Made before its names were shared (a URI parsed before its store was known): the shared pair of the same
        // names, when there is one now, so that it finds what IDs made since are registered under.
        return IDNames.shared(entityName: names.entityName, storeIdentifier: names.storeIdentifier)
    }

    /// The identity of the ID's own names: equal to a shared pair's identity exactly when the ID's names are that
    /// pair (read without retaining the names).
    var namesIdentity: ObjectIdentifier { ObjectIdentifier(names) }

    /// Whether the ID's own names are the shared pair of its entity and store (kept for the life of the process).
    var namesAreShared: Bool { names.isShared }

    /// The identity of ``sharedPair``: two IDs with the same shared names have the same identity.
    package var sharedNames: ObjectIdentifier? { sharedPair.map(ObjectIdentifier.init) }

    /// Whether two IDs name the same entity and store: by the identity of their shared names when both have them
    /// (as IDs read from one store do), which touches no string; by the names otherwise.
    package func hasSameNames(as other: ManagedObjectID) -> Bool {
        names.sameNames(as: other.names)
    }

    /// Whether the ID is temporary (the object was never saved).
    public var isTemporaryID: Bool { names.isTemporary }

    /// Creates a permanent ID; stores call this for the objects they hold.
    ///
    /// The names are kept once per process (up to a bound), so that copying, hashing and comparing IDs touches no
    /// strings; a store making an ID per row it reads should make the rest with ``withReferenceKey(_:)``.
    public init(entityName: String, storeIdentifier: String, referenceKey: Int64) {
        self.names = IDNames.reference(entityName: entityName, storeIdentifier: storeIdentifier, interning: true)
        self.referenceKey = referenceKey
    }

    /// An ID of the same entity and store with another key: for stores making an ID per row they read (cheaper
    /// than ``init(entityName:storeIdentifier:referenceKey:)``, which looks the names up).
    ///
    /// - Precondition: this ID is permanent.
    public func withReferenceKey(_ referenceKey: Int64) -> ManagedObjectID {
        precondition(!isTemporaryID, "a temporary ID has no store")
        return ManagedObjectID(names: names, referenceKey: referenceKey)
    }

    private init(names: IDNames.Pair, referenceKey: Int64) {
        self.names = names
        self.referenceKey = referenceKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(referenceKey)
        hasher.combine(names.digest)
    }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.referenceKey == rhs.referenceKey && lhs.names.sameNames(as: rhs.names)
    }

    /// A new temporary ID of the same entity as another temporary ID (without looking the entity's name up).
    static func makeTemporary(like prototype: ManagedObjectID) -> ManagedObjectID {
        ManagedObjectID(names: prototype.names, referenceKey: TemporaryKeys.next())
    }

    /// A new temporary ID for an entity.
    static func makeTemporary(entityName: String) -> ManagedObjectID {
        ManagedObjectID(names: IDNames.reference(entityName: entityName, storeIdentifier: nil, interning: true),
                        referenceKey: TemporaryKeys.next())
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
            // Names from outside are looked up, not added: a flood of made-up URIs cannot grow the shared names.
            self.init(names: IDNames.reference(entityName: entity, storeIdentifier: host.uppercased(), interning: false),
                      referenceKey: number)
        } else if key.first == "t", host.isEmpty {
            let rest = key.dropFirst()
            let prefix = TemporaryKeys.processIdentifier
            guard rest.hasPrefix(prefix), let number = Int64(rest.dropFirst(prefix.count)) else { return nil }
            self.init(names: IDNames.reference(entityName: entity, storeIdentifier: nil, interning: false),
                      referenceKey: number)
        } else {
            return nil
        }
    }

    public var description: String { uriString }

    /// Orders IDs by store, then entity, then key: the tie-break of fetches.
    public static func < (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        let same = lhs.names.sameNames(as: rhs.names)
        if !same, lhs.storeIdentifier != rhs.storeIdentifier {
            return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "")
        }
        if lhs.referenceKey != rhs.referenceKey { return lhs.referenceKey < rhs.referenceKey }
        return !same && lhs.entityName < rhs.entityName
    }
}

/// The source of temporary keys: one counter per process, with a process-unique prefix for URIs.
enum TemporaryKeys {
    static let processIdentifier = UUID().uuidString
    private static let counter = Atomic<Int64>(0)

    static func next() -> Int64 { counter.add(1, ordering: .relaxed).newValue }
}

/// The names of IDs: one pair of entity name and store identifier per process, shared by all IDs that have it.
///
/// Pairs are added by stores and new objects (bounded by `limit`) and kept for the life of the process; names that
/// come from outside (parsed URIs) are only looked up, and when absent, or beyond the bound, an ID owns a pair of its
/// own.
enum IDNames {
    final class Pair: Sendable {
        let entityName: String
        let storeIdentifier: String?
        /// A digest of both names, computed once, for hashing.
        let digest: UInt64
        /// Whether the pair is of temporary IDs (no store).
        let isTemporary: Bool
        /// Whether the pair is the table's, shared by every ID of these names (else an ID's own).
        let isShared: Bool

        init(entityName: String, storeIdentifier: String?, isShared: Bool) {
            self.entityName = entityName
            self.storeIdentifier = storeIdentifier
            self.isTemporary = storeIdentifier == nil
            self.isShared = isShared
            let entityDigest = Self.digest(entityName, 0xcbf2_9ce4_8422_2325)
            self.digest = storeIdentifier.map { Self.digest($0, entityDigest) } ?? entityDigest
        }

        /// A digest of a string's UTF-8 bytes, eight at a time, continuing from `seed`. Not a defence against
        /// chosen collisions: it only feeds `Hasher`, which is seeded per process, and equality compares names.
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

        func sameNames(as other: Pair) -> Bool {
            if self === other { return true }
            if isShared && other.isShared { return false }  // one shared pair per distinct names
            return digest == other.digest && entityName == other.entityName && storeIdentifier == other.storeIdentifier
        }
    }

    private struct Key: Hashable {
        let entityName: String
        let storeIdentifier: String?
    }

    /// How many pairs the table holds at most; beyond that, IDs own their pairs.
    static let limit = 100_000

    /// The interned pairs, and the last one handed out: code making many IDs (a store reading rows, a caller
    /// building records) asks for the same names over and over, and comparing two strings that share their storage
    /// is cheaper than hashing both. Pairs are never removed, so the last one is always among the pairs.
    private struct Table {
        var pairs: [Key: Pair] = [:]
        var last: Pair?

        mutating func find(_ entityName: String, _ storeIdentifier: String?) -> Pair? {
            if let last, last.entityName == entityName, last.storeIdentifier == storeIdentifier { return last }
            guard let pair = pairs[Key(entityName: entityName, storeIdentifier: storeIdentifier)] else { return nil }
            last = pair
            return pair
        }
    }

    private static let table = LockedValue(Table())

    /// The shared pair of these names, if there is one.
    static func shared(entityName: String, storeIdentifier: String?) -> Pair? {
        table.withLock { table in table.find(entityName, storeIdentifier) }
    }

    static func reference(entityName: String, storeIdentifier: String?, interning: Bool) -> Pair {
        table.withLock { table in
            if let pair = table.find(entityName, storeIdentifier) { return pair }
            guard interning, table.pairs.count < limit else {
                return Pair(entityName: entityName, storeIdentifier: storeIdentifier, isShared: false)
            }
            let pair = Pair(entityName: entityName, storeIdentifier: storeIdentifier, isShared: true)
            table.pairs[Key(entityName: entityName, storeIdentifier: storeIdentifier)] = pair
            table.last = pair
            return pair
        }
    }
}
