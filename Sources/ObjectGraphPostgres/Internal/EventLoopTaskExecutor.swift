import NIOCore

/// A task executor that runs a task's jobs on a NIO event loop, for work that must not wait for the cooperative pool.
///
/// The listening connection (`PostgresListener`) runs on the stores' own event loop this way: its reconnects and
/// notifications then keep their pace when the process's cooperative pool is busy (a daemon answering many
/// requests, a test process running hundreds of tests), where each hop through the pool could wait for seconds.
/// Only non-blocking work belongs here: the stores' synchronous calls refuse to wait on an event-loop thread.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
