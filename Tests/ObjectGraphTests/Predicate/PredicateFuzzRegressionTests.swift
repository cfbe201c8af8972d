import ObjectGraph
import Testing

/// Inputs found by the predicate fuzzer (`scripts/fuzz.sh predicate`), kept as tests.
@Suite("Predicate fuzz regressions")
struct PredicateFuzzRegressionTests {
    /// 129 nested unary minus signs are 129 levels, within `maximumNestingDepth` (256), but the canonical form
    /// prints each as `-(…)`, and the parser counted one level for the minus and one for the parenthesis, so it did
    /// not parse again: `predicateFormat` promises a form that parses to an equal predicate. `-(` is now one level.
    @Test(arguments: [129, 200, 250])
    func canonicalFormOfDeeplyNestedUnaryMinusParsesAgain(count: Int) throws {
        for operand in ["1", "x", "1.5", "$V", "(1)[0]"] {
            let predicate = try ObjectPredicate(format: String(repeating: "-", count: count) + operand + " == 1")
            let reparsed = try ObjectPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "\(predicate.predicateFormat)")
        }
    }

    /// 128 minus signs print as 256 levels: the deepest that still round-trips.
    @Test func canonicalFormOfUnaryMinusAtTheLimitParsesAgain() throws {
        let predicate = try ObjectPredicate(format: String(repeating: "-", count: 128) + "1 == 1")
        #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate)
    }

    /// `-(` counts as one level, whatever the parentheses hold: as deep as the limit (of the tree height too), no
    /// deeper.
    @Test func negatedParenthesesCountOneLevelEach() throws {
        func nested(_ count: Int) -> String {
            String(repeating: "-(", count: count) + "x" + String(repeating: ")", count: count) + " == 1"
        }
        let predicate = try ObjectPredicate(format: nested(254))  // 254 minus, the key path and the comparison: 256
        #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate)
        #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: nested(257)) }
    }

    /// The same for a minus before a power: `-2 ** -2 ** …` (two levels a link) printed every link as
    /// `-(2 ** (-(…)))`, four levels a link. The exponent is read as a unary expression, so it now prints without
    /// parentheses unless it is a sum or a product: `-(2 ** -(…))`, two levels a link.
    @Test func canonicalFormOfLongNegatedPowerChainsParsesAgain() throws {
        for base in ["2", "x", "1.5", "(1)[0]"] {
            let predicate = try ObjectPredicate(format: String(repeating: "-\(base) ** ", count: 120) + "2 == 1")
            #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate)
        }
    }

    @Test(arguments: [
        ("-(-1) == 1", "-(-1) == 1"), ("--x == 1", "-(-x) == 1"), ("-(2 ** 2) == 1", "-(2 ** 2) == 1"),
        ("2 ** -1 == 1", "2 ** -1 == 1"), ("2 ** (-x) == 1", "2 ** -x == 1"),
        ("2 ** (1 + 1) == 1", "2 ** (1 + 1) == 1"),
        ("2 ** (3 * x) == 1", "2 ** (3 * x) == 1"), ("2 ** (-1 ** 3) == 1", "2 ** -(1 ** 3) == 1"),
        ("2 ** ((-1) ** 3) == 1", "2 ** (-1) ** 3 == 1"), ("2 ** 3 ** 4 == 1", "2 ** 3 ** 4 == 1"),
        ("(2 ** 3) ** 4 == 1", "(2 ** 3) ** 4 == 1"), ("-(1)[0] == 1", "-(1[0]) == 1"), ("-(x)[0] == 1", "-x[0] == 1"),
    ])
    func canonicalFormsOfMinusAndPower(format: String, canonical: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(predicate.predicateFormat == canonical)
        #expect(try ObjectPredicate(format: canonical) == predicate)
    }

    /// The negation of a subscripted number, `-(1)[0]`, printed as `-1[0]`: a negative literal followed by a
    /// subscript, which the parser refused (`unexpectedToken` at the `[`). The negation of an operand whose text
    /// starts with an unsigned number now keeps its parentheses: `-(1[0])`.
    @Test(arguments: [
        "-(1)[0] == 1", "-(0.5)[0] == 1", "-(0)[cd] / -(0) != -(0)", "-(1)[0][1] == 1", "-(1).key == 1",
        "-(1)[0].key == 1", "-(-1)[0] == 1", "-(1 + 2)[0] == 1", "-(2)[FIRST] == 1", "-(1)[0] ** 2 == 1",
    ])
    func canonicalFormOfNegatedSubscriptedNumberParsesAgain(format: String) throws {
        let predicate = try ObjectPredicate(format: format)
        let reparsed = try ObjectPredicate(format: predicate.predicateFormat)
        #expect(reparsed == predicate, "\(predicate.predicateFormat)")
    }

    /// `CAST('11e3089\0…', 'NSDate')` read the string's digits up to the NUL as a number (C's `strtod` stops at a
    /// NUL), overflowed to an infinite date, and printed it as `CAST(inf, "NSDate")`, where `inf` reads as a key
    /// path. Text with a NUL, and NaN (which equals nothing, not even itself), are no numbers now.
    @Test(arguments: [
        "bay > CAST('11e3089\0\0\0\0\0\0\01T\u{7}E:00:00+02:00', 'NSDate')", "x == CAST('12\0x', 'NSNumber')",
        "x == CAST('12\0x', 'NSDecimalNumber')", "x == CAST('nan', 'NSNumber')", "x == CAST('NaN', 'NSDecimalNumber')",
        "x > CAST('nan', 'NSDate')",
    ])
    func textWithANulOrNaNIsNoNumber(format: String) {
        let error = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: format) }
        #expect(error?.code == .invalidCast)
    }

    /// A NaN number is no date either, when a cast meets it at evaluation; infinities are.
    @Test func aNaNNumberIsNoDate() throws {
        let predicate = try ObjectPredicate(format: "CAST(x, 'NSDate') != nil")
        let error = #expect(throws: ObjectPredicateError.self) { try predicate.evaluate(with: ["x": Double.nan]) }
        #expect(error?.code == .invalidCast)
        #expect(try predicate.evaluate(with: ["x": Double.infinity]))
    }

    /// Infinite dates (an overflowing number in a string) print through a string, as infinite doubles do, and parse
    /// back equal.
    @Test(arguments: ["x > CAST('1e400', 'NSDate')", "x > CAST('-1e400', 'NSDate')",
                      "x > CAST(CAST('inf', 'NSNumber'), 'NSDate')", "x == CAST('1e400', 'NSNumber')"])
    func infiniteDatesAndNumbersPrintInAFormThatParsesBack(format: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(!predicate.predicateFormat.contains("CAST(inf") && !predicate.predicateFormat.contains("CAST(-inf"))
        #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate, "\(predicate.predicateFormat)")
    }
}
