import Foundation

/// What the SQL stores share of persistent history: the tables have the same columns in SQLite and PostgreSQL
/// (`ZOGHISTORYTRANSACTION` and `ZOGHISTORYCHANGE`), so the query reading them, the values a change is written
/// with and the grouping of the rows read into transactions are written once, here.
package enum SQLHistoryReading {
    /// The tables' names, the same in every SQL store.
    package static let transactionsTable = "ZOGHISTORYTRANSACTION"
    package static let changesTable = "ZOGHISTORYCHANGE"
    package static let stateTable = "ZOGHISTORYSTATE"

    /// The statement reading the transactions a query selects with their changes, one row per change (a
    /// transaction without changes gives one row with a NULL change), ordered by transaction and change; and its
    /// arguments, in order. The columns: transaction number, timestamp, author, context name, change number,
    /// change type, entity name, entity key, changed columns, tombstone.
    package static func statement(for query: PersistentHistoryQuery, transactions: String, changes: String)
        -> (sql: String, arguments: [SQLValue])
    {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        if let after = query.afterTransactionNumber {
            conditions.append("Z_PK > ?")
            arguments.append(.integer(after))
        }
        if let date = query.afterDate {
            conditions.append("ZTIMESTAMP > ?")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        var selection = "SELECT Z_PK FROM \(transactions)"
        if !conditions.isEmpty { selection += " WHERE " + conditions.joined(separator: " AND ") }
        if query.limit > 0 {
            selection += " ORDER BY Z_PK LIMIT ?"
            arguments.append(.integer(Int64(query.limit)))
        }
        let sql =
            "SELECT t.Z_PK, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME, c.Z_PK, c.ZCHANGETYPE, c.ZENTITYNAME, c.ZENTITYPK, "
            + "c.ZCOLUMNS, c.ZTOMBSTONE FROM \(transactions) t LEFT JOIN \(changes) c ON c.ZTRANSACTIONID = t.Z_PK "
            + "WHERE t.Z_PK IN (\(selection)) ORDER BY t.Z_PK, c.Z_PK"
        return (sql, arguments)
    }

    /// The condition on the transactions table selecting what a cutoff deletes, and its arguments; `true` is how
    /// the dialect spells an always-true condition (`1` in SQLite, `TRUE` in PostgreSQL).
    package static func condition(for cutoff: PersistentHistoryCutoff, true: String)
        -> (sql: String, arguments: [SQLValue])
    {
        switch cutoff {
        case .throughTransactionNumber(let number): ("Z_PK <= ?", [.integer(number)])
        case .before(let date): ("ZTIMESTAMP < ?", [.real(date.timeIntervalSinceReferenceDate)])
        case .all: (`true`, [])
        }
    }

    /// The values of one change row after its transaction number, in the order of the changes table's columns
    /// `ZCHANGETYPE, ZENTITYNAME, ZENTITYPK, ZCOLUMNS, ZTOMBSTONE`.
    package static func values(of change: PersistentHistoryChange) -> [SQLValue] {
        let id = change.changedObjectID
        return [
            .integer(Int64(change.changeType.rawValue)), .text(id.entityName), .integer(id.referenceKey),
            change.updatedProperties.map { .text($0.sorted().joined(separator: ",")) } ?? .null,
            change.tombstone.map { .text(PersistentHistoryValueCoding.encode($0)) } ?? .null,
        ]
    }

    /// One row of ``statement(for:transactions:changes:)``, as a store decoded it.
    package struct Row {
        package var transactionNumber: Int64
        package var timestamp: Double
        package var author: String?
        package var contextName: String?
        /// `nil` for a transaction without changes.
        package var changeNumber: Int64?
        package var changeType: Int64
        package var entityName: String?
        package var entityKey: Int64
        package var columns: String?
        package var tombstone: String?

        package init(
            transactionNumber: Int64, timestamp: Double, author: String?, contextName: String?, changeNumber: Int64?,
            changeType: Int64, entityName: String?, entityKey: Int64, columns: String?, tombstone: String?
        ) {
            (self.transactionNumber, self.timestamp, self.author, self.contextName) =
                (transactionNumber, timestamp, author, contextName)
            (self.changeNumber, self.changeType, self.entityName, self.entityKey) =
                (changeNumber, changeType, entityName, entityKey)
            (self.columns, self.tombstone) = (columns, tombstone)
        }
    }

    /// Groups rows, in the statement's order, into transactions. A change row of an unknown type or without an
    /// entity is skipped.
    package struct Assembler {
        private let storeID: String
        private let makeID: (String, Int64) -> ManagedObjectID
        private var transactions: [PersistentHistoryTransaction] = []
        private var current: Row?
        private var changes: [PersistentHistoryChange] = []
        /// Object IDs are made from one prototype per entity: the names are looked up once.
        private var prototypes: [String: ManagedObjectID] = [:]

        /// An assembler for a store's rows; `makeID` makes the ID of an entity's object with a key.
        package init(storeID: String, makeID: @escaping (String, Int64) -> ManagedObjectID) {
            self.storeID = storeID
            self.makeID = makeID
        }

        package mutating func add(_ row: Row) {
            if current?.transactionNumber != row.transactionNumber {
                close()
                current = row
            }
            guard let changeNumber = row.changeNumber, let entityName = row.entityName,
                let type = PersistentHistoryChangeType(rawValue: Int(row.changeType))
            else { return }
            let objectID: ManagedObjectID
            if let prototype = prototypes[entityName] {
                objectID = prototype.withReferenceKey(row.entityKey)
            } else {
                objectID = makeID(entityName, row.entityKey)
                prototypes[entityName] = objectID
            }
            changes.append(
                PersistentHistoryChange(
                    changeID: changeNumber, changeType: type, changedObjectID: objectID,
                    updatedProperties: row.columns.map { Set($0.split(separator: ",").map(String.init)) },
                    tombstone: row.tombstone.flatMap(PersistentHistoryValueCoding.decode)))
        }

        /// The transactions of every row added.
        package mutating func finish() -> [PersistentHistoryTransaction] {
            close()
            return transactions
        }

        private mutating func close() {
            guard let current else { return }
            transactions.append(
                PersistentHistoryTransaction(
                    transactionNumber: current.transactionNumber,
                    timestamp: Date(timeIntervalSinceReferenceDate: current.timestamp),
                    author: current.author, contextName: current.contextName, storeID: storeID, changes: changes))
            changes.removeAll(keepingCapacity: true)
            self.current = nil
        }
    }
}
