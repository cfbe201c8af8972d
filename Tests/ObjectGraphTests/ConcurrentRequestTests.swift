import Dispatch
import Foundation
import ObjectGraph
import Synchronization
import Testing
@testable import ObjectGraphTestSupport

/// A value several threads share (a `Mutex` in a class, so escaping closures can capture it).
private final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}

/// Reads share the coordinator, writes have it alone: what `performReading` and `performAndWait` promise.
@Suite("Concurrent requests")
struct ConcurrentRequestTests {
    /// Runs `body` on a thread of its own; the returned group is left when it returns.
    private func onThread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread.detachNewThread {
            body()
            group.leave()
        }
    }

    private func wait(_ group: DispatchGroup) {
        #expect(group.wait(timeout: .now() + 60) == .success, "threads did not finish")
    }

    @Test func readersRunAtTheSameTime() throws {
        let coordinator = Fixture().coordinator
        let firstInside = DispatchSemaphore(value: 0)
        let secondInside = DispatchSemaphore(value: 0)
        let sawEachOther = Shared<[Bool]>([])
        let group = DispatchGroup()
        onThread(group) {
            coordinator.performReading {
                firstInside.signal()
                let met = secondInside.wait(timeout: .now() + 10) == .success
                sawEachOther.update { $0.append(met) }
            }
        }
        onThread(group) {
            coordinator.performReading {
                secondInside.signal()
                let met = firstInside.wait(timeout: .now() + 10) == .success
                sawEachOther.update { $0.append(met) }
            }
        }
        wait(group)
        #expect(sawEachOther.value == [true, true])
    }

    @Test func aWriterWaitsForTheReadersInsideAndKeepsNewOnesOut() throws {
        let coordinator = Fixture().coordinator
        let log = Shared<[String]>([])
        let readerInside = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        onThread(group) {
            coordinator.performReading {
                readerInside.signal()
                Thread.sleep(forTimeInterval: 0.2)
                log.update { $0.append("first reader done") }
            }
        }
        readerInside.wait()
        onThread(group) {
            coordinator.performAndWait {
                log.update { $0.append("writer in") }
                Thread.sleep(forTimeInterval: 0.2)
                log.update { $0.append("writer out") }
            }
        }
        // The writer is waiting for the first reader by now (it has 0.1 s to get there); a new reader queues
        // behind it rather than overtaking it.
        Thread.sleep(forTimeInterval: 0.1)
        onThread(group) {
            coordinator.performReading { log.update { $0.append("second reader") } }
        }
        wait(group)
        #expect(log.value == ["first reader done", "writer in", "writer out", "second reader"])
    }

    @Test func requestsNestInsideReadsAndWrites() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        context.makeSession("a")
        try fixture.coordinator.performAndWait {
            try context.save()
            // A read inside a write, and a write inside a write.
            let inside = try fixture.coordinator.performReading { try fixture.context().all("Session").count }
            #expect(inside == 1)
            context.makeSession("b")
            try fixture.coordinator.performAndWait { try context.save() }
        }
        let count = try fixture.coordinator.performReading {
            try fixture.coordinator.performReading {
                try fixture.context().count(for: FetchRequest(entityName: "Session"))
            }
        }
        #expect(count == 2)
    }

    /// Readers on four threads count the sessions of two stores while a writer saves ten at a time, five into each
    /// store: a reader sees every save whole or not at all, and the stores (one SQLite, whose reads come one at a
    /// time) answer every read.
    @Test(arguments: [StoreKind.inMemory, StoreKind.sqlite, StoreKind.binary])
    func readersSeeEachMultiStoreSaveWholeOrNotAtAll(_ kind: StoreKind) throws {
        let fixture = Fixture(kind)
        let first = try fixture.addStore("first")
        let second = try fixture.addStore("second")
        let coordinator = fixture.coordinator
        let saves = 12
        let done = Shared(false)
        let counts = Shared<[Int]>([])
        let failures = Shared<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<4 {
            onThread(group) {
                while !done.value {
                    do {
                        let (count, fetched) = try coordinator.performReading {
                            let context = ManagedObjectContext(coordinator: coordinator)
                            let request = FetchRequest(entityName: "Session")
                            request.sortKeys = [SortKey("guid")]
                            let count = try context.count(for: request)
                            let guids = try context.fetch(request).map { $0.value(forKey: "guid") as? String ?? "" }
                            return (count, guids)
                        }
                        counts.update { $0.append(count) }
                        if fetched.count != count || Set(fetched).count != count || fetched != fetched.sorted() {
                            failures.update { $0.append("count \(count) but fetched \(fetched.count)") }
                        }
                    } catch {
                        failures.update { $0.append("\(error)") }
                    }
                }
            }
        }
        onThread(group) {
            do {
                for save in 0..<saves {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    for index in 0..<10 {
                        let session = context.makeSession(String(format: "s%02d-%02d", save, index))
                        try context.assign(session, to: index < 5 ? first : second)
                    }
                    try context.save()
                    Thread.sleep(forTimeInterval: 0.005)
                }
            } catch {
                failures.update { $0.append("save: \(error)") }
            }
            done.update { $0 = true }
        }
        wait(group)
        #expect(failures.value.isEmpty)
        let seen = counts.value
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 % 10 == 0 }, "a reader saw half a save: \(Set(seen).sorted())")
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Session")) == saves * 10)
    }
}
