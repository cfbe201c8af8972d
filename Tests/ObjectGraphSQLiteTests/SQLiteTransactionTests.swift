import Foundation
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

@Suite struct SQLiteTransactionTests {
    struct Failure: Error {}

    private func makeConnection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (x INTEGER)")
        return connection
    }

    private func values(_ connection: SQLiteConnection) throws -> [Int64] {
        let select = try connection.prepare("SELECT x FROM t ORDER BY x")
        var result: [Int64] = []
        while try select.step() == .row { result.append(select.int64(at: 0)) }
        return result
    }

    private func insert(_ value: Int64, _ connection: SQLiteConnection) throws {
        let insert = try connection.prepare("INSERT INTO t VALUES (?)")
        try insert.bind(value, at: 1)
        try insert.run()
    }

    @Test func commitsWhenBodyReturns() throws {
        let connection = try makeConnection()
        let result = try connection.inTransaction {
            try insert(1, connection)
            #expect(connection.isInTransaction)
            return "done"
        }
        #expect(result == "done")
        #expect(!connection.isInTransaction)
        #expect(try values(connection) == [1])
    }

    @Test func rollsBackWhenBodyThrows() throws {
        let connection = try makeConnection()
        #expect(throws: Failure.self) {
            try connection.inTransaction {
                try insert(1, connection)
                throw Failure()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try values(connection).isEmpty)
        #expect(connection.transactionDepth == 0)
    }

    @Test func nestedSavepointRollsBackOnlyInnerWork() throws {
        let connection = try makeConnection()
        try connection.inTransaction {
            try insert(1, connection)
            do {
                try connection.inTransaction {
                    try insert(2, connection)
                    try connection.inTransaction { try insert(3, connection) }
                    throw Failure()
                }
            } catch is Failure {}
            try connection.inTransaction { try insert(4, connection) }
        }
        #expect(try values(connection) == [1, 4])
    }

    @Test func outerFailureRollsBackCommittedSavepoints() throws {
        let connection = try makeConnection()
        #expect(throws: Failure.self) {
            try connection.inTransaction {
                try connection.inTransaction { try insert(1, connection) }
                throw Failure()
            }
        }
        #expect(try values(connection).isEmpty)
    }

    @Test func sqlErrorInsideTransactionRollsBack() throws {
        let connection = try makeConnection()
        #expect(throws: SQLiteError.self) {
            try connection.inTransaction {
                try insert(1, connection)
                try connection.execute("INSERT INTO missing VALUES (1)")
            }
        }
        #expect(try values(connection).isEmpty)
    }
}
