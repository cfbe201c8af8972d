import Foundation

/// A commit that another process, or another coordinator, made to a store this coordinator has open (Core Data's
/// `NSPersistentStoreRemoteChange` notification).
public struct PersistentStoreRemoteChange: Sendable, Hashable {
    /// The store's identifier (UUID).
    public var storeIdentifier: String
    /// The store's file.
    public var storeURL: URL?
    /// The store's history token after the change, when it tracks history: fetch the history after your last
    /// token to see what changed.
    public var historyToken: PersistentHistoryToken?

    /// Creates a remote change; stores that announce their changes make them.
    public init(storeIdentifier: String, storeURL: URL?, historyToken: PersistentHistoryToken?) {
        self.storeIdentifier = storeIdentifier
        self.storeURL = storeURL
        self.historyToken = historyToken
    }
}

extension PersistentStoreCoordinator {
    /// The remote changes of the attached stores, as they happen: each element is one store that other connections
    /// committed to since the last look (several commits may make one element).
    ///
    /// Stores that announce their changes (``PersistentStore/remoteChangeAnnouncements()``: the PostgreSQL store
    /// `LISTEN`s) push them as they come. The others are polled through ``PersistentStore/externalChangeCount()``
    /// (the SQLite store: `PRAGMA data_version`, which changes with every other connection's commit and never with
    /// this coordinator's own) every `pollingInterval` while the sequence is being iterated; stores that can do
    /// neither never appear. The sequence starts from the state when it was made, and ends when the iterating
    /// task is cancelled.
    public func remoteChanges(pollingInterval: Duration = .milliseconds(100)) -> PersistentStoreRemoteChanges {
        let announcements = performReading { persistentStores.compactMap { $0.remoteChangeAnnouncements() } }
        return PersistentStoreRemoteChanges(
            coordinator: self, pollingInterval: pollingInterval,
            baseline: externalChangeCounts(), announcements: announcements)
    }

    /// Each attached store's external change count, by identifier; stores that cannot tell are left out.
    func externalChangeCounts() -> [String: UInt64] {
        performReading {
            var counts: [String: UInt64] = [:]
            for store in persistentStores {
                if let count = try? store.serializingReads({ try store.externalChangeCount() }) {
                    counts[store.identifier] = count
                }
            }
            return counts
        }
    }
}

/// The `AsyncSequence` of ``PersistentStoreCoordinator/remoteChanges(pollingInterval:)``.
public struct PersistentStoreRemoteChanges: AsyncSequence, Sendable {
    public typealias Element = PersistentStoreRemoteChange

    let coordinator: PersistentStoreCoordinator
    let pollingInterval: Duration
    let baseline: [String: UInt64]
    /// The streams of the stores that announce their changes.
    let announcements: [AsyncStream<PersistentStoreRemoteChange>]

    public func makeAsyncIterator() -> AsyncIterator {
        let poller = Poller(coordinator: coordinator, pollingInterval: pollingInterval, known: baseline)
        guard !announcements.isEmpty else { return AsyncIterator(poller: poller) }
        // One announcing store and nothing to poll: its stream as it is, without a task in between.
        if announcements.count == 1, baseline.isEmpty {
            return AsyncIterator(merged: announcements[0].makeAsyncIterator())
        }
        // Announced changes and polled ones meet in one stream; its end (cancellation) stops the feeding tasks.
        let (merged, continuation) = AsyncStream.makeStream(
            of: PersistentStoreRemoteChange.self, bufferingPolicy: .bufferingNewest(1024))
        var feeders = announcements.map { stream in
            Task {
                for await change in stream { continuation.yield(change) }
            }
        }
        if !baseline.isEmpty {
            feeders.append(
                Task { [poller] in
                    var poller = poller
                    while let change = await poller.next() { continuation.yield(change) }
                })
        }
        continuation.onTermination = { [feeders] _ in
            for feeder in feeders { feeder.cancel() }
        }
        return AsyncIterator(merged: merged.makeAsyncIterator())
    }

    /// Gives the next change, announced or polled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var poller: Poller?
        private var merged: AsyncStream<PersistentStoreRemoteChange>.Iterator?

        init(poller: Poller) {
            self.poller = poller
        }

        init(merged: AsyncStream<PersistentStoreRemoteChange>.Iterator) {
            self.merged = merged
        }

        /// The next change; `nil` once the task is cancelled.
        public mutating func next() async -> PersistentStoreRemoteChange? {
            if merged != nil { return await merged?.next() }
            return await poller?.next()
        }
    }

    /// Looks at the stores that are polled until one changed.
    struct Poller: Sendable {
        let coordinator: PersistentStoreCoordinator
        let pollingInterval: Duration
        var known: [String: UInt64]
        var ready: [PersistentStoreRemoteChange] = []

        /// The next change; `nil` once the task is cancelled.
        mutating func next() async -> PersistentStoreRemoteChange? {
            while !Task.isCancelled {
                if !ready.isEmpty { return ready.removeFirst() }
                let counts = coordinator.externalChangeCounts()
                for (identifier, count) in counts.sorted(by: { $0.key < $1.key }) {
                    defer { known[identifier] = count }
                    guard let previous = known[identifier], previous != count,
                        let store = coordinator.persistentStore(withIdentifier: identifier)
                    else { continue }
                    ready.append(
                        PersistentStoreRemoteChange(
                            storeIdentifier: identifier, storeURL: store.url,
                            historyToken: store.isTrackingPersistentHistory
                                ? coordinator.currentPersistentHistoryToken(fromStores: [store]) : nil))
                }
                if !ready.isEmpty { continue }
                try? await Task.sleep(for: pollingInterval)
            }
            return nil
        }
    }
}
