import NIOCore

/// A task executor that runs a task's jobs on a NIO event loop, for work that must not wait for the cooperative pool.
///
/// The listening connection (`PostgresListener`) runs on the stores' own event loop this way: its reconnects and
/// notifications then keep their pace when the process's cooperative pool is busy (a daemon answering many
/// requests, a test process running hundreds of tests), where each hop through the pool could wait for seconds.
/// Only non-blocking work belongs here: the stores' synchronous calls refuse to wait on an event-loop thread.
///
/// The daemon's server runs each connection's task on the connection's event loop the same way (package access, one
/// copy): the request read, the answer written and everything between but the store work, which has threads of its
/// own, then happen on the thread that reads and writes the socket, without a thread woken for each.
package final class EventLoopTaskExecutor: TaskExecutor {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
