import Foundation
import ObjectGraph

/// Thrown by ``withDeadline(_:_:)`` when the operation took too long.
struct DeadlineExceeded: Error {}

/// Runs `operation`, cancelling it and throwing ``DeadlineExceeded`` when it runs longer than `duration`.
///
/// The operation runs in a task of its own, which ``DeadlineKeeper/shared`` cancels when the deadline passes; the call
/// returns when the operation does, so the operation must react to cancellation for it to return promptly after the
/// deadline. Cancelling the calling task cancels the operation.
///
/// Every request the server answers passes through here: one task and two short turns of a lock, where a task group
/// with a second task sleeping until the deadline cost a group, two tasks and a timer of the cooperative pool.
///
/// `executor` is the task's preferred executor (a new task does not inherit the caller's): the server passes its
/// connection's event loop, so that the operation resumes there after its store work.
func withDeadline<T: Sendable>(
    _ duration: Duration,
    keeper: DeadlineKeeper = .shared,
    executor: (any TaskExecutor)? = nil,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let watch = keeper.watch(until: .now + duration)
    let task: Task<T, any Error>
    if #available(macOS 26, *) {
        // Runs on this thread until the operation first suspends (for a request: until it waits for a store thread).
        task = Task.immediate(executorPreference: executor) { try await operation() }
    } else {
        task = Task(executorPreference: executor) { try await operation() }
    }
    keeper.attach(task, to: watch)
    let result = await withTaskCancellationHandler {
        await task.result
    } onCancel: {
        task.cancel()
    }
    if keeper.release(watch) { throw DeadlineExceeded() }
    return try result.get()
}

/// What ``DeadlineKeeper`` cancels: a task.
protocol DeadlineCancellable: Sendable {
    func cancel()
}

extension Task: DeadlineCancellable {}

/// One thread that cancels the tasks whose deadline passed: ``withDeadline(_:_:)``'s timer.
///
/// Watches wait in a heap ordered by deadline, each knowing its place, so that releasing one (the common end: the
/// operation finished in time) removes it at once and the heap holds only the operations under way. The thread
/// sleeps until the earliest deadline and is woken only when a watch with an earlier one arrives; since a server's
/// requests share one timeout, that is rare.
final class DeadlineKeeper: @unchecked Sendable {  // `heap`, `sleepingUntil` and the watches' fields under `lock`
    /// The keeper of the process.
    static let shared = DeadlineKeeper()

    /// A keeper whose thread starts with its first watch and lives as long as the process.
    init() {}

    /// A deadline and what to cancel when it passes. Its fields are the keeper's, guarded by its lock.
    final class Watch: @unchecked Sendable {
        fileprivate let deadline: ContinuousClock.Instant
        fileprivate var task: (any DeadlineCancellable)?
        /// The watch's place in the heap; `nil` once it left it (expired or released).
        fileprivate var index: Int?
        fileprivate var expired = false

        fileprivate init(deadline: ContinuousClock.Instant) {
            self.deadline = deadline
        }
    }

    private let lock = Lock()
    private let changed = Condition()
    private var heap: [Watch] = []
    /// When the thread wakes by itself: `nil` when it waits for a first watch, or has not started.
    private var sleepingUntil: ContinuousClock.Instant?
    private var started = false

    /// A watch that expires at `deadline`; give it the task to cancel with ``attach(_:to:)``, and end it with
    /// ``release(_:)``.
    func watch(until deadline: ContinuousClock.Instant) -> Watch {
        let watch = Watch(deadline: deadline)
        lock.lock()
        watch.index = heap.count
        heap.append(watch)
        siftUp(from: heap.count - 1)
        let wake = watch.index == 0 && (sleepingUntil.map { deadline < $0 } ?? true)
        if !started {
            started = true
            let thread = Thread { self.run() }  // keeps the keeper: its thread never ends
            thread.name = "almanacd deadlines"
            thread.start()
        }
        lock.unlock()
        if wake { changed.signal() }
        return watch
    }

    /// Gives `watch` the task its deadline cancels; cancels it at once when the deadline has passed already.
    func attach(_ task: some DeadlineCancellable, to watch: Watch) {
        let expired = lock.withLock {
            watch.task = task
            return watch.expired
        }
        if expired { task.cancel() }
    }

    /// Ends `watch`; returns whether its deadline passed (and its task was cancelled) before.
    func release(_ watch: Watch) -> Bool {
        lock.withLock {
            if let index = watch.index { remove(at: index) }
            watch.task = nil
            return watch.expired
        }
    }

    /// How many watches wait for their deadline.
    var watchCount: Int { lock.withLock { heap.count } }

    private func run() {
        lock.lock()
        while true {
            guard let first = heap.first else {
                sleepingUntil = nil
                changed.wait(releasing: lock)
                continue
            }
            let now = ContinuousClock.now
            if first.deadline <= now {
                remove(at: 0)
                first.expired = true
                let task = first.task
                lock.unlock()
                task?.cancel()
                lock.lock()
            } else {
                sleepingUntil = first.deadline
                changed.wait(releasing: lock, timeout: first.deadline - now)
            }
        }
    }

    // MARK: The heap (under `lock`)

    private func remove(at index: Int) {
        let removed = heap[index]
        removed.index = nil
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.index = index
        if index > 0, last.deadline < heap[(index - 1) / 2].deadline {
            siftUp(from: index)
        } else {
            siftDown(from: index)
        }
    }

    private func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(from start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if left + 1 < heap.count, heap[left + 1].deadline < heap[smallest].deadline { smallest = left + 1 }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }

    private func swapAt(_ first: Int, _ second: Int) {
        heap.swapAt(first, second)
        heap[first].index = first
        heap[second].index = second
    }
}
