import Foundation
import ObjectGraph

#if canImport(Glibc)
import Glibc

/// Watches folders with inotify (no polling) and delivers ``DirectoryEvent``s as an `AsyncSequence`.
///
/// `IN_CLOSE_WRITE` and `IN_MOVED_TO` report a ready file, `IN_DELETE` and `IN_MOVED_FROM` a removed one,
/// `IN_Q_OVERFLOW` a rescan. When a watched folder is removed, the watcher waits for it to be created again (it
/// watches the parent folder for it) and then asks for a rescan. A file still being written is never reported: only
/// close-after-write and rename-into-the-folder count. Names the ``WatchFilter`` rejects are dropped.
public final class DirectoryWatcher: AsyncSequence, @unchecked Sendable {  // fd and table guarded by `lock`
    public typealias Element = DirectoryEvent

    private let folders: [URL]
    private let filter: WatchFilter
    private let lock = Lock()
    private var fd: Int32 = -1
    private var wakePipe: [Int32] = [-1, -1]
    private var watches: [Int32: URL] = [:]
    private var parentWatches: [Int32: [URL]] = [:]
    private var thread: Thread?
    private let stream: AsyncStream<DirectoryEvent>
    private let continuation: AsyncStream<DirectoryEvent>.Continuation

    /// Starts watching folders (missing folders are watched for creation through their parent).
    ///
    /// - Throws: `POSIXError` when inotify is unavailable (limits reached).
    public init(folders: [URL], filter: WatchFilter = WatchFilter()) throws {
        self.folders = folders.map(\.standardizedFileURL)
        self.filter = filter
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard pipe(&wakePipe) == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        for folder in self.folders { addWatch(folder) }
    }

    deinit { stop() }

    public func makeAsyncIterator() -> AsyncStream<DirectoryEvent>.Iterator {
        startThreadIfNeeded()
        return stream.makeAsyncIterator()
    }

    /// Stops watching and finishes the sequence.
    public func stop() {
        lock.lock()
        let running = fd >= 0
        if running {
            var byte: UInt8 = 1
            _ = write(wakePipe[1], &byte, 1)
        }
        lock.unlock()
        if running, thread == nil { closeAll() }
        continuation.finish()
    }

    private func closeAll() {
        lock.lock()
        defer { lock.unlock() }
        if fd >= 0 { close(fd) }
        for end in wakePipe where end >= 0 { close(end) }
        fd = -1
        wakePipe = [-1, -1]
    }

    private func startThreadIfNeeded() {
        lock.lock()
        defer { lock.unlock() }
        guard thread == nil, fd >= 0 else { return }
        let thread = Thread { [weak self] in self?.readLoop() }
        thread.name = "almanac-inotify"
        self.thread = thread
        thread.start()
    }

    private static let folderMask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF
                                           | IN_MOVE_SELF | IN_ONLYDIR)
    private static let parentMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

    /// Watches a folder, or its parent until it exists.
    private func addWatch(_ folder: URL) {
        let descriptor = inotify_add_watch(fd, folder.path, Self.folderMask)
        if descriptor >= 0 {
            watches[descriptor] = folder
            return
        }
        let parent = folder.deletingLastPathComponent()
        let parentDescriptor = inotify_add_watch(fd, parent.path, Self.parentMask)
        if parentDescriptor >= 0 { parentWatches[parentDescriptor, default: []].append(folder) }
    }

    private func readLoop() {
        let bufferSize = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
        defer {
            buffer.deallocate()
            closeAll()
        }
        while true {
            lock.lock()
            let (inotifyFD, wakeFD) = (fd, wakePipe[0])
            lock.unlock()
            guard inotifyFD >= 0 else { return }
            var polls = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&polls, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if polls[1].revents != 0 { return }
            let count = read(inotifyFD, buffer, bufferSize)
            if count <= 0 {
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                return
            }
            handle(buffer: UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }

    private func handle(buffer: UnsafeRawBufferPointer) {
        var offset = 0
        let headerSize = MemoryLayout<inotify_event>.size
        while offset + headerSize <= buffer.count {
            let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + headerSize)..<Swift.min(buffer.count,
                                                                                                 offset + headerSize + length)])
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            offset += headerSize + length
            dispatch(wd: wd, mask: mask, name: name)
        }
    }

    private func dispatch(wd: Int32, mask: UInt32, name: String) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            for folder in folders { continuation.yield(.rescan(folder)) }
            return
        }
        lock.lock()
        let folder = watches[wd]
        let waiting = parentWatches[wd]
        lock.unlock()
        if let waiting {
            for folder in waiting where folder.lastPathComponent == name {
                lock.lock()
                parentWatches[wd]?.removeAll { $0 == folder }
                addWatch(folder)
                lock.unlock()
                continuation.yield(.rescan(folder))
            }
            return
        }
        guard let folder else { return }
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
            lock.lock()
            watches[wd] = nil
            if mask & UInt32(IN_IGNORED) == 0 { inotify_rm_watch(fd, wd) }
            addWatch(folder)
            lock.unlock()
            continuation.yield(.rescan(folder))
            return
        }
        guard !name.isEmpty, filter.accepts(name) else { return }
        let file = folder.appendingPathComponent(name)
        if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 {
            continuation.yield(.fileReady(file))
        } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            continuation.yield(.fileRemoved(file))
        }
    }
}
#endif
