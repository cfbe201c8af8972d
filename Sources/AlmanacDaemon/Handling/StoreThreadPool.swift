import NIOCore
import NIOPosix
import ObjectGraph

/// The daemon's own threads for coordinator work: a bounded `NIOThreadPool`.
///
/// The coordinator is synchronous and waits in its read-write gate (a reader behind a save or a store change, a save
/// behind readers), and a long SQLite query holds its thread. Run on Swift's cooperative pool, that work would block
/// one of its few threads (two on a two-core machine), and with them every task of the daemon. ``run(_:)`` hands the
/// work to a pool thread and suspends the task meanwhile.
///
/// Cancelling the waiting task (the deadline passed, the server stops) cancels the work: work not yet started
/// never starts, and running work sees its `StoreCancellation`, which the atomic stores check during scans and
/// SQLite's progress handler checks while a statement runs; either way ``run(_:)`` throws `CancellationError`.
public final class StoreThreadPool: Sendable {
    /// How many threads a pool has by default: the machine's cores, at least 4 (so a few slow queries leave room for
    /// quick ones on a small machine) and at most 16.
    public static let defaultThreadCount = min(max(System.coreCount, 4), 16)

    private let pool: NIOThreadPool
    /// The number of threads.
    public let threadCount: Int

    /// Starts `threadCount` threads; they stop when the pool is released.
    public init(threadCount: Int = StoreThreadPool.defaultThreadCount) {
        precondition(threadCount > 0, "a store thread pool needs a thread")
        self.threadCount = threadCount
        pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
    }

    deinit {
        // Does not wait: the threads finish the work queued and then end.
        pool.shutdownGracefully { _ in }
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    ///
    /// - Throws: what `body` throws, or `CancellationError` when the calling task was cancelled before `body`
    ///   started or while it ran.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let cancellation = StoreCancellation()
        return try await withTaskCancellationHandler {
            let result = try await pool.runIfActive { () -> Result<T, any Error> in
                Result { try cancellation.run(body) }
            }
            // Whatever cancelled work gave up with (a store's CancellationError, an error a query engine made of
            // it, or a partial result), it is a cancellation.
            if cancellation.isCancelled { throw CancellationError() }
            return try result.get()
        } onCancel: {
            cancellation.cancel()
        }
    }
}
