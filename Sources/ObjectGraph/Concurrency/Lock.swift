#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The package's one lock for small shared state: a `pthread_mutex_t`.
///
/// Not `Synchronization.Mutex`: on Linux that locks with futexes ThreadSanitizer does not see, so the state it
/// guards shows up as racing and a real race would hide among the false reports. ThreadSanitizer understands
/// pthread mutexes. Hold it for short, non-blocking work only; never across a store's work or an `await`.
///
/// A recursive lock (`recursive: true`) may be taken again by the thread that holds it.
package final class Lock: @unchecked Sendable {  // the mutex is only touched through pthread calls
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock; `recursive` lets the holding thread take it again.
    package init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
            let plain = Int32(PTHREAD_MUTEX_ERRORCHECK)  // misuse (unlocking another thread's lock) fails loudly
        #else
            let plain = Int32(PTHREAD_MUTEX_NORMAL)
        #endif
        pthread_mutexattr_settype(&attributes, recursive ? Int32(PTHREAD_MUTEX_RECURSIVE) : plain)
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    /// Takes the lock if no other thread holds it; returns whether it did.
    package func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }

    package func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed: \(status)")
    }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value guarded by a ``Lock``: the shape of NIO's `NIOLockedValueBox` and the API of `Mutex` (values go in and
/// out as `sending`, so a non-Sendable value cannot leak to another thread).
package final class LockedValue<Value: ~Copyable>: @unchecked Sendable {  // `value` is only reached under `lock`
    private let lock = Lock()
    private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<T: ~Copyable>(_ body: (inout sending Value) throws -> sending T) rethrows -> sending T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
