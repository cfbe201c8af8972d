import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Predicate API")
struct PredicateAPITests {
    /// AND and OR of one to six comparisons, built with the API (parsing nests them two by two), answer as the
    /// parts do: evaluated over dictionaries (compiled closures, kept apart up to three parts and in a list
    /// beyond) and by an in-memory store's fetch of 64 objects (row tests over columns).
    @Test func compoundsOfEveryWidthAnswerAsTheirParts() throws {
        let thresholds = [3, 10, 20, 40, 50, 60]
        /// Part `index` over dictionaries (`n`, `m`) or over sessions (`duration` is `n`; `m` is 63 - `n`).
        func part(_ index: Int, stored: Bool) throws -> ObjectPredicate {
            let threshold = thresholds[index]
            if index.isMultiple(of: 2) {
                return try ObjectPredicate(format: stored ? "duration >= %d" : "n >= %d", threshold)
            }
            return try ObjectPredicate(format: stored ? "duration > %d" : "m < %d", stored ? 63 - threshold : threshold)
        }
        func holds(_ index: Int, n: Int, m: Int) -> Bool {
            index.isMultiple(of: 2) ? n >= thresholds[index] : m < thresholds[index]
        }
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        for n in 0..<64 { context.makeSession("s\(n)").setValue(n, forKey: "duration") }
        try context.save()
        let values = (0..<64).map { n in (n: n, m: 63 - n) }
        for width in 1...6 {
            for all in [true, false] {
                func compound(stored: Bool) throws -> ObjectPredicate {
                    let parts = try (0..<width).map { try part($0, stored: stored) }
                    return all ? .and(parts) : .or(parts)
                }
                let label = "\(width) parts, \(all ? "AND" : "OR")"
                let expected = values.filter { value in
                    let results = (0..<width).map { holds($0, n: value.n, m: value.m) }
                    return all ? !results.contains(false) : results.contains(true)
                }.map(\.n)
                #expect(!expected.isEmpty && expected.count < 64, "\(label)")
                let predicate = try compound(stored: false)
                let evaluated = try values.filter { try predicate.evaluate(with: ["n": $0.n, "m": $0.m]) }.map(\.n)
                #expect(evaluated == expected, "\(label)")
                let request = FetchRequest(entityName: "Session")
                request.predicate = try compound(stored: true)
                request.sortKeys = [SortKey("duration")]
                let fetched = try context.fetch(request).compactMap { $0.value(forKey: "duration") as? Int }
                #expect(fetched == expected, "\(label), fetched")
            }
        }
    }

    /// The compiled form is made once and shared: threads evaluating a new predicate at the same time race to
    /// make it, one copy is kept, and every evaluation is right. A predicate that fails to compile fails each time.
    @Test func threadsRacingToCompileAPredicateAllEvaluateItRight() async throws {
        for round in 0..<50 {
            let predicate = try ObjectPredicate(format: "n >= %d AND name != 'skip'", round)
            let counts = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        (0..<100).filter { n in
                            (try? predicate.evaluate(with: ["n": n, "name": n % 10 == 0 ? "skip" : "keep"])) == true
                        }.count
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let expected = (round..<100).filter { $0 % 10 != 0 }.count
            #expect(counts == Array(repeating: expected, count: 8))
            #expect(try predicate.compiled() === predicate.compiled())
        }
        let unbound = try ObjectPredicate(format: "n == $LIMIT")
        for _ in 0..<2 {
            #expect(throws: ObjectPredicateError.self) { try unbound.evaluate(with: ["n": 1]) }
        }
    }

    @Test func buildersMatchTheParsedForm() throws {
        let built = ObjectPredicate.and([
            .comparison(.keyPath("age"), .greaterThan, .constant(.integer(30))),
            .not(.comparison(.keyPath("name"), .beginsWith, .constant(.string("A")), options: .caseInsensitive)),
            .comparison(.keyPath("tags"), .equalTo, .constant(.string("x")), modifier: .any),
        ])
        let parsed = try ObjectPredicate(format: "age > 30 AND NOT name BEGINSWITH[c] 'A' AND ANY tags == 'x'")
        #expect(built == parsed)
        #expect(built.hashValue == parsed.hashValue)
        #expect(ObjectPredicate.and([]) == .true)
        #expect(ObjectPredicate.or([]) == .false)
        #expect(ObjectPredicate.truePredicate.predicateFormat == "TRUEPREDICATE")
        #expect(try ObjectPredicate.or([built]) == ObjectPredicate(format: built.predicateFormat))
    }

    /// Key paths print component by component: a reserved word is escaped with `#` wherever it stands (in any
    /// case), `@` operators and empty components are kept, non-ASCII names print as they are; each reads back.
    @Test func keyPathsPrintWithReservedWordsEscaped() throws {
        let cases: [(String, String)] = [
            ("start", "start"), ("in", "#in"), ("room.in.name", "room.#in.name"), ("Between.size", "#Between.#size"),
            ("items.@count", "items.@count"), ("a..b", "a..b"), ("café.not", "café.#not"), ("x", "x"),
        ]
        for (path, printed) in cases {
            let predicate = ObjectPredicate.comparison(.keyPath(path), .equalTo, .constant(.integer(1)))
            #expect(predicate.predicateFormat == printed + " == 1", "\(path)")
        }
        for (path, _) in cases where !path.contains("..") {
            let predicate = ObjectPredicate.comparison(.keyPath(path), .equalTo, .constant(.integer(1)))
            #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate, "\(path)")
        }
    }

    @Test func syntaxTreeIsPatternMatchable() throws {
        let predicate = try ObjectPredicate(format: "ANY pets.name ==[cd] %@", "rex")
        guard case .comparison(let left, let op, let right, let modifier, let options) = predicate.node else {
            Issue.record("not a comparison")
            return
        }
        #expect(left == .keyPath("pets.name"))
        #expect(op == .equalTo)
        #expect(right == .constant(.string("rex")))
        #expect(modifier == .any)
        #expect(options == [.caseInsensitive, .diacriticInsensitive])
        #expect(
            ObjectExpression.keyPathComponents("pets.@sum.age") == [
                .key("pets"), .collectionOperator(.sum), .key("age"),
            ])
    }

    @Test func referencedVariablesExcludeSubqueryVariables() throws {
        let predicate = try ObjectPredicate(
            format: "name == $name AND SUBQUERY(pets, $p, $p.age > $minimum AND species == 'dog').@count > 0")
        #expect(predicate.referencedVariables == ["name", "minimum"])
        #expect(predicate.referencedKeyPaths == ["name", "pets", "pets.age", "pets.species"])
    }

    @Test func referencedKeyPathsListEveryPathRead() throws {
        let predicate = try ObjectPredicate(
            format: "address.city == 'x' OR tags.@count > 2 OR $v.name == 1 OR abs(score) > 1")
        #expect(predicate.referencedKeyPaths == ["address.city", "tags.@count", "score"])
    }

    @Test func substitutionReplacesOnlyFreeVariables() throws {
        let predicate = try ObjectPredicate(format: "a == $x AND SUBQUERY(items, $x, $x > $y).@count > 0")
        let substituted = try predicate.withSubstitutionVariables(["x": 1, "y": 2])
        #expect(substituted.predicateFormat == "a == 1 AND SUBQUERY(items, $x, $x > 2).@count > 0")
        #expect(substituted.referencedVariables.isEmpty)
        let partial = try predicate.withSubstitutionVariables(["y": 2])
        #expect(partial.referencedVariables == ["x"])
    }

    @Test func substitutionFoldsCastsAndAggregates() throws {
        let predicate = try ObjectPredicate(format: "d < CAST($t, 'NSDate') AND n IN {$a, $b}")
        let substituted = try predicate.withSubstitutionVariables(["t": 0, "a": 1, "b": 2])
        #expect(substituted == (try ObjectPredicate(format: "d < CAST(0, 'NSDate') AND n IN {1, 2}")))
    }

    @Test func substitutionBindsObjectsSoKeyPathsStillWork() throws {
        let predicate = try ObjectPredicate(format: "$owner.name == name")
        let owner = TestRecord(values: ["name": "Ann"])
        #expect(try predicate.evaluate(with: ["name": "Ann"], substitutionVariables: ["owner": owner]))
    }

    @Test func compiledFormIsCachedAndSharedAcrossTasks() async throws {
        let predicate = try ObjectPredicate(format: "age > 30 AND ANY pets.species == 'dog'")
        #expect(try predicate.compiled() === predicate.compiled())
        let people = PredicateFixtures.people().map { TestRecordSnapshot($0) }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try people.filter { try predicate.evaluate(with: $0) }.count }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 2, count: 8))
    }

    @Test func genericAndExistentialEvaluationAgree() throws {
        let predicate = try ObjectPredicate(format: "name BEGINSWITH 'A' OR age > 60")
        for person in PredicateFixtures.people() {
            let record = TestRecordSnapshot(person)
            #expect(try predicate.evaluate(with: record) == predicate.evaluate(with: record as Any))
            #expect(try predicate.evaluate(with: record) == predicate.evaluate(with: person))
        }
    }

    @Test func filterKeepsOrder() throws {
        let predicate = try ObjectPredicate(format: "age >= 34")
        let names = try predicate.filter(PredicateFixtures.people()).map { $0["name"] as! String }
        #expect(names == ["Ann", "dave", "Eve", "Åsa"])
    }

    @Test func expressionsEvaluateOnTheirOwn() throws {
        let person = PredicateFixtures.people()[0]
        #expect(try ObjectExpression.keyPath("pets.@sum.age").evaluate(with: person) as? Int == 8)
        #expect(try ObjectExpression.value(5).expressionFormat == "5")
        let sum = ObjectExpression.arithmetic(.add, .keyPath("age"), .variable("n"))
        #expect(try sum.evaluate(with: person, substitutionVariables: ["n": 1]) as? Int == 35)
    }

    @Test func unsupportedArgumentsThrowInsteadOfCrashing() throws {
        #expect(throws: ObjectPredicateError(.unsupportedArgument, "")) {
            try PredicateValue(argument: UnsupportedArgument())
        }
        #expect(throws: ObjectPredicateError(.unsupportedArgument, "")) { try PredicateValue(argument: ["k": 1]) }
        #expect(try PredicateValue(argument: UInt64.max) == .decimal(Decimal(string: "18446744073709551615")!))
        #expect(try PredicateValue(argument: Optional<Int>.none as Any) == .null)
        #expect(try PredicateValue(argument: TestObject(name: "x")) != .null)
    }

    @Test func identityConstantsPrintButDoNotParse() throws {
        let predicate = try ObjectPredicate(format: "SELF == %@", TestRecord(values: [:], identity: 7))
        #expect(predicate.predicateFormat == "SELF == CAST(\"7\", \"ObjectIdentity\")")
        #expect(throws: ObjectPredicateError(.invalidCast, "")) { try ObjectPredicate(format: predicate.predicateFormat) }
    }
}

/// A `PredicateEvaluable` wrapper over a fixture dictionary, like a daemon value snapshot.
struct TestRecordSnapshot: PredicateEvaluable, @unchecked Sendable {
    // @unchecked: the wrapped fixture dictionary is never mutated.
    let values: [String: Any]
    init(_ values: [String: Any]) { self.values = values }
    func predicateValue(forKey key: String) throws -> Any? { values[key] }
}
