import AlmanacWire
import Foundation
import Logging
import NIOCore
import Testing

@testable import AlmanacDaemon

/// The connection limits without sockets: the ledger that counts connections per user, the request-line clock, the
/// `busy` and `timeout` lines, and the limits in `almanacd.json`.
@Suite struct ConnectionLedgerTests {
    static let owner: uid_t = 500
    static let alice: uid_t = 1000
    static let bob: uid_t = 1001

    func ledger(_ configure: (inout ConnectionLimits) -> Void = { _ in }) -> ConnectionLedger {
        var limits = ConnectionLimits()
        configure(&limits)
        return ConnectionLedger(limits: limits, owner: Self.owner)
    }

    @Test func aUserPastItsLimitIsRefusedWithTheLimitNamed() throws {
        var ledger = ledger { $0.maxConnectionsPerUser = 2 }
        #expect(ledger.admit(uid: Self.alice) == .admit)
        #expect(ledger.admit(uid: Self.alice) == .admit)
        guard case .refuse(let error, let isFirst) = ledger.admit(uid: Self.alice) else {
            Issue.record("a third connection of the same user was admitted")
            return
        }
        #expect(error.code == .busy)
        #expect(isFirst)
        let limit = try #require(error.exceededLimit)
        #expect(limit.name == "maxConnectionsPerUser")
        #expect(limit.value == 2)
        // Nothing was counted for the refused connection; another user is still admitted.
        #expect(ledger.connections(ofUser: Self.alice) == 2)
        #expect(ledger.total == 2)
        #expect(ledger.admit(uid: Self.bob) == .admit)
    }

    @Test func onlyTheFirstRefusalAfterAnAdmissionIsMarkedFirst() {
        var ledger = ledger { $0.maxConnectionsPerUser = 1 }
        #expect(ledger.admit(uid: Self.alice) == .admit)
        var firsts: [Bool] = []
        for _ in 0..<3 {
            if case .refuse(_, let isFirst) = ledger.admit(uid: Self.alice) { firsts.append(isFirst) }
        }
        #expect(firsts == [true, false, false])
        #expect(ledger.admit(uid: Self.bob) == .admit)
        if case .refuse(_, let isFirst) = ledger.admit(uid: Self.alice) { #expect(isFirst) }
    }

    @Test func aClosedConnectionFreesItsSlot() {
        var ledger = ledger { $0.maxConnectionsPerUser = 1 }
        #expect(ledger.admit(uid: Self.alice) == .admit)
        #expect(ledger.admit(uid: Self.alice) != .admit)
        let trims = ledger.release(uid: Self.alice)
        #expect(!trims)
        #expect(ledger.connections(ofUser: Self.alice) == 0)
        #expect(ledger.total == 0)
        #expect(ledger.admit(uid: Self.alice) == .admit)
    }

    @Test func rootAndTheOwnerAreHeldOnlyToTheTotal() throws {
        var ledger = ledger {
            $0.maxConnectionsPerUser = 1
            $0.maxConnections = 5
        }
        #expect(ledger.admit(uid: Self.alice) == .admit)
        for _ in 0..<2 { #expect(ledger.admit(uid: 0) == .admit) }
        for _ in 0..<2 { #expect(ledger.admit(uid: Self.owner) == .admit) }
        guard case .refuse(let error, _) = ledger.admit(uid: 0) else {
            Issue.record("root was admitted past the total")
            return
        }
        let limit = try #require(error.exceededLimit)
        #expect(limit.name == "maxConnections")
        #expect(limit.value == 5)
        #expect(ledger.total == 5)
    }

    @Test func aUserOfItsOwnLimitGetsIt() {
        var ledger = ledger {
            $0.maxConnectionsPerUser = 1
            $0.maxConnectionsByUser = [Self.alice: 3, 0: 1]
        }
        for _ in 0..<3 { #expect(ledger.admit(uid: Self.alice) == .admit) }
        #expect(ledger.admit(uid: Self.alice) != .admit)
        #expect(ledger.admit(uid: 0) == .admit)
        #expect(ledger.admit(uid: 0) != .admit)
        #expect(ledger.admit(uid: Self.bob) == .admit)
        #expect(ledger.admit(uid: Self.bob) != .admit)
    }

    @Test func memoryIsHandedBackWhenMostOfAFloodClosed() {
        var ledger = ledger()
        for _ in 0..<1000 { #expect(ledger.admit(uid: 0) == .admit) }
        var trims: [Int] = []
        for _ in 0..<1000 where ledger.release(uid: 0) { trims.append(ledger.total) }
        // At a quarter of the peak of 1,000, then at every further quarter down to none.
        #expect(trims == [250, 62, 15, 3, 0])
        // A few connections opening and closing afterwards never ask.
        for _ in 0..<100 {
            #expect(ledger.admit(uid: 0) == .admit)
            let trims = ledger.release(uid: 0)
            #expect(!trims)
        }
    }

    @Test func unknownPeersShareOneLimit() {
        var ledger = ledger { $0.maxConnectionsPerUser = 1 }
        #expect(ledger.admit(uid: PeerCredentials.unknown.uid) == .admit)
        #expect(ledger.admit(uid: PeerCredentials.unknown.uid) != .admit)
    }

    @Test func limitsAreFittedToTheOpenFileLimit() {
        let limits = ConnectionLimits()
        #expect(limits.fitted(toOpenFileLimit: 1 << 20) == limits)
        #expect(limits.fitted(toOpenFileLimit: 8192 + 256) == limits)
        let small = limits.fitted(toOpenFileLimit: 1024)
        #expect(small.maxConnections == 768)
        #expect(small.maxConnectionsPerUser == 192)
        let tiny = limits.fitted(toOpenFileLimit: 100)
        #expect(tiny.maxConnections == 50)
        #expect(tiny.maxConnectionsPerUser == 12)
        // Everything else stays.
        #expect(small.requestLineTimeout == limits.requestLineTimeout)
        #expect(small.idleTimeout == limits.idleTimeout)
    }

    @Test func theBusyLineSaysWhichLimit() throws {
        let error = WireError.busy(limit: "maxConnectionsPerUser", value: 1024, message: "uid 1000 holds 1024")
        var line = ByteBuffer()
        WireResponse.encodeLine(id: .null, error: error, into: &line)
        let text = String(buffer: line)
        #expect(
            text == #"{"id":null,"ok":false,"error":{"code":"busy","message":"uid 1000 holds 1024","#
                + #""limit":"maxConnectionsPerUser","value":1024}}"# + "\n")
        let received = try WireError(json: try #require(error.json as JSONObject?))
        #expect(received.code == .busy)
        #expect(received.exceededLimit?.name == "maxConnectionsPerUser")
        #expect(received.exceededLimit?.value == 1024)
    }

    @Test func theRequestLineTimeoutSaysItsSeconds() {
        let whole = WireError.requestLineTimeout(seconds: 10)
        #expect(whole.code == .timeout)
        #expect(whole.details["limit"] == "requestLineTimeout")
        #expect(whole.details["value"] == .int(10))
        #expect(WireError.requestLineTimeout(seconds: 0.25).details["value"] == .double(0.25))
        // A request's own deadline names no limit.
        #expect(WireError(code: .timeout, message: "fetch took longer than 30 s").exceededLimit == nil)
    }
}

@Suite struct RequestLineClockTests {
    let start = ContinuousClock.now
    let timeout = Duration.seconds(10)

    @Test func aLateLineClosesTheConnection() {
        var machine = ConnectionStateMachine(now: start)
        machine.partialLineStarted(at: start + .seconds(1))
        #expect(
            machine.requestLineCheck(at: start + .seconds(5), timeout: timeout) == .checkAgain(at: start + .seconds(11))
        )
        // Bytes of the same line keep arriving: idle time restarts, the line's clock does not.
        machine.bytesReceived(at: start + .seconds(9))
        #expect(machine.requestLineCheck(at: start + .seconds(11), timeout: timeout) == .close)
        #expect(machine.state == .closed)
        #expect(machine.requestStarted() == .ignore)
    }

    @Test func aFinishedLineStopsTheClock() {
        var machine = ConnectionStateMachine(now: start)
        machine.partialLineStarted(at: start)
        machine.partialLineEnded()
        #expect(machine.requestLineCheck(at: start + .seconds(60), timeout: timeout) == .stopWatching)
        #expect(machine.state == .idle(since: start))
    }

    @Test func theClockWaitsForRunningRequestsAndRestartsAfterTheirAnswer() {
        var machine = ConnectionStateMachine(now: start)
        #expect(machine.requestStarted() == .process)
        machine.partialLineStarted(at: start + .seconds(1))
        // The request runs for 25 s: the line sent meanwhile is not late.
        #expect(
            machine.requestLineCheck(at: start + .seconds(11), timeout: timeout)
                == .checkAgain(at: start + .seconds(21)))
        #expect(machine.requestFinished(at: start + .seconds(25)) == .continueReading)
        #expect(
            machine.requestLineCheck(at: start + .seconds(26), timeout: timeout)
                == .checkAgain(at: start + .seconds(35)))
        #expect(machine.requestLineCheck(at: start + .seconds(35), timeout: timeout) == .close)
    }

    @Test func closedConnectionsStopTheClock() {
        var machine = ConnectionStateMachine(now: start)
        machine.partialLineStarted(at: start)
        machine.closed()
        #expect(machine.requestLineCheck(at: start + .seconds(60), timeout: timeout) == .stopWatching)
    }
}

@Suite struct ConnectionLimitsConfigurationTests {
    func load(_ json: String) throws -> DaemonConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = DaemonConfiguration(watchFolders: [], stateFolder: folder, socketPath: "/tmp/x.sock")
        try json.write(to: configuration.configurationFile, atomically: true, encoding: .utf8)
        try configuration.loadConfigurationFile()
        return configuration
    }

    @Test func theFileSetsEveryLimit() throws {
        let configuration = try load(
            #"{"maxConnections": 5000, "maxConnectionsPerUser": 40, "maxConnectionsByUser": {"1000": 400, "root": 7},"#
                + #" "requestLineTimeout": 2.5, "idleTimeout": 0}"#)
        let limits = configuration.connectionLimits
        #expect(limits.maxConnections == 5000)
        #expect(limits.maxConnectionsPerUser == 40)
        #expect(limits.maxConnectionsByUser == [1000: 400, 0: 7])
        #expect(limits.requestLineTimeout == .milliseconds(2500))
        #expect(limits.idleTimeout == nil)
    }

    @Test func limitsLeftOutAreTheDefaults() throws {
        #expect(try load(#"{"readOnlyInbox": true}"#).connectionLimits == ConnectionLimits())
    }

    @Test(arguments: [
        #"{"maxConnections": 0}"#, #"{"maxConnections": "many"}"#, #"{"maxConnectionsPerUser": 1.5}"#,
        #"{"maxConnectionsByUser": {"no-such-user-here": 3}}"#, #"{"maxConnectionsByUser": [1000]}"#,
        #"{"maxConnectionsByUser": {"1000": -1}}"#, #"{"requestLineTimeout": -1}"#, #"{"idleTimeout": "5m"}"#,
    ])
    func unusableLimitsAreRefusedByName(json: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = DaemonConfiguration(watchFolders: [], stateFolder: folder, socketPath: "/tmp/x.sock")
        configuration.connectionLimits.maxConnections = 77
        try json.write(to: configuration.configurationFile, atomically: true, encoding: .utf8)
        let key = try #require(ConnectionLimits.configurationKeys.first { json.contains("\"\($0)\"") })
        let error = #expect(throws: ConfigurationError.self) { try configuration.loadConfigurationFile() }
        #expect(error?.message.contains("\"\(key)\"") == true)
        // The configuration in use is unchanged.
        #expect(configuration.connectionLimits.maxConnections == 77)
    }
}

/// `eventLoops` in `almanacd.json`: how many event-loop threads serve the socket.
struct EventLoopSettingTests {
    private func configuration(_ json: String) throws -> (DaemonConfiguration, Result<Void, ConfigurationError>) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("almanac-event-loops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = DaemonConfiguration(watchFolders: [], stateFolder: folder, socketPath: "/tmp/x.sock")
        configuration.eventLoopCount = 3
        try json.write(to: configuration.configurationFile, atomically: true, encoding: .utf8)
        do {
            try configuration.loadConfigurationFile()
            return (configuration, .success(()))
        } catch let error as ConfigurationError {
            return (configuration, .failure(error))
        }
    }

    @Test(arguments: [1, 2, 16])
    func aWholeCountIsTaken(_ count: Int) throws {
        let (configuration, outcome) = try configuration(#"{"eventLoops": \#(count)}"#)
        #expect(throws: Never.self) { try outcome.get() }
        #expect(configuration.eventLoopCount == count)
    }

    @Test func leftOutItKeepsTheDefault() throws {
        let (configuration, outcome) = try configuration(#"{"maxConnections": 10}"#)
        #expect(throws: Never.self) { try outcome.get() }
        #expect(configuration.eventLoopCount == 3)
    }

    @Test(arguments: ["0", "-1", "1.5", "\"two\"", "true", "100000"])
    func anythingElseIsRefusedNamingTheKey(_ value: String) throws {
        let (configuration, outcome) = try configuration(#"{"eventLoops": \#(value)}"#)
        guard case .failure(let error) = outcome else {
            Issue.record("\(value) was taken as \(String(describing: configuration.eventLoopCount))")
            return
        }
        #expect(error.message.contains("\"eventLoops\""))
        #expect(error.message.contains("1 to 256"))
        // The count in use is unchanged.
        #expect(configuration.eventLoopCount == 3)
    }

    /// A count set in code is checked too, before the daemon starts anything: NIO stops the process on a group of no
    /// threads.
    @Test func theDaemonRefusesABadCountSetInCodeBeforeStarting() async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("almanac-event-loops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = DaemonConfiguration(
            watchFolders: [folder.appendingPathComponent("inbox")], stateFolder: folder.appendingPathComponent("state"),
            socketPath: folder.appendingPathComponent("s.sock").path)
        configuration.eventLoopCount = 0
        let error = await #expect(throws: ConfigurationError.self) {
            try await Daemon.run(configuration: configuration, logger: Logger(label: "test"))
        }
        #expect(error?.message.contains("eventLoopCount") == true)
        // Nothing was made: no state folder, no socket.
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
