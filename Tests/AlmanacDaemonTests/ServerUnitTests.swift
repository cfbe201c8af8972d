import Foundation
import Testing

@testable import AlmanacDaemon

@Suite struct ConnectionStateMachineTests {
    let start = ContinuousClock.now

    @Test func requestsRunOneAtATime() {
        var machine = ConnectionStateMachine(now: start)
        #expect(machine.requestStarted() == .process)
        #expect(machine.state == .processing)
        #expect(machine.requestFinished(at: start + .seconds(1)) == .continueReading)
        #expect(machine.state == .idle(since: start + .seconds(1)))
    }

    @Test func shutdownWhileIdleClosesNow() {
        var machine = ConnectionStateMachine(now: start)
        #expect(machine.gracefulShutdown() == .closeNow)
        #expect(machine.requestStarted() == .ignore)
        #expect(machine.gracefulShutdown() == .none)
    }

    @Test func shutdownDuringARequestClosesAfterIt() {
        var machine = ConnectionStateMachine(now: start)
        _ = machine.requestStarted()
        #expect(machine.gracefulShutdown() == .closeAfterCurrentRequest)
        #expect(machine.state == .draining)
        #expect(machine.requestFinished(at: start) == .close)
        #expect(machine.requestStarted() == .ignore)
    }

    @Test func idleTimeCountsFromTheLastActivity() {
        var machine = ConnectionStateMachine(now: start)
        let timeout = Duration.seconds(10)
        #expect(machine.idleCheck(at: start + .seconds(4), timeout: timeout) == .checkAgain(at: start + .seconds(10)))
        machine.bytesReceived(at: start + .seconds(6))
        #expect(machine.idleCheck(at: start + .seconds(10), timeout: timeout) == .checkAgain(at: start + .seconds(16)))
        #expect(machine.idleCheck(at: start + .seconds(16), timeout: timeout) == .close)
        #expect(machine.state == .closed)
    }

    @Test func runningRequestsAreNotIdle() {
        var machine = ConnectionStateMachine(now: start)
        _ = machine.requestStarted()
        let check = machine.idleCheck(at: start + .seconds(100), timeout: .seconds(10))
        #expect(check == .checkAgain(at: start + .seconds(110)))
    }

    @Test func subscribedConnectionsStopTheIdleWatch() {
        var machine = ConnectionStateMachine(now: start)
        machine.subscribed()
        #expect(machine.idleCheck(at: start + .seconds(100), timeout: .seconds(10)) == .stopWatching)
    }

    @Test func closedConnectionsStopTheIdleWatch() {
        var machine = ConnectionStateMachine(now: start)
        machine.closed()
        #expect(machine.idleCheck(at: start, timeout: .seconds(1)) == .stopWatching)
    }
}

@Suite struct WriteAccessPolicyTests {
    @Test func ownerAndRootMayWrite() {
        let policy = WriteAccessPolicy(ownerUID: 1000)
        #expect(policy.allowsWrites(by: PeerCredentials(uid: 1000, gid: 1000, pid: 1)))
        #expect(policy.allowsWrites(by: PeerCredentials(uid: 0, gid: 0, pid: 1)))
        #expect(!policy.allowsWrites(by: PeerCredentials(uid: 1001, gid: 1001, pid: 1)))
    }

    @Test func membersOfTheWriterGroupMayWrite() {
        let policy = WriteAccessPolicy(ownerUID: 1000, writerGroup: 2000)
        #expect(policy.allowsWrites(by: PeerCredentials(uid: 1001, gid: 2000, pid: 1)))
        #expect(!policy.allowsWrites(by: PeerCredentials(uid: 1001, gid: 1001, pid: 1)))
    }

    @Test func supplementaryGroupsCount() {
        // root's groups include gid 0 on every Linux system.
        let groups = WriteAccessPolicy.supplementaryGroups(of: 0, primary: 0)
        #expect(groups.contains(0))
    }

    @Test func unknownPeersMayNotWrite() {
        #expect(!WriteAccessPolicy(ownerUID: .max, writerGroup: .max).allowsWrites(by: .unknown))
    }
}

@Suite struct SocketActivationTests {
    @Test func adoptsDescriptor3WhenThePIDMatches() {
        let listener = ServerConfiguration.Listener.fromSocketActivation(
            environment: ["LISTEN_PID": "42", "LISTEN_FDS": "1"],
            processID: 42,
            orPath: "/run/almanac/almanac.sock"
        )
        #expect(listener == .descriptor(3))
    }

    @Test(arguments: [
        ["LISTEN_PID": "41", "LISTEN_FDS": "1"], ["LISTEN_PID": "42", "LISTEN_FDS": "0"], ["LISTEN_FDS": "1"],
        ["LISTEN_PID": "42"], [:], ["LISTEN_PID": "x", "LISTEN_FDS": "1"],
    ])
    func bindsThePathOtherwise(environment: [String: String]) {
        let listener = ServerConfiguration.Listener.fromSocketActivation(
            environment: environment,
            processID: 42,
            orPath: "/run/almanac/almanac.sock"
        )
        #expect(listener == .path("/run/almanac/almanac.sock"))
    }

    @Test func defaultsAreDocumented() {
        let configuration = ServerConfiguration(socketPath: "/tmp/x.sock")
        #expect(configuration.maxLineLength == 1 << 20)
        #expect(configuration.connectionLimits.maxConnections == 8192)
        #expect(configuration.connectionLimits.maxConnectionsPerUser == 1024)
        #expect(configuration.connectionLimits.maxConnectionsByUser.isEmpty)
        #expect(configuration.connectionLimits.requestLineTimeout == .seconds(10))
        #expect(configuration.connectionLimits.idleTimeout == .seconds(300))
        #expect(configuration.listenBacklog == 4096)
        #expect(configuration.requestTimeout == .seconds(30))
        #expect(configuration.socketMode == 0o660)
    }
}

@Suite struct DeadlineTests {
    @Test func returnsTheValueInTime() async throws {
        #expect(try await withDeadline(.seconds(5)) { 7 } == 7)
    }

    @Test func throwsWhenTooSlow() async throws {
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(50)) {
                try await Task.sleep(for: .seconds(10))
                return 1
            }
        }
    }

    @Test func passesOnTheOperationsError() async throws {
        struct Refused: Error {}
        let keeper = DeadlineKeeper()
        await #expect(throws: Refused.self) {
            try await withDeadline(.seconds(5), keeper: keeper) { () async throws -> Int in throw Refused() }
        }
        #expect(keeper.watchCount == 0)
    }

    /// An operation that blocks its thread past the deadline before it first suspends: the deadline passes before
    /// the keeper knows the task, which is cancelled as soon as it does.
    ///
    /// The bound is loose: the cancelled sleep resumes on the cooperative pool, which the rest of the suite keeps
    /// busy (on 2 cores, a fresh CI run once took 40 s to get there); uncancelled, the sleep lasts 10 minutes.
    @Test func cancelsAnOperationThatBlockedPastItsDeadline() async throws {
        let start = ContinuousClock.now
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(20)) {
                usleep(200_000)
                try await Task.sleep(for: .seconds(600))
                return 1
            }
        }
        #expect(ContinuousClock.now - start < .seconds(300), "the sleep after the deadline was not cancelled")
    }

    @Test func cancellingTheCallerCancelsTheOperation() async throws {
        let started = AsyncStream<Void>.makeStream()
        let caller = Task {
            try await withDeadline(.seconds(30)) {
                started.continuation.yield()
                try await Task.sleep(for: .seconds(30))
                return 1
            }
        }
        for await _ in started.stream { break }
        caller.cancel()
        let outcome = await caller.result
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    /// Watches released in time are never cancelled and leave the heap; the others are cancelled in the order of
    /// their deadlines, however they arrived, and a watch earlier than the one the keeper sleeps for wakes it.
    @Test func cancelsExactlyTheExpiredInDeadlineOrder() async throws {
        final class Recorder: DeadlineCancellable, @unchecked Sendable {  // `order` under `lock`
            let lock = NSLock()
            var order: [Int] = []
            let number: Int
            let shared: Recorder?
            init(number: Int, shared: Recorder?) {
                self.number = number
                self.shared = shared
            }
            func cancel() {
                guard let shared else { return }
                shared.lock.withLock { shared.order.append(number) }
            }
        }
        let keeper = DeadlineKeeper()
        let log = Recorder(number: -1, shared: nil)
        // A far deadline first, so the keeper sleeps for it when the near ones arrive. An hour: on a loaded machine
        // the test's own sleeps have resumed a minute late (CI, tests in parallel on two cores).
        let far = keeper.watch(until: .now + .seconds(3600))
        keeper.attach(Recorder(number: 1_000, shared: log), to: far)
        try await Task.sleep(for: .milliseconds(20))
        let start = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        let numbers = Array(0..<200).shuffled(using: &generator)
        var watches: [Int: DeadlineKeeper.Watch] = [:]
        for number in numbers {
            let watch = keeper.watch(until: start + .milliseconds(200 + number * 2))
            keeper.attach(Recorder(number: number, shared: log), to: watch)
            watches[number] = watch
        }
        let released = Set(numbers.filter { $0 % 3 == 0 })
        for number in released {
            #expect(keeper.release(watches[number]!) == false)
        }
        #expect(keeper.watchCount == 1 + 200 - released.count)
        while keeper.watchCount > 1, ContinuousClock.now - start < .seconds(20) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let expected = (0..<200).filter { !released.contains($0) }
        #expect(log.lock.withLock { log.order } == expected)
        for number in expected {
            #expect(keeper.release(watches[number]!) == true)
        }
        #expect(keeper.release(far) == false)
        #expect(keeper.watchCount == 0)
    }
}
