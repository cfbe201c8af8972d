import AlmanacDaemon
import AlmanacWire
import Foundation
import ObjectGraph
import Testing

/// Deadlines reach the stores: coordinator work runs on the daemon's store threads, and a request past its deadline
/// stops its store's work instead of holding a thread until it ends.
@Suite(.timeLimit(.minutes(3)))
struct StoreDeadlineTests {
    /// Notes in the personal (SQLite) store, their texts numbered.
    static let noteCount = 200_000

    static let filler = "a note written to make the text long enough to fold: the quick brown fox jumps over the dog"

    /// A predicate the SQLite store compiles to SQL that folds every row's text 24 times: over a minute of SQLite work.
    static let pathologicalPredicate = (1...24).map { #"text LIKE[cd] "*zq\#($0)x*""# }.joined(separator: " OR ")

    @Test func longSQLiteQueryAnswersTimeoutByItsDeadlineAndTheStoreStaysUsable() async throws {
        let fixture = try CoreFixture(files: [])
        defer { fixture.remove() }
        try Self.insertNotes(into: fixture.core)
        let handler = DaemonHandler(
            engine: fixture.core.engine, events: EventHub(),
            storeThreads: fixture.core.storeThreads)
        // A second, not less: the count after the interrupted query must answer within it too, and under the whole
        // suite on 2 cores a count of the 200k notes once took longer than 300 ms.
        let deadline = Duration.seconds(1)
        try await withServer(handler: handler, configure: { $0.requestTimeout = deadline }) { path, _ in
            try await withClient(path) { client in
                let started = ContinuousClock.now
                try await client.send(
                    WireRequest(
                        id: 1, op: "fetch",
                        fields: [
                            "entity": "Note", "predicate": .string(Self.pathologicalPredicate), "limit": 10,
                        ]))
                let answer = try #require(try await client.readObject())
                let elapsed = ContinuousClock.now - started
                #expect(answer["id"] == 1)
                #expect(answer["error"]?["code"] == "timeout")
                // Measured on the shared 2-core machine (debug build): the deadline plus 3-12 ms; the
                // query alone runs 80-90 s. The bound is generous: under ThreadSanitizer with the whole suite and
                // another build running (load 6 on 2 cores) the answer once came 1.2 s after the deadline.
                #expect(elapsed >= deadline)
                #expect(elapsed < deadline + .seconds(5), "answered after \(elapsed)")

                // The interrupted store answers the next requests correctly (quick ones: the deadline still holds,
                // and a sanitizer build is slow).
                try await client.send(WireRequest(id: 2, op: "count", fields: ["entity": "Note"]))
                let count = try #require(try await client.readObject())
                #expect(count["id"] == 2)
                #expect(count["count"] == .int(Int64(Self.noteCount)), "\(count)")
                try await client.send(
                    WireRequest(
                        id: 3, op: "fetch",
                        fields: [
                            "entity": "Note", "limit": 3, "properties": ["text"],
                        ]))
                let fetched = try #require(try await client.readObject())
                #expect(fetched["id"] == 3, "\(fetched)")
                let texts = try #require(fetched["objects"]?.arrayValue).compactMap {
                    $0["values"]?["text"]?.stringValue
                }
                #expect(texts.count == 3 && texts.allSatisfy { $0.hasPrefix(Self.filler) })
            }
        }
    }

    @Test func cancellingTheCallerStopsWorkOnAStoreThread() async throws {
        let pool = StoreThreadPool(threadCount: 1)
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let work = Task {
            try await pool.run {
                startedContinuation.yield()
                // Stands in for a store's scan: runs until its work is cancelled.
                while !StoreCancellation.isCurrentWorkCancelled {}
                return "stopped"
            }
        }
        for await _ in started { break }
        work.cancel()
        await #expect(throws: CancellationError.self) { try await work.value }
        // The thread is free again.
        #expect(try await pool.run { 42 } == 42)
    }

    static func insertNotes(into core: DaemonCore) throws {
        var next = 0
        let request = BatchInsertRequest(entityName: "Note") { values in
            guard next < noteCount else { return true }
            values["text"] = "\(filler) \(next)"
            next += 1
            return false
        }
        request.affectedStores = [core.personalStore]
        let result = try core.library.coordinator.execute(request)
        #expect(result.count == noteCount)
    }
}
