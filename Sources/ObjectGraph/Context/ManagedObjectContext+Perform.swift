import Foundation

extension ManagedObjectContext {
    /// When ``perform(schedule:_:)`` runs its body (Core Data's `NSManagedObjectContext.ScheduledTaskType`).
    public enum ScheduledTaskType: Sendable {
        /// At once, in the caller's isolation domain.
        case immediate
        /// After the caller's isolation domain has run what was already waiting (the task yields first).
        case enqueued
    }

    /// Runs `body` at once and returns what it returns (Core Data's `performAndWait(_:)`).
    ///
    /// Core Data confines a context to a queue and runs such blocks there. An ObjectGraph context is confined by
    /// the compiler instead: it is not `Sendable`, so whoever can call this is already where the context lives,
    /// and `body` runs right away, on the caller. Code ported from Core Data keeps its `performAndWait` blocks
    /// unchanged; errors `body` throws reach the caller.
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        try body()
    }

    /// Runs `body` and returns what it returns, in the caller's isolation domain (Core Data's
    /// `perform(schedule:_:)`).
    ///
    /// As with ``performAndWait(_:)``, the caller is where the context lives: `body` runs there, at once by
    /// default, or after the caller's domain has run what was already waiting with
    /// ``ScheduledTaskType/enqueued``. Errors `body` throws reach the caller.
    nonisolated(nonsending) public func perform<T>(
        schedule: ScheduledTaskType = .immediate, _ body: () throws -> T
    ) async rethrows -> T {
        if schedule == .enqueued { await Task.yield() }
        return try body()
    }

    /// Runs `body` (Core Data's `perform(_:)`, which enqueues a block on the context's queue and returns).
    ///
    /// An ObjectGraph context has no queue of its own (see ``performAndWait(_:)``): `body` runs at once, on the
    /// caller, before this returns. Code that relied on Core Data running the block later should move the code
    /// after the call into the block.
    public func perform(_ body: () -> Void) {
        body()
    }
}

extension ManagedObjectContext {
    /// Brings changes made elsewhere (a batch request's object IDs, another process's save read from persistent
    /// history) into each context, as ``mergeChanges(fromContextDidSave:)`` does (Core Data's
    /// `mergeChanges(fromRemoteContextSave:into:)`): updated objects are refreshed with their unsaved changes on top,
    /// deleted ones removed, and each context's observers hear of both.
    ///
    /// Each context is used in turn, on the caller: call this where those contexts live.
    public static func mergeChanges(
        fromRemoteContextSave changes: ContextDidSave, into contexts: [ManagedObjectContext]
    ) {
        var remote = changes
        remote.contextIdentifier = nil
        for context in contexts { context.mergeChanges(fromContextDidSave: remote) }
    }
}
