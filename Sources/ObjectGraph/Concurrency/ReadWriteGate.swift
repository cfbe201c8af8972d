#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A readers-writer lock for the coordinator's requests: any number of readers at once, or one writer.
///
/// - Re-entrant: a thread that holds the gate (for reading or writing) may enter it again for reading, and a writer
///   may enter again for writing. A reader may not start writing: that would wait for itself, so it is a
///   programmer error that stops the process with a message.
/// - Writers go first: once a writer waits, new readers wait behind it (a reader already inside may still enter
///   again), so a steady stream of fetches cannot keep a save or a store replacement waiting for ever.
///
/// The gate is held only by synchronous code, so a thread identifies its holder. It waits on a pthread mutex and
/// condition (``Lock``, ``Condition``), which ThreadSanitizer understands; a thread that waits here blocks, so
/// asynchronous code enters it from threads of its own (the daemon's store threads), not from Swift's cooperative
/// pool.
final class ReadWriteGate: @unchecked Sendable {  // all state is guarded by `lock`
    private let lock = Lock()
    /// Signalled when the last reader leaves or the writer leaves.
    private let changed = Condition()
    /// Threads reading, with how many times each entered.
    private var readers: [pthread_t: Int] = [:]
    private var writer: pthread_t?
    private var writerDepth = 0
    private var waitingWriters = 0

    /// Runs `body` as a reader.
    func read<T>(_ body: () throws -> T) rethrows -> T {
        let me = pthread_self()
        let isWriter = enterReading(me, waiting: true)!
        defer { leaveReading(me, isWriter: isWriter) }
        return try body()
    }

    /// Runs `body` as a reader if that needs no waiting (no writer inside or waiting, or this thread already holds
    /// the gate); otherwise returns nil without running it.
    func readIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        let me = pthread_self()
        guard let isWriter = enterReading(me, waiting: false) else { return nil }
        defer { leaveReading(me, isWriter: isWriter) }
        return try body()
    }

    /// Enters as a reader, waiting for writers when `waiting`, else giving up (nil) where it would wait. Returns
    /// whether this thread is the writer (which reads without counting as a reader).
    private func enterReading(_ me: pthread_t, waiting: Bool) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        if writer == me { return true }
        if readers[me] == nil {
            while writer != nil || waitingWriters > 0 {
                guard waiting else { return nil }
                changed.wait(releasing: lock)
            }
        }
        readers[me, default: 0] += 1
        return false
    }

    private func leaveReading(_ me: pthread_t, isWriter: Bool) {
        guard !isWriter else { return }
        lock.lock()
        defer { lock.unlock() }
        let depth = readers[me]! - 1
        if depth == 0 {
            readers[me] = nil
            if readers.isEmpty { changed.broadcast() }
        } else {
            readers[me] = depth
        }
    }

    /// Runs `body` as the only writer: no reader and no other writer runs meanwhile.
    func write<T>(_ body: () throws -> T) rethrows -> T {
        let me = pthread_self()
        lock.lock()
        if writer == me {
            writerDepth += 1
        } else {
            precondition(
                readers[me] == nil,
                "A coordinator request that changes stores (a save, or adding, removing "
                    + "or replacing a store) was started inside performReading; start it outside.")
            waitingWriters += 1
            while writer != nil || !readers.isEmpty { changed.wait(releasing: lock) }
            waitingWriters -= 1
            writer = me
            writerDepth = 1
        }
        lock.unlock()
        defer {
            lock.lock()
            writerDepth -= 1
            if writerDepth == 0 {
                writer = nil
                changed.broadcast()
            }
            lock.unlock()
        }
        return try body()
    }
}
