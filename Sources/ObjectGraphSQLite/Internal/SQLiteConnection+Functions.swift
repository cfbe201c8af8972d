import CSQLite
import Foundation
import ObjectGraph

/// Flags of the SQL functions this module registers, the raw values of Core Data's comparison options
/// (`NSComparisonPredicate.Options`): 1 case-insensitive, 2 diacritic-insensitive.
struct SQLFoldingOptions: OptionSet, Sendable {
    let rawValue: Int64
    static let caseInsensitive = SQLFoldingOptions(rawValue: 1)
    static let diacriticInsensitive = SQLFoldingOptions(rawValue: 2)

    var stringCompareOptions: String.CompareOptions {
        var options: String.CompareOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

extension SQLiteConnection {
    /// Registers the SQL functions the store's predicates compile to:
    ///
    /// - `regexp(pattern, text)`, which SQLite calls for `text REGEXP pattern`, and `regexp(pattern, text, flags)`:
    ///   1 if the *whole* text matches the ICU pattern (like `NSPredicate`'s MATCHES), else 0; NULL if an
    ///   argument is NULL; an SQL error for an invalid pattern. Compiled patterns are cached per connection.
    /// - `og_fold(text, flags)`: `text` with case and/or diacritics folded (``SQLFoldingOptions``) exactly as
    ///   the framework folds strings for `[c]`/`[d]`, then normalized to NFC, so comparing folded texts byte by
    ///   byte is Swift's canonical equivalence; NULL stays NULL.
    func registerFunctions() throws(SQLiteError) {
        let db = try openHandle()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for argumentCount: Int32 in [2, 3] {
            let cache = Unmanaged.passRetained(RegularExpressionCache()).toOpaque()
            let code = sqlite3_create_function_v2(
                db, "regexp", argumentCount, flags, cache, regexpFunction, nil, nil, releaseUserData)
            guard code == SQLITE_OK else { throw SQLiteError(connection: db, sql: "regexp()") }
        }
        let code = sqlite3_create_function_v2(db, "og_fold", 2, flags, nil, foldFunction, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(connection: db, sql: "og_fold()") }
    }
}

/// The compiled patterns of one connection. Bounded: cleared when it reaches `capacity` entries.
/// Only touched from SQLite callbacks on the connection's thread.
private final class RegularExpressionCache {
    private struct Key: Hashable {
        var pattern: String
        var options: Int64
    }

    private var expressions: [Key: NSRegularExpression] = [:]

    private let capacity = 128

    func expression(for pattern: String, options: SQLFoldingOptions) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, options: options.rawValue)
        if let expression = expressions[key] {
            return expression
        }
        // The framework's in-memory MATCHES anchoring, shared: the whole string, with alternatives kept inside the
        // group; `[d]` folds the text, never the pattern.
        let expression = try NSRegularExpression(
            pattern: RegexCache.wholeStringPattern(pattern),
            options: options.contains(.caseInsensitive) ? [.caseInsensitive] : []
        )
        if expressions.count >= capacity {
            expressions.removeAll(keepingCapacity: true)
        }
        expressions[key] = expression
        return expression
    }
}

private func string(_ value: OpaquePointer?) -> String? {
    guard let value, sqlite3_value_type(value) != SQLITE_NULL, let text = sqlite3_value_text(value) else {
        return nil
    }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
}

private func setResult(_ context: OpaquePointer?, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        let pointer = bytes.baseAddress ?? ("" as StaticString).utf8Start
        sqlite3_result_text64(
            context,
            UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self),
            UInt64(bytes.count),
            sqliteTransient,
            UInt8(SQLITE_UTF8)
        )
    }
}

private let regexpFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, argumentCount, arguments in
    guard let arguments, let userData = sqlite3_user_data(context) else { return }
    guard let pattern = string(arguments[0]), let subject = string(arguments[1]) else {
        sqlite3_result_null(context)
        return
    }
    let options = SQLFoldingOptions(rawValue: argumentCount > 2 ? sqlite3_value_int64(arguments[2]) : 0)
    let cache = Unmanaged<RegularExpressionCache>.fromOpaque(userData).takeUnretainedValue()
    do {
        let expression = try cache.expression(for: pattern, options: options)
        let text = options.contains(.diacriticInsensitive) ? SQLFolding.fold(subject, diacriticInsensitive: true) : subject
        let range = NSRange(location: 0, length: text.utf16.count)
        sqlite3_result_int(context, expression.firstMatch(in: text, options: [.anchored], range: range) == nil ? 0 : 1)
    } catch {
        sqlite3_result_error(context, "REGEXP: invalid regular expression", -1)
    }
}

private let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments, let text = string(arguments[0]) else {
        sqlite3_result_null(context)
        return
    }
    let options = SQLFoldingOptions(rawValue: sqlite3_value_int64(arguments[1]))
    setResult(context, SQLFolding.fold(text, caseInsensitive: options.contains(.caseInsensitive),
                                          diacriticInsensitive: options.contains(.diacriticInsensitive)))
}

private let releaseUserData: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userData in
    guard let userData else { return }
    Unmanaged<AnyObject>.fromOpaque(userData).release()
}
