import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Predicate errors")
struct PredicateErrorTests {
    private func parseError(_ format: String, _ arguments: Any?...) -> ObjectPredicateError? {
        do {
            _ = try ObjectPredicate(format: format, argumentArray: arguments)
            return nil
        } catch let error as ObjectPredicateError {
            return error
        } catch {
            return nil
        }
    }

    @Test func unexpectedTokenReportsOffsetLineColumnAndExpectation() throws {
        let error = try #require(parseError("name == \"Ann\" AND"))
        #expect(error.code == .unexpectedToken)
        #expect(error.offset == 17)
        #expect(error.line == 1)
        #expect(error.column == 18)
        #expect(error.expected == "an expression")
    }

    @Test func lineAndColumnCountFromTheLastNewline() throws {
        let error = try #require(parseError("name == 'a'\n  AND age >> 3"))
        #expect(error.code == .unexpectedToken)
        #expect(error.line == 2)
        #expect(error.column == 12)
        #expect(error.offset == 23)
        #expect(error.sourceLine == "  AND age >> 3")
    }

    @Test func descriptionShowsTheLineAndACaret() throws {
        let error = try #require(parseError("age == 1 )"))
        let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("unexpectedToken: unexpected ')'"))
        #expect(lines[0].contains("(line 1, column 10)"))
        #expect(lines[1] == "    age == 1 )")
        #expect(lines[2] == "             ^")
    }

    @Test func unterminatedStringPointsAtTheOpeningQuote() throws {
        let error = try #require(parseError("name == 'Ann"))
        #expect(error.code == .unterminatedString)
        #expect(error.offset == 8)
    }

    @Test func invalidEscapePointsAtTheBackslash() throws {
        let error = try #require(parseError(#"name == "a\qb""#))
        #expect(error.code == .invalidEscape)
        #expect(error.offset == 10)
    }

    @Test func missingAndExtraArgumentsAreErrors() throws {
        let missing = try #require(parseError("a == %@ AND b == %@", 1))
        #expect(missing.code == .missingArgument)
        #expect(missing.offset == 17)
        let extra = try #require(parseError("a == %@", 1, 2))
        #expect(extra.code == .extraArgument)
    }

    @Test func unknownFunctionNamesTheFunction() throws {
        let error = try #require(parseError("frobnicate(a) == 1"))
        #expect(error.code == .unknownFunction)
        #expect(error.offset == 0)
        #expect(error.message.contains("frobnicate"))
    }

    @Test func invalidRegularExpressionPointsAtThePattern() throws {
        let error = try #require(parseError("name MATCHES '(['"))
        #expect(error.code == .invalidRegularExpression)
        #expect(error.offset == 13)
        // Refused patterns are remembered: the second time answers the same, and a valid one still compiles.
        let again = try #require(parseError("name MATCHES '(['"))
        #expect(again.code == .invalidRegularExpression)
        #expect(again.offset == 13)
        #expect(try ObjectPredicate(format: "name MATCHES '[(]'").evaluate(with: ["name": "("]))
    }

    @Test func equalityComparesTheCodeOnly() {
        let a = ObjectPredicateError(.typeMismatch, "one message", offset: 1)
        let b = ObjectPredicateError(.typeMismatch, "another", offset: 99, key: "k")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ObjectPredicateError(.unknownKey, "one message", offset: 1))
        #expect(ObjectPredicateError.Code.nestingTooDeep.description == "nestingTooDeep")
    }

    @Test func unboundVariableNamesTheVariable() throws {
        let predicate = try ObjectPredicate(format: "name == $who")
        let error = #expect(throws: ObjectPredicateError.self) { try predicate.evaluate(with: ["name": "x"]) }
        #expect(error?.code == .unboundVariable)
        #expect(error?.variableName == "who")
        #expect(error?.message.contains("$who") == true)
    }

    @Test func toManyErrorNamesTheKeyPathAndSuggestsAny() throws {
        let predicate = try ObjectPredicate(format: "pets.name == 'Rex'")
        let error = #expect(throws: ObjectPredicateError.self) {
            try predicate.evaluate(with: PredicateFixtures.people()[0])
        }
        #expect(error?.code == .toManyKeyPathWithoutAggregate)
        #expect(error?.key == "pets.name")
        #expect(error?.message.contains("ANY") == true)
    }

    @Test func unknownKeyFromAnEvaluableObjectPropagates() throws {
        let predicate = try ObjectPredicate(format: "missing == 1")
        let error = #expect(throws: ObjectPredicateError.self) { try predicate.evaluate(with: TestRecord(values: [:])) }
        #expect(error?.code == .unknownKey)
        #expect(error?.key == "missing")
    }

    @Test func nestingDeeperThanTheLimitIsRejected() {
        let deep = String(repeating: "(", count: 300) + "a == 1" + String(repeating: ")", count: 300)
        #expect(parseError(deep)?.code == .nestingTooDeep)
        let nots = String(repeating: "NOT ", count: 1000) + "a == 1"
        #expect(parseError(nots)?.code == .nestingTooDeep)
        let minus = String(repeating: "-", count: 1000) + "a == 1"
        #expect(parseError(minus)?.code == .nestingTooDeep)
        let indexes = "a" + String(repeating: "[0]", count: 1000) + " == 1"
        #expect(parseError(indexes)?.code == .nestingTooDeep)
        let sums = Array(repeating: "a", count: 2000).joined(separator: " + ") + " == 1"
        #expect(parseError(sums)?.code == .nestingTooDeep)
        let braces = String(repeating: "{", count: 1000) + String(repeating: "}", count: 1000) + " == 1"
        #expect(parseError(braces)?.code == .nestingTooDeep)
    }

    @Test func nestingWithinTheLimitParsesAndEvaluates() throws {
        let depth = 200
        let format = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        let predicate = try ObjectPredicate(format: format)
        #expect(try predicate.evaluate(with: ["a": 1]))
        let nots = try ObjectPredicate(format: String(repeating: "NOT ", count: 200) + "a == 1")
        #expect(try nots.evaluate(with: ["a": 1]))
        #expect(try ObjectPredicate(format: nots.predicateFormat) == nots)
    }

    @Test func longFlatConjunctionsAreFine() throws {
        let format = (0..<3000).map { "a != \($0)" }.joined(separator: " AND ")
        let predicate = try ObjectPredicate(format: format)
        #expect(try predicate.evaluate(with: ["a": -1]))
    }

    @Test func inputLongerThanTheLimitIsRejected() {
        let long = "a == '" + String(repeating: "x", count: ObjectPredicate.maximumFormatLength) + "'"
        #expect(parseError(long)?.code == .inputTooLong)
    }

    @Test func unsupportedSubstitutionValueNamesTheVariable() throws {
        let predicate = try ObjectPredicate(format: "a == $x")
        let error = #expect(throws: ObjectPredicateError.self) {
            try predicate.withSubstitutionVariables(["x": UnsupportedArgument()])
        }
        #expect(error?.code == .unsupportedArgument)
        #expect(error?.variableName == "x")
    }

    @Test func catastrophicLikePatternsStayLinear() throws {
        let predicate = try ObjectPredicate(format: "SELF LIKE %@", String(repeating: "*a", count: 200) + "b")
        #expect(try predicate.evaluate(with: String(repeating: "a", count: 5000)) == false)
    }
}
