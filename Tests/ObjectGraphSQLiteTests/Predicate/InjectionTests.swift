import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Hostile values in predicates are bound, never spliced: they match literally and never change the schema.
@Suite("SQL injection corpus")
struct InjectionTests {
    static let hostile = [
        "'; DROP TABLE ZSESSION; --", "\"; DROP TABLE ZSESSION; --", "x' OR '1'='1", "a\"b'c", "nul\0byte",
        "100%", "%", "under_score", "_", "star*", "*", "question?", "[bracket]", "back\\slash", "' OR 1=1 --",
        "Robert'); DELETE FROM Z_PRIMARYKEY; --", "",
    ]

    @Test func hostileValuesMatchLiterallyAndLeaveTheSchemaAlone() throws {
        let fixture = Fixture(.sqlite)
        let store = try #require(try fixture.addStore() as? SQLiteStore)
        let context = fixture.context()
        for (index, value) in Self.hostile.enumerated() { context.makeSession("g\(index)", title: "t" + value) }
        try context.save()
        let schemaBefore = try Self.schema(store)
        let memory = Fixture(StoreKind(type: .inMemory, fileExtension: "mem"))
        try memory.addStore()
        let memoryContext = memory.context()
        for (index, value) in Self.hostile.enumerated() { memoryContext.makeSession("g\(index)", title: "t" + value) }
        try memoryContext.save()

        for value in Self.hostile {
            let exact = FetchRequest(entityName: "Session")
            exact.predicate = try ObjectPredicate(format: "title == %@", "t" + value)
            #expect(try fixture.context().count(for: exact) == 1, "\(value.debugDescription)")
            for format in ["title BEGINSWITH %@", "title ENDSWITH %@", "title CONTAINS %@", "title LIKE %@",
                           "title LIKE[c] %@", "title ==[cd] %@", "title IN %@", "guid IN %@", "title < %@",
                           "NOT title CONTAINS[c] %@"]
            {
                let argument: Any = format.hasSuffix("IN %@") ? [value, "t" + value] : value
                let request = FetchRequest(entityName: "Session")
                request.predicate = try ObjectPredicate(format: format, argumentArray: [argument])
                request.sortKeys = [SortKey("guid")]
                let expected = try memory.context().fetch(request).map { $0.value(forKey: "guid") as? String }
                let actual = try fixture.context().fetch(request).map { $0.value(forKey: "guid") as? String }
                #expect(actual == expected, "\(format) with \(value.debugDescription)")
            }
        }
        #expect(try Self.schema(store) == schemaBefore)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Session")) == Self.hostile.count)
    }

    static func schema(_ store: SQLiteStore) throws -> [String] {
        let statement = try #require(store.connection).makeStatement("SELECT sql FROM sqlite_master ORDER BY name")
        var rows: [String] = []
        while try statement.step() == .row { rows.append(statement.string(at: 0) ?? "") }
        return rows
    }
}
