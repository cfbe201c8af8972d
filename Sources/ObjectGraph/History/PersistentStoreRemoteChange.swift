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
}

extension PersistentStoreCoordinator {
    /// The remote changes of the attached stores, as they happen: each element is one store that other connections
    /// committed to since the last look (several commits may make one element).
    ///
    /// Stores tell through `PersistentStore/externalChangeCount()` (the SQLite store: `PRAGMA data_version`, which
    /// changes with every other connection's commit and never with this coordinator's own); stores that cannot tell
    /// never appear. The sequence looks every `pollingInterval` while it is being iterated, starting from the state
    /// when it was made, and ends when the iterating task is cancelled.
    public func remoteChanges(pollingInterval: Duration = .milliseconds(100)) -> PersistentStoreRemoteChanges {
        PersistentStoreRemoteChanges(
            coordinator: self, pollingInterval: pollingInterval,
            baseline: externalChangeCounts())
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

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(coordinator: coordinator, pollingInterval: pollingInterval, known: baseline)
    }

    /// Looks at the stores until one changed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let coordinator: PersistentStoreCoordinator
        let pollingInterval: Duration
        var known: [String: UInt64]
        var ready: [PersistentStoreRemoteChange] = []

        /// The next change; `nil` once the task is cancelled.
        public mutating func next() async -> PersistentStoreRemoteChange? {
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
