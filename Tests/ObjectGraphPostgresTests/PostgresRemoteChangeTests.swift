import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphPostgres
@testable import ObjectGraphTestSupport

/// Collects a coordinator's remote changes from a task of its own, for tests that wait for them.
final class RemoteChangeRecorder: Sendable {
    private let changes = LockedValue<[PersistentStoreRemoteChange]>([])
    private let task: Task<Void, Never>

    init(_ coordinator: PersistentStoreCoordinator) {
        let sequence = coordinator.remoteChanges(pollingInterval: .milliseconds(20))
        let changes = self.changes
        task = Task {
            for await change in sequence { changes.withLock { $0.append(change) } }
        }
    }

    deinit { task.cancel() }

    /// The changes received so far.
    var received: [PersistentStoreRemoteChange] { changes.withLock { $0 } }

    /// Waits until `count` changes arrived (at most 30 s, a bound for a hung listener, not a latency check).
    func wait(for count: Int) async throws -> [PersistentStoreRemoteChange] {
        try await until("\(count) remote change(s)") { self.received.count >= count }
        return received
    }
}

/// Waits for a condition, looking every 10 ms, for at most 30 s.
func until(_ what: String, _ condition: @Sendable () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

@Suite("PostgreSQL live changes", needsPostgres)
struct PostgresRemoteChangeTests {
    static func coordinator(_ name: String, in folder: TemporaryFolder) throws -> PersistentStoreCoordinator {
        try PostgresStoreTests.coordinator(name, in: folder, options: [.persistentHistoryTracking: true])
    }

    @Test func anotherCoordinatorsSaveIsAnnouncedAndItsHistoryReadable() async throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let writer = try Self.coordinator("live", in: folder)
        let reader = try Self.coordinator("live", in: folder)
        let readerStore = try #require(reader.persistentStores.first)
        #expect(readerStore.connectionState?.status != .closed)
        let start = reader.currentPersistentHistoryToken()
        let recorder = RemoteChangeRecorder(reader)
        // The reader's own save is not a remote change.
        let own = ManagedObjectContext(coordinator: reader)
        own.makeSession("own")
        try own.save()
        let context = ManagedObjectContext(coordinator: writer)
        context.transactionAuthor = "writer"
        context.makeSession("g1", title: "Keynote")
        try context.save()
        let changes = try await recorder.wait(for: 1)
        let change = try #require(changes.first)
        #expect(change.storeIdentifier == readerStore.identifier)
        let token = try #require(change.historyToken)
        #expect(token == reader.currentPersistentHistoryToken())
        let transactions = try ManagedObjectContext(coordinator: reader).fetchHistory(.fetchHistory(after: start))
        #expect(transactions.map(\.author) == [nil, "writer"])
        #expect(transactions.last?.changes.map(\.changeType) == [.insert])
        #expect(transactions.last?.token == token)
        #expect(changes.count == 1)
    }

    /// Waits for the store's listening connection, then ends it from another connection; returns its server
    /// process.
    static func endListeningConnection(of store: PostgresStore, server: URL) async throws -> Int32 {
        try await until("the listener to connect") {
            store.listener.withLock { $0 }?.currentState.backendPID != nil
        }
        let pid = try #require(store.listener.withLock { $0 }?.currentState.backendPID)
        let admin = PostgresSession(location: try #require(PostgresStoreLocation(url: server)))
        defer { admin.close() }
        let terminated = try admin.query("SELECT pg_terminate_backend(CAST(? AS integer))", [.integer(Int64(pid))])
        #expect(try terminated.first?[column: 0].decode(Bool.self) == true)
        return pid
    }

    /// Waits until the store listens again, on another server process than `pid`.
    static func untilReconnected(_ store: PostgresStore, after pid: Int32) async throws {
        try await until("the listener to reconnect") {
            let state = store.listener.withLock { $0 }?.currentState
            return state?.backendPID != nil && state?.backendPID != pid
        }
    }

    @Test func aSaveWhileTheListeningConnectionIsDownStillArrives() async throws {
        let server = try postgresServer()
        let folder = TemporaryFolder()
        let writer = try Self.coordinator("outage", in: folder)
        let reader = try Self.coordinator("outage", in: folder)
        let readerStore = try #require(reader.persistentStores.first as? PostgresStore)
        let recorder = RemoteChangeRecorder(reader)
        // Another connection ends the listening one; the writer saves at once, while it may still be down.
        let pid = try await Self.endListeningConnection(of: readerStore, server: server)
        let context = ManagedObjectContext(coordinator: writer)
        context.makeSession("during")
        try context.save()
        _ = try await recorder.wait(for: 1)
        // Reconnected on a new backend, it hears the next save as well.
        try await Self.untilReconnected(readerStore, after: pid)
        #expect(readerStore.connectionState?.status == .connected)
        context.makeSession("after")
        try context.save()
        let changes = try await recorder.wait(for: 2)
        let last = try #require(changes.last?.historyToken)
        #expect(last == writer.currentPersistentHistoryToken())
        let sessions = try ManagedObjectContext(coordinator: reader).all("Session", sortedBy: "guid")
        #expect(sessions.map { $0.value(forKey: "guid") as? String } == ["after", "during"])
    }

    /// The instance's own save, committed while its listening connection is down, is not announced as a remote
    /// change when the listener reconnects and finds the token moved (its `NOTIFY` went out before `LISTEN` was on).
    @Test func anOwnSaveWhileTheListeningConnectionIsDownIsNotAnnounced() async throws {
        let server = try postgresServer()
        let folder = TemporaryFolder()
        let writer = try Self.coordinator("own-outage", in: folder)
        let reader = try Self.coordinator("own-outage", in: folder)
        let readerStore = try #require(reader.persistentStores.first as? PostgresStore)
        let recorder = RemoteChangeRecorder(reader)
        let pid = try await Self.endListeningConnection(of: readerStore, server: server)
        // The reader saves at once, while its listener is down (it waits at least 37 ms before reconnecting).
        let own = ManagedObjectContext(coordinator: reader)
        own.makeSession("own")
        try own.save()
        try await Self.untilReconnected(readerStore, after: pid)
        let context = ManagedObjectContext(coordinator: writer)
        context.makeSession("theirs")
        try context.save()
        let changes = try await recorder.wait(for: 1)
        #expect(changes.first?.historyToken == writer.currentPersistentHistoryToken())
        #expect(changes.count == 1)
    }

    /// Two daemons starting at once on a new schema: each opening creates what is missing under the schema's lock,
    /// so neither fails on the other's half-made tables (`CREATE … IF NOT EXISTS` alone races in the catalog).
    @Test func coordinatorsOpeningANewSchemaAtOnceAllSucceed() async throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let url = StoreKind.postgres.url("together", in: folder)
        PostgresStore.register()
        let failures = LockedValue<[String]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
                    let store = try coordinator.addPersistentStore(
                        type: .postgres, at: url, options: [.persistentHistoryTracking: true])
                    try coordinator.remove(store)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        let finished = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: done.wait(timeout: .now() + 120)) }
        }
        #expect(finished == .success, "the openings did not finish within 120 s")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    }

    @Test func aRemovedStoreStopsListening() async throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let reader = try Self.coordinator("removed", in: folder)
        let store = try #require(reader.persistentStores.first)
        try reader.remove(store)
        #expect(store.connectionState?.status == .closed)
        #expect(store.remoteChangeAnnouncements() == nil)
    }
}
