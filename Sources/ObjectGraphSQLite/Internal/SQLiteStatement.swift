import CSQLite
import ObjectGraph

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// SQLite's `SQLITE_TRANSIENT`, which the C macro defines as `(sqlite3_destructor_type)-1` and Swift does not
/// import: SQLite copies the bytes before the bind call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement: bind values by 1-based index, step through rows, read columns by 0-based index.
///
/// Values always travel through bindings, never through SQL text. Not thread-safe: use it on the connection's
/// thread only, and do not keep using it after its connection is closed.
final class SQLiteStatement {
    /// The result of one ``step()``.
    enum StepResult {
        /// A row is available through the column readers.
        case row
        /// The statement has run to completion.
        case done
    }

    /// SQLite's storage class for a column of the current row.
    enum ColumnType: Equatable {
        case integer
        case real
        case text
        case blob
        case null
    }

    let handle: OpaquePointer
    let sql: String
    private let db: OpaquePointer
    /// Its connection's way of keeping binary data that may be stored outside the file.
    let externalData: ExternalBinaryData

    init(db: OpaquePointer, sql: String, externalData: ExternalBinaryData) throws(SQLiteError) {
        // The tail pointer points into the C string, so it is checked while that string is alive.
        let (code, handle, hasTail) = sql.withCString { text -> (Int32, OpaquePointer?, Bool) in
            var handle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, &tail)
            let hasTail = tail.map { $0.pointee != 0 && !String(cString: $0).allSatisfy(\.isWhitespace) } ?? false
            return (code, handle, hasTail)
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(handle)
            throw SQLiteError(connection: db, sql: sql)
        }
        guard let handle else {
            throw SQLiteError(resultCode: SQLITE_MISUSE, message: "The SQL contains no statement.", sql: sql)
        }
        if hasTail {
            sqlite3_finalize(handle)
            throw SQLiteError(
                resultCode: SQLITE_MISUSE,
                message: "prepare() takes exactly one statement; use execute(_:) for scripts.",
                sql: sql
            )
        }
        self.handle = handle
        self.sql = sql
        self.db = db
        self.externalData = externalData
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of `?` parameters.
    var parameterCount: Int32 {
        sqlite3_bind_parameter_count(handle)
    }

    // MARK: - Binding (1-based indexes)

    func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index))
    }

    func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, Int64(value)))
    }

    func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds `1` or `0`.
    func bind(_ value: Bool, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    /// Binds UTF-8 text; the empty string binds as empty text, not NULL.
    func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        var value = value
        let code = value.withUTF8 { bytes in
            // An empty buffer may have a nil base address, which SQLite would bind as NULL.
            let pointer = bytes.baseAddress ?? ("" as StaticString).utf8Start
            return sqlite3_bind_text64(
                handle,
                index,
                UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self),
                UInt64(bytes.count),
                sqliteTransient,
                UInt8(SQLITE_UTF8)
            )
        }
        try check(code)
    }

    /// Binds a blob; empty data binds as an empty blob, not NULL.
    func bind(_ value: Data, at index: Int32) throws(SQLiteError) {
        let code = value.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), sqliteTransient)
        }
        try check(code)
    }

    /// Binds `value`, or NULL when it is `nil`.
    func bind(_ value: SQLValue?, at index: Int32) throws(SQLiteError) {
        switch value {
        case nil, .null: try bindNull(at: index)
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let blob): try bind(blob, at: index)
        }
    }

    /// Binds `values` to parameters 1, 2, ….
    func bind(_ values: [SQLValue?]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    // MARK: - Running

    /// Runs the statement to its next row or to completion.
    @discardableResult
    func step() throws(SQLiteError) -> StepResult {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return .row
        case SQLITE_DONE: return .done
        default: throw SQLiteError(connection: db, sql: sql)
        }
    }

    /// Runs the statement to completion, ignoring rows, then resets it (bindings are kept).
    func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() == .row {}
    }

    /// Rewinds the statement so that it can run again; bindings are kept.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Sets every parameter back to NULL.
    func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns of the current row (0-based indexes)

    var columnCount: Int32 {
        sqlite3_column_count(handle)
    }

    func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    func columnType(at index: Int32) -> ColumnType {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column as an integer (SQLite's conversion rules apply; NULL reads as 0).
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The column as a double (SQLite's conversion rules apply; NULL reads as 0).
    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The column as a Boolean: any non-zero integer is `true`.
    func bool(at index: Int32) -> Bool {
        sqlite3_column_int64(handle, index) != 0
    }

    /// The column as text, or `nil` for NULL.
    func string(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes, or `nil` for NULL (an empty blob reads as empty data).
    func data(at index: Int32) -> Data? {
        if sqlite3_column_type(handle, index) == SQLITE_NULL { return nil }
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// The column as a ``SQLValue``, following its storage class.
    func value(at index: Int32) -> SQLValue {
        switch columnType(at: index) {
        case .integer: .integer(int64(at: index))
        case .real: .real(double(at: index))
        case .text: .text(string(at: index) ?? "")
        case .blob: .blob(data(at: index) ?? Data())
        case .null: .null
        }
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: db, sql: sql)
        }
    }
}
