import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

@Suite struct SQLiteFunctionTests {
    private func evaluate(_ sql: String, _ arguments: [SQLValue?] = []) throws -> SQLValue {
        let connection = try SQLiteConnection(path: ":memory:")
        let statement = try connection.prepare(sql)
        try statement.bind(arguments)
        #expect(try statement.step() == .row)
        return statement.value(at: 0)
    }

    @Test(arguments: [
        ("abc", "abc", 1), ("abc", "b", 0), ("abc", "a.*", 1), ("abcd", "abc", 0), ("xabc", "abc", 0),
        ("ab", "a|ab", 1), ("abc\n", "abc", 0), ("ABC", "abc", 0), ("ABC", "(?i)abc", 1), ("", "", 1),
        ("Grüße", "Gr.ße", 1), ("😀", ".", 1), ("a.b", "\\Qa.b", 1), ("a.bc", "\\Qa.b", 0), ("axb", "\\Qa.b", 0),
    ])
    func regexpMatchesTheWholeString(text: String, pattern: String, expected: Int64) throws {
        #expect(try evaluate("SELECT ? REGEXP ?", [.text(text), .text(pattern)]) == .integer(expected))
    }

    @Test func regexpWithFlagsFoldsCaseAndDiacritics() throws {
        #expect(try evaluate("SELECT regexp('cafe', 'CAFÉ', 1)") == .integer(0))
        #expect(try evaluate("SELECT regexp('cafe', 'CAFÉ', 3)") == .integer(1))
        #expect(try evaluate("SELECT regexp('cafe', 'café', 2)") == .integer(1))
    }

    @Test(
        arguments: ["Straße", "ÉCOLE", "ǅemal", "cafe\u{301}", "plain ascii", "ÅNGSTRÖM", "İstanbul"],
        [1, 2, 3] as [Int64])
    func foldIsTheFrameworksFoldingInNFC(text: String, flags: Int64) throws {
        let folded = StringFolding.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
        let expected = folded.precomposedStringWithCanonicalMapping
        #expect(try evaluate("SELECT og_fold(?, ?)", [.text(text), .integer(flags)]) == .text(expected))
    }

    @Test func foldMeetsWhatItShould() throws {
        #expect(try evaluate("SELECT og_fold('Straße', 1)") == .text("strasse"))
        #expect(try evaluate("SELECT og_fold('ÉCOLE', 3)") == .text("ecole"))
        #expect(try evaluate("SELECT og_fold('ÉCOLE', 2)") == .text("ECOLE"))
        #expect(try evaluate("SELECT og_fold(?, 0)", [.text("cafe\u{301}")]) == .text("café"))
    }

    @Test func regexpWithNullIsNull() throws {
        #expect(try evaluate("SELECT NULL REGEXP 'a'") == .null)
        #expect(try evaluate("SELECT 'a' REGEXP NULL") == .null)
    }

    @Test func invalidPatternIsAnSQLError() throws {
        #expect(throws: SQLiteError.self) { try evaluate("SELECT 'a' REGEXP '('") }
    }

    @Test func regexpWorksInWhereClausesWithCachedPatterns() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (s TEXT); INSERT INTO t VALUES ('note 1'), ('note 22'), ('folder')")
        let select = try connection.prepare("SELECT count(*) FROM t WHERE s REGEXP ?")
        try select.bind("note \\d+", at: 1)
        #expect(try select.step() == .row)
        #expect(select.int64(at: 0) == 2)
    }

    @Test func foldRemovesCaseAndDiacriticsAsAsked() throws {
        #expect(try evaluate("SELECT og_fold('Crème Brûlée', 0)") == .text("Crème Brûlée"))
        #expect(try evaluate("SELECT og_fold('Crème Brûlée', 1)") == .text("crème brûlée"))
        #expect(try evaluate("SELECT og_fold('Crème Brûlée', 2)") == .text("Creme Brulee"))
        #expect(try evaluate("SELECT og_fold('Crème Brûlée', 3)") == .text("creme brulee"))
        #expect(try evaluate("SELECT og_fold(NULL, 3)") == .null)
        #expect(try evaluate("SELECT og_fold('', 3)") == .text(""))
    }
}
