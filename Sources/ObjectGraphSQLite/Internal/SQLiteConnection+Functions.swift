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
        try registerCoreDataFunctions(db)
    }

    /// Registers what Core Data's own connections provide and its files' schemas call, so that writing to a file
    /// Core Data made does not fail with "no such function" or "no such collation sequence" (Photos' and Voice
    /// Memos' stores, among others, have such triggers):
    ///
    /// - the functions its triggers for derived attributes compute with: `NSCoreDataNow()` (seconds since
    ///   2001-01-01, as dates are stored), `NSCoreDataToLower(text)`, `NSCoreDataToUpper(text)` and
    ///   `NSCoreDataCanonical(text)` (case and diacritics folded, as `canonical:` derives);
    /// - the functions its triggers tell its contexts about changed rows with (`NSCoreDataTriggerUpdateAffectedObjectValue`,
    ///   `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`, `NSCoreDataDATriggerUpdatedAffectedObjectValue`,
    ///   `NSCoreDataDATriggerMergeableString`, `NSPersistentHistoryBatchDeleteUpdateTrigger` and
    ///   `NSPersistentHistoryBatchDeleteUpdateTriggerDataBlobOperator`): here they do nothing and give NULL, since
    ///   this store computes derived values itself and contexts read saved rows again;
    /// - its collations, which indexes may name: `NSCollateNoCase`, `NSCollateNumericallyNoCase`,
    ///   `NSCollateLocaleSensitive`, `NSCollateLocaleSensitiveNoCase` and `NSCollateFinderlike`, by Swift's string
    ///   comparisons with the same options (the localized ones for the locale-sensitive collations).
    ///
    /// The names are read from Core Data's `NSSQLiteRegisterFunctions`.
    private func registerCoreDataFunctions(_ db: OpaquePointer) throws(SQLiteError) {
        let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let functions: [(name: String, arguments: Int32, flags: Int32, body: SQLFunction)] = [
            ("NSCoreDataNow", 0, SQLITE_UTF8, nowFunction),
            ("NSCoreDataToLower", 1, deterministic, lowercaseFunction),
            ("NSCoreDataToUpper", 1, deterministic, uppercaseFunction),
            ("NSCoreDataCanonical", 1, deterministic, canonicalFunction),
            ("NSCoreDataTriggerUpdateAffectedObjectValue", 5, SQLITE_UTF8, nullFunction),
            ("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", 5, SQLITE_UTF8, nullFunction),
            ("NSCoreDataDATriggerUpdatedAffectedObjectValue", 5, SQLITE_UTF8, nullFunction),
            ("NSCoreDataDATriggerMergeableString", 5, SQLITE_UTF8, nullFunction),
            ("NSPersistentHistoryBatchDeleteUpdateTrigger", -1, SQLITE_UTF8, nullFunction),
            ("NSPersistentHistoryBatchDeleteUpdateTriggerDataBlobOperator", -1, SQLITE_UTF8, nullFunction),
        ]
        for function in functions {
            let code = sqlite3_create_function_v2(
                db, function.name, function.arguments, function.flags, nil, function.body, nil, nil, nil)
            guard code == SQLITE_OK else { throw SQLiteError(connection: db, sql: "\(function.name)()") }
        }
        let collations: [(name: String, compare: SQLCollation)] = [
            ("NSCollateNoCase", noCaseCollation),
            ("NSCollateNumericallyNoCase", numericallyNoCaseCollation),
            ("NSCollateLocaleSensitive", localeSensitiveCollation),
            ("NSCollateLocaleSensitiveNoCase", localeSensitiveNoCaseCollation),
            ("NSCollateFinderlike", finderlikeCollation),
        ]
        for collation in collations {
            let code = sqlite3_create_collation_v2(db, collation.name, SQLITE_UTF8, nil, collation.compare, nil)
            guard code == SQLITE_OK else { throw SQLiteError(connection: db, sql: "COLLATE \(collation.name)") }
        }
    }
}

private typealias SQLFunction = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
private typealias SQLCollation =
    @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32

private let nowFunction: SQLFunction = { context, _, _ in
    sqlite3_result_double(context, Date().timeIntervalSinceReferenceDate)
}

private let nullFunction: SQLFunction = { context, _, _ in
    sqlite3_result_null(context)
}

/// A function of one text argument; NULL stays NULL.
private func transformText(
    _ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ transform: (String) -> String
) {
    guard let arguments, let text = string(arguments[0]) else {
        sqlite3_result_null(context)
        return
    }
    setResult(context, transform(text))
}

private let lowercaseFunction: SQLFunction = { context, _, arguments in
    transformText(context, arguments) { $0.lowercased() }
}

private let uppercaseFunction: SQLFunction = { context, _, arguments in
    transformText(context, arguments) { $0.uppercased() }
}

private let canonicalFunction: SQLFunction = { context, _, arguments in
    transformText(context, arguments) { SQLFolding.fold($0, caseInsensitive: true, diacriticInsensitive: true) }
}

/// Compares two UTF-8 texts by `compare`, mapped to SQLite's -1, 0 and 1.
private func compareTexts(
    _ leftCount: Int32, _ left: UnsafeRawPointer?, _ rightCount: Int32, _ right: UnsafeRawPointer?,
    by compare: (String, String) -> ComparisonResult
) -> Int32 {
    func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
    switch compare(text(left, leftCount), text(right, rightCount)) {
    case .orderedAscending: return -1
    case .orderedSame: return 0
    case .orderedDescending: return 1
    }
}

private let noCaseCollation: SQLCollation = { _, leftCount, left, rightCount, right in
    compareTexts(leftCount, left, rightCount, right) { $0.compare($1, options: [.caseInsensitive]) }
}

private let numericallyNoCaseCollation: SQLCollation = { _, leftCount, left, rightCount, right in
    compareTexts(leftCount, left, rightCount, right) { $0.compare($1, options: [.caseInsensitive, .numeric]) }
}

// The locale's rules through Foundation's localized comparisons: `compare(_:options:range:locale:)` with a locale
// compared bytes and ignored `.caseInsensitive` on Linux ("B" before "a").
private let localeSensitiveCollation: SQLCollation = { _, leftCount, left, rightCount, right in
    compareTexts(leftCount, left, rightCount, right) { $0.localizedCompare($1) }
}

private let localeSensitiveNoCaseCollation: SQLCollation = { _, leftCount, left, rightCount, right in
    compareTexts(leftCount, left, rightCount, right) { $0.localizedCaseInsensitiveCompare($1) }
}

private let finderlikeCollation: SQLCollation = { _, leftCount, left, rightCount, right in
    compareTexts(leftCount, left, rightCount, right) { $0.localizedStandardCompare($1) }
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
