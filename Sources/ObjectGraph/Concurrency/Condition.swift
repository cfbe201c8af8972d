#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `pthread_cond_t` used with a ``Lock``: a thread holding the lock waits until another signals a change.
package final class Condition: @unchecked Sendable {  // the condition is only touched through pthread calls
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        condition = .allocate(capacity: 1)
        let status = pthread_cond_init(condition, nil)
        precondition(status == 0, "pthread_cond_init failed: \(status)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Releases `lock` (which the calling thread holds), waits for a signal, and takes `lock` again. May wake
    /// without a signal: wait in a loop that tests the awaited state.
    package func wait(releasing lock: Lock) {
        let status = pthread_cond_wait(condition, lock.mutex)
        precondition(status == 0, "pthread_cond_wait failed: \(status)")
    }

    /// Wakes every waiting thread.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
