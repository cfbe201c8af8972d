import Foundation
import ObjectGraph
@testable import ObjectGraphTestSupport

/// Builds random syntax trees in the shapes the parser produces, for the round-trip property test.
struct RandomPredicateBuilder {
    var random: SeededGenerator

    private static let keys = ["name", "age", "score", "size", "first", "in", "tags", "pets", "x_1", "Ünï", "count"]
    private static let variables = ["v", "limit", "NAME", "x2"]
    private static let strings = [
        "", "a", "Ann", "with \"quotes\"", "it's", "back\\slash", "tab\tnew\nline", "é", "e\u{301}", "😀", "%@", "\u{1}",
        "日本",
    ]

    private mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func predicate(depth: Int) -> ObjectPredicate.Node {
        let roll = depth <= 0 ? 100 : Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<12:
            return .and((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth - 1) })
        case 12..<24:
            return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth - 1) })
        case 24..<32: return .not(predicate(depth: depth - 1))
        case 32..<35: return chance(50) ? .true : .false
        default: return comparison(depth: depth)
        }
    }

    private mutating func comparison(depth: Int) -> ObjectPredicate.Node {
        var op = pick(ComparisonOperator.allCases)
        let left = expression(depth: depth - 1)
        var right = expression(depth: depth - 1)
        if op == .matches, case .constant = right { right = .constant(.string("[a-z]+.*")) }
        if op == .matches, chance(50) { op = .like }
        var options: ComparisonOptions = []
        if chance(30) { options.insert(.caseInsensitive) }
        if chance(20) { options.insert(.diacriticInsensitive) }
        if chance(10) { options.insert(.normalized) }
        return .comparison(
            left: left, operator: op, right: right, modifier: pick(ComparisonModifier.allCases), options: options)
    }

    private mutating func keyPath() -> String {
        var components = [pick(Self.keys)]
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            components.append(chance(15) ? pick(["@count", "@sum", "@avg", "@min", "@max"]) : pick(Self.keys))
        }
        return components.joined(separator: ".")
    }

    mutating func constant() -> PredicateValue {
        switch Int.random(in: 0..<14, using: &random) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .integer(Int64.random(in: -1000...1000, using: &random))
        case 3: return .integer(pick([Int64.min, Int64.max, 0, -1]))
        case 4: return .double(Double.random(in: -1e6...1e6, using: &random))
        case 5: return .double(pick([1e300, -2.5e-300, 0.1, 1.0, -0.0, 123456789.125]))
        case 6: return .decimal(Decimal(Int.random(in: -99999...99999, using: &random)) / 100)
        case 7, 8: return .string(pick(Self.strings))
        case 9: return .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)))
        case 10: return .uuid(UUID())
        case 11:
            return .data(
                Data((0..<Int.random(in: 0...5, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            )
        case 12: return .url(URL(string: pick(["https://example.com/a?b=1", "file:///tmp/x%20y", "mailto:a@b.c"]))!)
        default:
            return .array(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    .integer(Int64.random(in: -5...5, using: &random))
                })
        }
    }

    /// A non-constant expression (for positions where a constant would be folded).
    private mutating func dynamic(depth: Int) -> ObjectExpression {
        chance(60) ? .keyPath(keyPath()) : .variable(pick(Self.variables))
    }

    mutating func expression(depth: Int) -> ObjectExpression {
        let roll = depth <= 0 ? Int.random(in: 0..<40, using: &random) : Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<15: return .constant(constant())
        case 15..<30: return .keyPath(keyPath())
        case 30..<34: return .variable(pick(Self.variables))
        case 34..<38: return .evaluatedObject
        case 38..<40: return .member(of: .variable(pick(Self.variables)), keyPath: keyPath())
        case 40..<52:
            return .arithmetic(
                pick(ObjectExpression.ArithmeticOperator.allCases), expression(depth: depth - 1),
                expression(depth: depth - 1))
        case 52..<57:
            return .negate(
                chance(30)
                    ? .constant(.integer(Int64.random(in: -9...9, using: &random))) : expression(depth: depth - 1))
        case 57..<63:
            let name = pick(["now", "lowercase", "uppercase", "abs", "sqrt", "count", "sum", "average", "min", "max"])
            let count =
                name == "now"
                ? 0
                : (["count", "sum", "average", "min", "max"].contains(name) ? Int.random(in: 1...3, using: &random) : 1)
            return .function(name, (0..<count).map { _ in expression(depth: depth - 1) })
        case 63..<68:
            let index: ObjectExpression.Index =
                switch Int.random(in: 0..<4, using: &random) {
                case 0: .first
                case 1: .last
                case 2: .size
                default: .position(expression(depth: depth - 1))
                }
            return .index(dynamic(depth: depth - 1), index)
        case 68..<72:
            return .aggregate([dynamic(depth: depth - 1), expression(depth: depth - 1)])
        case 72..<76:
            return .cast(dynamic(depth: depth - 1), pick(ObjectExpression.CastType.allCases))
        case 76..<80:
            let variable = pick(Self.variables)
            let sub = ObjectExpression.subquery(
                collection: .keyPath(keyPath()), variable: variable, predicate: predicate(depth: depth - 1))
            return chance(50) ? .member(of: sub, keyPath: "@count") : sub
        case 80..<83:
            return .member(of: .function("lowercase", [dynamic(depth: depth - 1)]), keyPath: keyPath())
        default:
            return .keyPath(keyPath())
        }
    }
}
