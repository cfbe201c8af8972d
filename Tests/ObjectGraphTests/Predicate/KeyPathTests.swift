import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Key paths")
struct KeyPathTests {
    private let ann = PredicateFixtures.people()[0]

    @Test func plainAndNestedPaths() throws {
        #expect(try ObjectExpression.value(atKeyPath: "name", of: ann) as? String == "Ann")
        #expect(try ObjectExpression.value(atKeyPath: "address.city", of: ann) as? String == "Berlin")
        #expect(try ObjectExpression.value(atKeyPath: "missing", of: ann) == nil)
        #expect(try ObjectExpression.value(atKeyPath: "missing.deeper", of: ann) == nil)
    }

    @Test func toManyPathsCollectValues() throws {
        let names = try ObjectExpression.value(atKeyPath: "pets.name", of: ann) as? [Any]
        #expect(names?.compactMap { $0 as? String } == ["Rex", "Tom"])
    }

    @Test func collectionOperators() throws {
        #expect(try ObjectExpression.value(atKeyPath: "pets.@count", of: ann) as? Int == 2)
        #expect(try ObjectExpression.value(atKeyPath: "pets.@sum.age", of: ann) as? Int == 8)
        #expect(try ObjectExpression.value(atKeyPath: "pets.@avg.age", of: ann) as? Double == 4)
        #expect(try ObjectExpression.value(atKeyPath: "pets.@min.age", of: ann) as? Int == 3)
        #expect(try ObjectExpression.value(atKeyPath: "pets.@max.name", of: ann) as? String == "Tom")
        #expect(try ObjectExpression.value(atKeyPath: "@count", of: [1, 2, 3]) as? Int == 3)
        #expect(try ObjectExpression.value(atKeyPath: "@sum", of: Set([1.5, 2.5])) as? Double == 4)
        #expect(try ObjectExpression.value(atKeyPath: "missing.@count", of: ann) as? Int == 0)
    }

    @Test func evaluableObjectsAndOptionals() throws {
        let record = TestRecord(values: ["owner": TestRecord(values: ["name": "Bo"])])
        #expect(try ObjectExpression.value(atKeyPath: "owner.name", of: record) as? String == "Bo")
        let optional: [String: Any?] = ["a": ["b": 2] as [String: Any?]]
        #expect(try ObjectExpression.value(atKeyPath: "a.b", of: optional) as? Int == 2)
        #expect(throws: ObjectPredicateError(.unknownKey, "")) { try ObjectExpression.value(atKeyPath: "name.x", of: ann) }
    }

    @Test func compiledKeyPathsReuseTheirComponents() throws {
        let path = CompiledKeyPath("address.zip")
        #expect(path.components == [.key("address"), .key("zip")])
        #expect(
            try PredicateFixtures.people().map { try path.value(of: $0) as? String } == [
                "10115", "75001", "8001", nil, "10117", "0150",
            ])
        #expect(try CompiledKeyPath("SELF").value(of: 5) as? Int == 5)
    }
}
