import Foundation

/// Runs blocking work (socket reads with long timeouts, request loops) on a thread of its own and returns its result.
///
/// The cooperative pool has as many threads as cores (two here): a few loops of blocking requests on it hold every
/// thread, and the test's other tasks (its waits, its timers) never run again, so the test hangs instead of failing.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
