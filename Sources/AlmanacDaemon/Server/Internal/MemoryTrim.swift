import Foundation
import ObjectGraph

#if canImport(CMalloc)
    import CMalloc
#endif

/// Hands memory freed by closed connections back to the system after a flood of them ended.
///
/// glibc's allocator keeps freed memory for reuse: after 5,000 connections close, the daemon's VmRSS would stay
/// about 100 MB higher. ``ConnectionLedger/release(uid:)`` says when a large number of connections has closed; a
/// second later (when their tasks are gone too) `malloc_trim(0)` runs on a thread of its own. Requests while one is
/// pending are merged.
enum MemoryTrim {
    private static let isPending = LockedValue(false)

    static func request() {
        #if canImport(CMalloc)
            let start = isPending.withLock { pending in
                defer { pending = true }
                return !pending
            }
            guard start else { return }
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 1)
                isPending.withLock { $0 = false }
                malloc_trim(0)
            }
        #endif
    }
}
