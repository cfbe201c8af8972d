import Foundation
import ObjectGraph
import Testing

/// One row of the predicate corpus: a format with its arguments, what it is evaluated against and
/// what must come out. Reusable by stores for differential tests (`target == .people` rows name the
/// fixture people a fetch must return).
struct PredicateCase: Sendable, CustomTestStringConvertible {
    enum Target: Sendable {
        /// Filter ``PredicateFixtures/people()`` and compare the names.
        case people
        /// Evaluate against one value made by the closure.
        case value(@Sendable () -> Any?)
    }

    enum Expectation: Sendable {
        /// The names (full names) of the people that match.
        case names(Set<String>)
        /// The result against a ``Target/value(_:)`` target.
        case result(Bool)
        /// Parsing fails with this code.
        case parseError(ObjectPredicateError.Code)
        /// Parsing succeeds; evaluation (against the first person, or the value) fails with this code.
        case evaluationError(ObjectPredicateError.Code)
    }

    let format: String
    let arguments: [(any Sendable)?]
    let variables: [String: (any Sendable)?]
    let target: Target
    let expectation: Expectation
    /// The expected ``ObjectPredicate/predicateFormat``; nil to skip the check.
    let canonical: String?
    let roundTrips: Bool

    var testDescription: String { format }

    var argumentArray: [Any?] { arguments.map { $0.map { $0 as Any } } }
    var variableDictionary: [String: Any?] { variables.mapValues { $0.map { $0 as Any } } }
}

/// Builds a people row. `initials` uses A B C D E S (see ``PredicateFixtures/initials``), "" for none,
/// "*" for everyone. `canonical: "="` means the canonical form is the format itself.
func P(
    _ format: String, _ initials: String, args: [(any Sendable)?] = [], vars: [String: (any Sendable)?] = [:],
    canonical: String? = nil
) -> PredicateCase {
    let names: Set<String> =
        initials == "*"
        ? PredicateFixtures.allNames : Set(initials.compactMap { PredicateFixtures.initials[$0] })
    precondition(initials == "*" || names.count == initials.count, "bad initials \(initials)")
    return PredicateCase(
        format: format, arguments: args, variables: vars, target: .people, expectation: .names(names),
        canonical: canonical == "=" ? format : canonical, roundTrips: true)
}

/// Builds a row evaluated against one value.
func V(
    _ format: String, _ value: @escaping @Sendable () -> Any?, _ result: Bool, args: [(any Sendable)?] = [],
    canonical: String? = nil, roundTrips: Bool = true
) -> PredicateCase {
    PredicateCase(
        format: format, arguments: args, variables: [:], target: .value(value), expectation: .result(result),
        canonical: canonical == "=" ? format : canonical, roundTrips: roundTrips)
}

/// Builds a row whose parsing must fail with `code`.
func E(_ format: String, _ code: ObjectPredicateError.Code, args: [(any Sendable)?] = []) -> PredicateCase {
    PredicateCase(
        format: format, arguments: args, variables: [:], target: .people, expectation: .parseError(code),
        canonical: nil, roundTrips: false)
}

/// Builds a row whose evaluation over the people must fail with `code`.
func X(
    _ format: String, _ code: ObjectPredicateError.Code, args: [(any Sendable)?] = [], vars: [String: (any Sendable)?] = [:]
) -> PredicateCase {
    PredicateCase(
        format: format, arguments: args, variables: vars, target: .people, expectation: .evaluationError(code),
        canonical: nil, roundTrips: true)
}
