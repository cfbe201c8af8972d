import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// `fetchBatchSize` changes when values are read, never what a fetch returns, in every store type.
@Suite("Store conformance: fetchBatchSize")
struct FetchBatchSizeConformanceTests {
    @Test(arguments: StoreKind.all)
    func batchedFetchReturnsWhatAnUnbatchedOneReturns(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        for index in 0..<17 {
            context.makeSession(String(format: "g%02d", (index * 5) % 17), title: "Talk \(index % 4)")
                .setValue(index * 3, forKey: "duration")
        }
        try context.save()
        for (limit, offset, batchSize) in [(0, 0, 4), (5, 3, 2), (0, 10, 1), (3, 0, 100)] {
            func fetch(batchSize: Int) throws -> [String] {
                let request = FetchRequest(entityName: "Session")
                request.predicate = try ObjectPredicate(format: "duration >= 6")
                request.sortKeys = [SortKey("title"), SortKey("guid", ascending: false)]
                request.fetchLimit = limit
                request.fetchOffset = offset
                request.fetchBatchSize = batchSize
                let context = fixture.context()
                // Faults fire through their context, which objects do not keep alive.
                return try withExtendedLifetime(context) {
                    try context.fetch(request).map {
                        "\($0.objectID) \($0.value(forKey: "guid") ?? "-") \($0.value(forKey: "title") ?? "-") "
                            + "\($0.value(forKey: "duration") ?? "-")"
                    }
                }
            }
            let plain = try fetch(batchSize: 0)
            #expect(!plain.isEmpty)
            #expect(try fetch(batchSize: batchSize) == plain, "limit \(limit) offset \(offset) batch \(batchSize)")
        }
    }
}
