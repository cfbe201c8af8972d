import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Predicate corpus")
struct PredicateCorpusTests {
    @Test func corpusCoversAtLeastThreeHundredCases() {
        #expect(PredicateCorpus.all.count >= 300)
    }

    /// Evaluates with variables through both paths (bound at compile time, and substituted into the tree)
    /// and checks that they agree.
    private func evaluate(_ predicate: ObjectPredicate, _ object: Any?, _ row: PredicateCase) throws -> Bool {
        if row.variables.isEmpty {
            let result = try predicate.evaluate(with: object)
            if let dictionary = object as? [String: Any] {
                #expect(try predicate.evaluate(with: dictionary) == result, "typed dictionary path disagrees")
            }
            return result
        }
        let bound = try predicate.evaluate(with: object, substitutionVariables: row.variableDictionary)
        let substituted = try predicate.withSubstitutionVariables(row.variableDictionary).evaluate(with: object)
        #expect(bound == substituted, "substitution paths disagree for \(row.format)")
        return bound
    }

    @Test(arguments: PredicateCorpus.all)
    func corpusCase(_ row: PredicateCase) throws {
        if case .parseError(let code) = row.expectation {
            let error = #expect(throws: ObjectPredicateError.self) {
                try ObjectPredicate(format: row.format, argumentArray: row.argumentArray)
            }
            #expect(error?.code == code, "\(error.map { String(describing: $0) } ?? "no error")")
            #expect(error?.offset != nil && error?.line != nil && error?.column != nil)
            return
        }
        let predicate = try ObjectPredicate(format: row.format, argumentArray: row.argumentArray)
        if let canonical = row.canonical {
            #expect(predicate.predicateFormat == canonical)
        }
        if row.roundTrips {
            let reparsed = try ObjectPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "round trip of \(predicate.predicateFormat)")
        }
        switch row.expectation {
        case .names(let expected):
            var matched = Set<String>()
            for person in PredicateFixtures.people() where try evaluate(predicate, person, row) {
                matched.insert(person["name"] as! String)
            }
            #expect(matched == expected)
        case .result(let expected):
            guard case .value(let make) = row.target else { Issue.record("value row without value"); return }
            #expect(try evaluate(predicate, make(), row) == expected)
        case .evaluationError(let code):
            let error = #expect(throws: ObjectPredicateError.self) {
                for person in PredicateFixtures.people() { _ = try evaluate(predicate, person, row) }
            }
            #expect(error?.code == code, "\(error.map { String(describing: $0) } ?? "no error")")
        case .parseError:
            break
        }
    }
}
