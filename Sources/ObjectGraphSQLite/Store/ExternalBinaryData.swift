import Foundation
import Glibc
import ObjectGraph

/// Binary data of attributes that allow external storage
/// (``ObjectGraph/AttributeDescription/allowsExternalBinaryDataStorage``), kept as Core Data's SQLite store keeps
/// it, so that either reads the other's files.
///
/// The column holds a marker byte, then either the bytes themselves (`0x01`) or the name of a file (`0x02`, the
/// name, a NUL byte) in `.<store name>_SUPPORT/_EXTERNAL_DATA` beside the store file (`.Schedule_SUPPORT` for
/// `Schedule.sqlite`). Values of ``threshold`` bytes or more go to a file; smaller ones stay in the row. Core Data
/// names its files with a random UUID; this store names a file after a 128-bit hash of its bytes, written as a
/// UUID, so that saving an object again with the same data (any attribute changed) writes no new file, and equal
/// values share one. A file with the same name but other bytes (a hash collision) is never reused: the value gets a
/// random name instead.
///
/// A file is written before the row that names it (to a temporary name, flushed to disk, then renamed), so that a
/// committed row never names a missing or partial file. Files no row names any more are deleted by
/// ``SQLiteStore``'s sweeps (after saves that updated or deleted such objects, and when the store opens), once
/// they are older than ``sweepGracePeriod``: a file that young may belong to another process's save in progress.
final class ExternalBinaryData {
    /// The marker of bytes kept in the row.
    static let inlineMarker: UInt8 = 1
    /// The marker of a file name.
    static let externalMarker: UInt8 = 2
    /// The marker of Core Data's file-backed futures (`NSFileBackedFuture`), which this store does not read.
    static let fileBackedFutureMarker: UInt8 = 3
    /// The size from which a value goes to a file. Core Data does not document its own; it has been seen between
    /// 100 and 128 KB, and either reads the other's choice.
    static let threshold = 128 * 1024
    /// How old an unnamed file must be before a sweep deletes it.
    static let sweepGracePeriod: TimeInterval = 600

    /// The folder of the files; `nil` for a database without a file (every value stays in its row).
    let folder: String?
    /// Whether columns hold Core Data's form. False for files this store wrote before it did (their columns hold the
    /// plain bytes); ``SQLiteStore`` decides from the store's metadata.
    var usesMarkers = true

    init(databasePath: String) {
        folder = Self.folder(forStoreAt: databasePath)
    }

    /// The `_EXTERNAL_DATA` folder of a store file.
    static func folder(forStoreAt path: String) -> String? {
        PersistentStoreCoordinator.supportFolder(forStoreAt: path).map { $0 + "/_EXTERNAL_DATA" }
    }

    // MARK: Reading

    /// The value a column's bytes stand for: the bytes after an inline marker, or the named file's contents; `nil`
    /// when the file is missing or unreadable, or for a file-backed future. Bytes without a marker Core Data writes
    /// are returned as they are.
    func value(stored bytes: UnsafeRawBufferPointer) -> Data? {
        guard usesMarkers, let marker = bytes.first else { return Data(bytes) }
        switch marker {
        case Self.inlineMarker:
            return Data(bytes[1...])
        case Self.externalMarker:
            guard let name = Self.fileName(in: bytes), let folder else { return nil }
            return try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name), options: .mappedIfSafe)
        case Self.fileBackedFutureMarker:
            return nil
        default:
            return Data(bytes)
        }
    }

    /// The file name a column's bytes hold after an external marker (up to a NUL byte, if any); `nil` when they
    /// hold none, or a name that is not a plain file name (a path would leave the folder).
    static func fileName(in bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count > 1, bytes[0] == externalMarker else { return nil }
        let rest = bytes[1...]
        let end = rest.firstIndex(of: 0) ?? rest.endIndex
        let name = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\u{FFFD}") else {
            return nil
        }
        return name
    }

    // MARK: Writing

    /// The bytes to store for a value: the value after an inline marker, or, from ``threshold`` bytes, the name of
    /// a file written now (or already holding these bytes).
    /// - Throws: ``ObjectGraph/StoreError/Code/io`` when the file cannot be written (a full disk, say); no file of
    ///   that name is left behind.
    func storedValue(of data: Data) throws -> Data {
        guard usesMarkers else { return data }
        guard data.count >= Self.threshold, let folder else {
            var stored = Data(capacity: data.count + 1)
            stored.append(Self.inlineMarker)
            stored.append(data)
            return stored
        }
        var name = Self.contentName(of: data)
        let path = folder + "/" + name
        // A file already holding the bytes is reused, its time set to now: a file no row names may be that old
        // one, and a sweep spares files younger than its grace period until this save's row names it.
        if !Self.file(atPath: path, holds: data) || utimensat(AT_FDCWD, path, nil, 0) != 0 {
            if FileManager.default.fileExists(atPath: path) { name = UUID().uuidString }
            try write(data, named: name, in: folder)
        }
        var stored = Data(capacity: name.utf8.count + 2)
        stored.append(Self.externalMarker)
        stored.append(contentsOf: Array(name.utf8))
        stored.append(0)
        return stored
    }

    /// Writes a file under a temporary name, flushes it, renames it into place and flushes the folder.
    private func write(_ data: Data, named name: String, in folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw Self.ioError("Could not create the folder \(folder) for external binary data: \(error)")
        }
        let path = folder + "/" + name
        let temporary = folder + "/.\(name).\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Self.ioError("Could not create \(temporary): \(String(cString: strerror(errno)))")
        }
        var written = 0
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                written += count
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw Self.ioError("Could not write \(path): \(String(cString: strerror(failure)))")
        }
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// Whether a file exists with exactly these bytes.
    private static func file(atPath path: String, holds data: Data) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, Int(info.st_size) == data.count else { return false }
        guard let existing = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe) else {
            return false
        }
        return existing == data
    }

    /// A name for a file of these bytes: a 128-bit hash of them (two FNV-1a passes with different seeds, mixed),
    /// written as a UUID.
    static func contentName(of data: Data) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4 ^ UInt64(data.count)
        let prime: UInt64 = 0x0000_0100_0000_01b3
        data.withUnsafeBytes { buffer in
            for byte in buffer {
                first = (first ^ UInt64(byte)) &* prime
                second = (second &+ UInt64(byte)) &* 0x9e37_79b9_7f4a_7c15
                second ^= second >> 29
            }
        }
        var bytes: [UInt8] = []
        for word in [first, second] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString
    }

    // MARK: Sweeping

    /// Deletes the files of the folder that `referenced` does not name and that were last changed more than
    /// ``sweepGracePeriod`` ago (left-over temporary files too); returns how many it deleted. Best effort: a file
    /// that cannot be deleted stays.
    @discardableResult
    func sweep(keeping referenced: Set<String>, now: Date = Date()) -> Int {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        let cutoff = now.timeIntervalSince1970 - Self.sweepGracePeriod
        var deleted = 0
        for name in names where !referenced.contains(name) {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                Double(info.st_mtim.tv_sec) < cutoff
            else { continue }
            if unlink(path) == 0 { deleted += 1 }
        }
        return deleted
    }

    private static func ioError(_ message: String) -> StoreError {
        StoreError(code: .io, message: message)
    }
}
