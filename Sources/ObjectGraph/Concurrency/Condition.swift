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
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        defer { pthread_condattr_destroy(&attributes) }
        #if !canImport(Darwin)
            // Timed waits measure on the monotonic clock, which no change of the wall clock moves.
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        let status = pthread_cond_init(condition, &attributes)
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

    /// Like ``wait(releasing:)``, but waits at most `timeout`.
    package func wait(releasing lock: Lock, timeout: Duration) {
        // At most a day at a time: callers wait in a loop anyway, and seconds stay far from overflowing.
        let (seconds, attoseconds) = min(max(timeout, .zero), .seconds(86_400)).components
        let nanoseconds = Int(attoseconds / 1_000_000_000)
        #if canImport(Darwin)
            var relative = timespec(tv_sec: Int(seconds), tv_nsec: nanoseconds)
            let status = pthread_cond_timedwait_relative_np(condition, lock.mutex, &relative)
        #else
            var until = timespec()
            clock_gettime(CLOCK_MONOTONIC, &until)
            let total = until.tv_nsec + nanoseconds
            until.tv_sec += Int(seconds) + total / 1_000_000_000
            until.tv_nsec = total % 1_000_000_000
            let status = pthread_cond_timedwait(condition, lock.mutex, &until)
        #endif
        precondition(status == 0 || status == ETIMEDOUT, "pthread_cond_timedwait failed: \(status)")
    }

    /// Wakes one waiting thread.
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiting thread.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
