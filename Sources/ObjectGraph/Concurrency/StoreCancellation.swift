import Synchronization

/// The cancellation of coordinator work that runs on a thread outside Swift's tasks (the daemon's store threads),
/// where `Task.isCancelled` is always false.
///
/// The code that hands the work to such a thread binds a cancellation to it with ``run(_:)`` and calls ``cancel()``
/// when the asking task is cancelled (a deadline passed, the server stops). Stores check ``isCurrentWorkCancelled``
/// in their long loops: the atomic stores every 4,096 records of a scan, the SQLite store from SQLite's progress
/// handler, which interrupts the running statement.
package final class StoreCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)

    package init() {}

    /// Asks the work to stop; the next check of a store sees it.
    package func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    package var isCancelled: Bool {
        cancelled.load(ordering: .relaxed)
    }

    /// The cancellation bound to the work running on this thread (or in this task), if any.
    @TaskLocal private static var current: StoreCancellation?

    /// Runs `body` with this cancellation bound, on the calling thread.
    package func run<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$current.withValue(self, operation: body)
    }

    /// Whether the work running here should stop: its task is cancelled, or the cancellation bound with ``run(_:)``.
    package static var isCurrentWorkCancelled: Bool {
        Task.isCancelled || (current?.isCancelled ?? false)
    }

    /// Throws `CancellationError` when ``isCurrentWorkCancelled``.
    package static func checkCancellation() throws {
        if isCurrentWorkCancelled { throw CancellationError() }
    }
}
