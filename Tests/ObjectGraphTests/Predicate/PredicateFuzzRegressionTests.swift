import ObjectGraph
import Testing

/// Inputs found by the predicate fuzzer (`scripts/fuzz.sh predicate`), kept as tests.
@Suite("Predicate fuzz regressions")
struct PredicateFuzzRegressionTests {
    /// 129 nested unary minus signs are 129 levels, within `maximumNestingDepth` (256), but the canonical form
    /// prints each as `-(…)`, one level for the minus and one for the parenthesis, so it does not parse again:
    /// `predicateFormat` promises a form that parses to an equal predicate. Known issue until the formatter stops
    /// parenthesising a unary minus whose operand needs none (or the parser counts `-(` as one level).
    @Test func canonicalFormOfDeeplyNestedUnaryMinusParsesAgain() throws {
        let predicate = try ObjectPredicate(format: String(repeating: "-", count: 129) + "1 == 1")
        withKnownIssue("the canonical form nests twice as deep as the input") {
            let reparsed = try ObjectPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate)
        }
    }

    /// 128 minus signs print as 256 levels: the deepest that still round-trips.
    @Test func canonicalFormOfUnaryMinusAtTheLimitParsesAgain() throws {
        let predicate = try ObjectPredicate(format: String(repeating: "-", count: 128) + "1 == 1")
        #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate)
    }

    /// The negation of a subscripted number, `-(1)[0]`, prints as `-1[0]`: a negative literal followed by a
    /// subscript, which the parser refuses (`unexpectedToken` at the `[`). Known issue until the formatter keeps the
    /// parentheses around a literal that is subscripted.
    @Test(arguments: ["-(1)[0] == 1", "-(0.5)[0] == 1", "-(0)[cd] / -(0) != -(0)"])
    func canonicalFormOfNegatedSubscriptedNumberParsesAgain(format: String) throws {
        let predicate = try ObjectPredicate(format: format)
        withKnownIssue("the canonical form drops the parentheses around the subscripted literal") {
            let reparsed = try ObjectPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate)
        }
    }
}
