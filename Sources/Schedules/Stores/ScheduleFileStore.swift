import Foundation
import ObjectGraph

extension PersistentStoreType {
    /// A frab/Pentabarf `schedule.xml` file, read-only.
    public static let frabXML = PersistentStoreType(rawValue: "FrabXML")
    /// A frab JSON v1 file, read-only.
    public static let frabJSON = PersistentStoreType(rawValue: "FrabJSON")
    /// An iCalendar (RFC 5545) file, read-only.
    public static let iCalendar = PersistentStoreType(rawValue: "ICalendar")
}

extension PersistentStoreOptionKey {
    /// ``ScheduleReaderConfiguration``: the reader settings for this one file (its configured zone, acronym and day
    /// change); default ``ScheduleFileStore/configuration``.
    public static let scheduleReaderConfiguration: PersistentStoreOptionKey = "AlmanacScheduleReaderConfiguration"
}

/// A read-only atomic store over a foreign schedule file: the file is read with the matching reader and its
/// conference, days, rooms, tracks, persons and sessions become objects of the schedule model.
///
/// The store's UUID is derived from the file's path, so URIs of its objects stay the same when the file is replaced
/// by a newer release. Saving is refused: add these stores with the `.readOnly` option.
open class ScheduleFileStore: AtomicStore, ScheduleDocumentProviding, @unchecked Sendable {  // see PersistentStore
    /// The document read from the file (kept for computing what changed between releases).
    public private(set) var document: ScheduleDocument?

    /// The reader settings used for every file added without the `scheduleReaderConfiguration` option.
    /// Safe to read and set from any thread; a store reads it when it loads its file.
    public static var configuration: ScheduleReaderConfiguration {
        get { sharedConfiguration.withLock { $0 } }
        set { sharedConfiguration.withLock { $0 = newValue } }
    }
    private static let sharedConfiguration = LockedValue(ScheduleReaderConfiguration.default)

    /// The store classes of the three foreign schedule formats, one per format.
    static let storeClasses: [ScheduleFileStore.Type] = [FrabXMLStore.self, FrabJSONStore.self, ICalendarStore.self]

    /// Registers the three foreign schedule types with the coordinator (idempotent).
    public static func registerTypes() {
        for storeClass in storeClasses {
            PersistentStoreCoordinator.registerStoreClass(storeClass, forStoreType: storeClass.storeType)
        }
    }

    /// The format this store class reads.
    open class var format: ScheduleFormat { .frabXML }

    /// Whether the bytes start like a file of the class's ``format`` (see ``ScheduleFormat/sniff(_:)`` for what
    /// each format looks like).
    public override class func canOpen(prefix: Data) -> Bool {
        format.isStart(of: prefix)
    }

    public override func loadMetadata() throws {
        guard let url else {
            throw StoreError(code: .io, message: "A schedule file store needs a file URL.")
        }
        let data: Data
        do {
            data = try Data(fileContentsOf: url, options: .mappedIfSafe)
        } catch {
            throw StoreError(code: .io, message: "Could not read \(url.path).", context: ErrorContext(storeURL: url),
                             cause: error)
        }
        guard Self.canOpen(prefix: data) else {
            throw StoreError(code: .foreignFile, message: "\(url.lastPathComponent) is not a \(Self.format) file.",
                             context: ErrorContext(storeURL: url))
        }
        do {
            let configuration = options[.scheduleReaderConfiguration] as? ScheduleReaderConfiguration
                ?? Self.configuration
            document = try ScheduleReader.read(data, source: url.lastPathComponent, configuration: configuration)
        } catch {
            let line = error.line.map { " at line \($0)" } ?? ""
            throw StoreError(code: .corruptFile, message: "\(url.lastPathComponent) could not be read\(line): "
                                + error.message, context: ErrorContext(storeURL: url), cause: error)
        }
        var metadata = freshMetadata()
        metadata.storeUUID = Self.stableUUID(for: url)
        self.metadata = metadata
    }

    public override func load() throws {
        guard let document else { return }
        addCacheNodes(ScheduleRecords(document: document, store: self).records())
    }

    public override func prepareWrite(records: [StoreRecord], metadata: StoreMetadata) throws -> any PreparedSave {
        throw unsupported("saving (schedule files of foreign formats are read-only)")
    }

    /// A UUID derived from a file path: the same path always gives the same store identifier.
    static func stableUUID(for url: URL) -> String {
        var hasher = StableHasher()
        hasher.combine(url.standardizedFileURL.path)
        return hasher.uuidString
    }
}

/// frab/Pentabarf XML files.
public final class FrabXMLStore: ScheduleFileStore, @unchecked Sendable {  // see PersistentStore
    public override class var storeType: PersistentStoreType { .frabXML }
    public override class var format: ScheduleFormat { .frabXML }
}

/// frab JSON files.
public final class FrabJSONStore: ScheduleFileStore, @unchecked Sendable {  // see PersistentStore
    public override class var storeType: PersistentStoreType { .frabJSON }
    public override class var format: ScheduleFormat { .frabJSON }
}

/// iCalendar files.
public final class ICalendarStore: ScheduleFileStore, @unchecked Sendable {  // see PersistentStore
    public override class var storeType: PersistentStoreType { .iCalendar }
    public override class var format: ScheduleFormat { .iCalendar }
}

/// Two rounds of FNV-1a over a string, shaped as a UUID (stable across runs, unlike `Hasher`).
struct StableHasher {
    private var first: UInt64 = 0xcbf2_9ce4_8422_2325
    private var second: UInt64 = 0x8422_2325_cbf2_9ce4

    mutating func combine(_ text: String) {
        for byte in text.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second ^ UInt64(byte) ^ 0x5A) &* 0x0000_0100_0000_01B3
        }
    }

    var uuidString: String {
        var bytes = withUnsafeBytes(of: first.bigEndian) { Array($0) } + withUnsafeBytes(of: second.bigEndian) { Array($0) }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        return uuid.uuidString
    }
}
