import AlmanacWire
import Foundation
import ObjectGraph

extension QueryEngine {
    /// The author the daemon records in persistent history for a client's write: the client's uid and the
    /// request's id, e.g. `uid:1000 request:8`.
    public static func historyAuthor(peer: PeerCredentials, requestID: JSONValue) -> String {
        "uid:\(peer.isKnown ? String(peer.uid) : "unknown") request:\(requestID.encodedString())"
    }

    /// `history`: the transactions of the stores that keep history (the personal store) after a token.
    ///
    /// - Throws: `bad_request` (field `after`) for text that is not a token, `history_expired` for a token older
    ///   than the history kept.
    func history(_ request: WireRequest.History) throws(WireError) -> WireResponse.History {
        var token: PersistentHistoryToken?
        if let after = request.after {
            guard let parsed = PersistentHistoryToken(stringValue: after) else {
                throw .badRequest("\"after\" is not a history token (a \"token\" of an earlier answer)", field: "after")
            }
            token = parsed
        }
        let coordinator = library.coordinator
        return try reading {
            guard coordinator.persistentStores.contains(where: \.isTrackingPersistentHistory) else {
                return WireResponse.History()
            }
            let fetch = PersistentHistoryChangeRequest.fetchHistory(after: token)
            fetch.fetchLimit = request.limit ?? 0
            let transactions = try coordinator.fetchHistory(fetch)
            var next = token ?? PersistentHistoryToken(transactionNumbers: [:])
            if transactions.isEmpty, let current = coordinator.currentPersistentHistoryToken() {
                next = next.merging(current)
            }
            for transaction in transactions { next = next.merging(transaction.token) }
            return WireResponse.History(transactions: transactions.map(Self.wireTransaction), token: next.stringValue)
        }
    }

    private static func wireTransaction(_ transaction: PersistentHistoryTransaction) -> WireResponse.HistoryTransaction
    {
        WireResponse.HistoryTransaction(
            token: transaction.token.stringValue, store: transaction.storeID,
            timestamp: WireDate.string(from: transaction.timestamp), author: transaction.author,
            changes: transaction.changes.map { change in
                WireResponse.HistoryChange(
                    type: change.changeType.description,
                    uri: change.changedObjectID.uriRepresentation().absoluteString,
                    entity: change.changedObjectID.entityName, updated: change.updatedProperties.map { $0.sorted() })
            })
    }
}
