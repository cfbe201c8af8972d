import Foundation
import ObjectGraph

#if canImport(CMalloc)
    import CMalloc
#endif

/// Hands memory freed by closed connections and by detached or replaced stores back to the system.
///
/// glibc's allocator keeps freed memory for reuse: after 5,000 connections close, the daemon's VmRSS would stay
/// about 100 MB higher; after 25 minutes of files dropped, replaced and deleted under load it stood at 235 MB while
/// 10 MB of heap were in use. ``ConnectionLedger/release(uid:)`` says when a large number of connections has closed,
/// and the schedule library when a store was detached, replaced or set aside; a second later (when their tasks are
/// gone too) `malloc_trim(0)` runs on a thread of its own, and once more five seconds after the last request.
/// Requests while the thread runs are merged, so a busy folder costs one trim a second at most.
enum MemoryTrim {
    /// Whether a trimming thread runs, and whether a request came since it last trimmed.
    private static let state = LockedValue((isRunning: false, isRequested: false))

    static func request() {
        #if canImport(CMalloc)
            let start = state.withLock { state in
                defer { state = (true, true) }
                return !state.isRunning
            }
            guard start else { return }
            Thread.detachNewThread {
                // Once a second while requests keep coming, then once more a few seconds later for the tasks of the last
                // connections, which may end well after their channels closed on a loaded machine.
                while state.withLock({ state in
                    defer { state.isRequested = false }
                    return state.isRequested
                }) {
                    Thread.sleep(forTimeInterval: 1)
                    malloc_trim(0)
                }
                Thread.sleep(forTimeInterval: 4)
                malloc_trim(0)
                state.withLock { $0.isRunning = false }
            }
        #endif
    }
}
