import Foundation

/// A position in the persistent history of one or more stores: for each store, the number of the last
/// transaction it covers (Core Data's `NSPersistentHistoryToken`).
///
/// A transaction's ``PersistentHistoryTransaction/token`` names its own store and number; a token from
/// `PersistentStoreCoordinator/currentPersistentHistoryToken(fromStores:)` names every store asked about. Tokens
/// are `Codable` (keep the last one you processed, as apps keep Core Data's in their defaults) and have a string
/// form (``stringValue``) for the wire.
public struct PersistentHistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The last covered transaction number, by store identifier (the store's UUID).
    public let transactionNumbers: [String: Int64]

    /// Creates a token from transaction numbers by store identifier.
    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    /// The last covered transaction number of a store; `nil` when the token does not name the store.
    public func transactionNumber(forStoreIdentifier identifier: String) -> Int64? {
        transactionNumbers[identifier]
    }

    /// The later position of the two tokens for each store.
    public func merging(_ other: PersistentHistoryToken) -> PersistentHistoryToken {
        PersistentHistoryToken(
            transactionNumbers: transactionNumbers.merging(other.transactionNumbers, uniquingKeysWith: max))
    }

    /// The token as text: `store-identifier:number` pairs sorted by identifier and joined by commas.
    public var stringValue: String {
        transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }

    /// Reads a token's ``stringValue``; `nil` for text that is not one (an empty string is the empty token).
    public init?(stringValue: String) {
        var numbers: [String: Int64] = [:]
        for pair in stringValue.split(separator: ",", omittingEmptySubsequences: true) {
            guard let colon = pair.lastIndex(of: ":"), colon != pair.startIndex,
                let number = Int64(pair[pair.index(after: colon)...]), number >= 0
            else { return nil }
            let identifier = String(pair[..<colon])
            guard numbers.updateValue(number, forKey: identifier) == nil else { return nil }
        }
        self.transactionNumbers = numbers
    }

    public var description: String { "PersistentHistoryToken(\(stringValue))" }
}
