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

    /// A batch whose objects live in two stores of the kind, interleaved in the sort order and not in key order:
    /// each store is asked for its part, and every object gets its own values (and one gone since the fetch
    /// becomes invalid).
    @Test(arguments: StoreKind.all)
    func batchesAcrossStoresFillEveryObjectWithItsOwnValues(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        let first = try fixture.addStore("a")
        let second = try fixture.addStore("b")
        let context = fixture.context()
        for index in 0..<24 {
            let session = context.makeSession(String(format: "g%02d", (index * 7) % 24), title: "Talk \(index)")
            session.setValue(index, forKey: "duration")
            try context.assign(session, to: index % 3 == 0 ? first : second)
        }
        try context.save()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid", ascending: false)]
        request.fetchBatchSize = 5
        let reader = fixture.context()
        let objects = try reader.fetch(request)
        #expect(objects.count == 24)
        // Another context deletes one object of the second batch before it is read.
        let doomedGUID = "g16"
        let other = fixture.context()
        let doomedRequest = FetchRequest(entityName: "Session")
        doomedRequest.predicate = try ObjectPredicate(format: "guid == %@", doomedGUID)
        other.delete(try #require(try other.fetch(doomedRequest).first))
        try other.save()
        var seen: [String] = []
        for object in objects {
            guard let guid = object.value(forKey: "guid") as? String else {
                seen.append("invalid")
                continue
            }
            let index = try #require(object.value(forKey: "duration") as? Int)
            #expect(guid == String(format: "g%02d", (index * 7) % 24))
            #expect(object.value(forKey: "title") as? String == "Talk \(index)")
            seen.append(guid)
        }
        let expected = (0..<24).map { String(format: "g%02d", $0) }.reversed().map { $0 == doomedGUID ? "invalid" : $0 }
        #expect(seen == expected)
        withExtendedLifetime(reader) {}
    }
}
