import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// Fetches whose predicate bounds the first sort key walk only part of a kept sort order (`OrderRange`): the
/// results must be those of testing every object, whatever the bounds, missing values, negative spans or kinds.
@Suite("Sorted fetches walking a range of the order")
struct OrderRangeTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(
                name: "Slot",
                properties: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "start", type: .date),
                    AttributeDescription(name: "end", type: .date),
                    AttributeDescription(name: "low", type: .integer64),
                    AttributeDescription(name: "high", type: .double),
                    AttributeDescription(name: "label", type: .string),
                ])
        ])
    }

    static let base = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// A coordinator over `storeCount` stores, in-memory and binary by turns, holding `count` objects of `entity`
    /// named `prefix` and a number (`fill` sets the rest from `random`), each assigned to a random store.
    static func populated(
        _ model: ManagedObjectModel, entity: String, prefix: String, stores storeCount: Int, count: Int, seed: UInt64,
        fill: (ManagedObject, inout SeededGenerator) -> Void
    ) throws -> (PersistentStoreCoordinator, TemporaryFolder) {
        _ = StoreKind.all
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let stores = try (0..<storeCount).map { index in
            index % 2 == 0
                ? try coordinator.addPersistentStore(type: .inMemory)
                : try coordinator.addPersistentStore(type: .binary, at: folder.file("s\(index).bin"))
        }
        var random = SeededGenerator(seed: seed)
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<count {
            let object = context.insertNewObject(forEntityName: entity)
            object.setValue(String(format: "\(prefix)%05d", index), forKey: "name")
            fill(object, &random)
            try context.assign(object, to: stores[Int(random.next() % UInt64(stores.count))])
        }
        try context.save()
        return (coordinator, folder)
    }

    /// `count` slots in `stores` in-memory and binary stores, at random minutes of a day, with spans from a minute to
    /// five hours, a few much longer or negative, and missing starts and ends.
    func coordinator(stores storeCount: Int, count: Int, seed: UInt64) throws
        -> (PersistentStoreCoordinator, TemporaryFolder)
    {
        try Self.populated(Self.model(), entity: "Slot", prefix: "s", stores: storeCount, count: count, seed: seed) {
            slot, random in
            let start = Self.base.addingTimeInterval(Double(random.next() % 1440) * 60)
            var span = Double(1 + random.next() % 300) * 60
            switch random.next() % 50 {
            case 0: span = 20 * 3600
            case 1: span = -7200
            default: break
            }
            if random.next() % 10 != 0 { slot.setValue(start, forKey: "start") }
            if random.next() % 10 != 0 { slot.setValue(start.addingTimeInterval(span), forKey: "end") }
            let low = Int64(random.next() % 1000)
            if random.next() % 8 != 0 { slot.setValue(low, forKey: "low") }
            slot.setValue(Double(low) + Double(random.next() % 100) / 4, forKey: "high")
            slot.setValue(random.next() % 3 == 0 ? "x" : "y", forKey: "label")
        }
    }

    /// The names of the matching slots, sorted here by the keys (missing values first when ascending).
    func expected(
        _ coordinator: PersistentStoreCoordinator, _ predicate: ObjectPredicate, key: String,
        ascending: Bool, limit: Int
    ) throws -> [String] {
        let all = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Slot"))
        let matching = try all.filter { try predicate.evaluate(with: $0) }
        func number(_ object: ManagedObject) -> Double? {
            switch object.value(forKey: key) {
            case let date as Date: return date.timeIntervalSinceReferenceDate
            case let int as Int64: return Double(int)
            case let int as Int: return Double(int)
            default: return nil
            }
        }
        let sorted = matching.sorted { a, b in
            let (x, y) = (number(a), number(b))
            if x != y {
                guard let x else { return ascending }
                guard let y else { return !ascending }
                return ascending ? x < y : x > y
            }
            return (a.value(forKey: "name") as! String) < (b.value(forKey: "name") as! String)
        }
        let names = sorted.map { $0.value(forKey: "name") as! String }
        return limit == 0 ? names : Array(names.prefix(limit))
    }

    func fetched(
        _ coordinator: PersistentStoreCoordinator, _ predicate: ObjectPredicate, key: String,
        ascending: Bool, limit: Int
    ) throws -> [String] {
        let request = FetchRequest(entityName: "Slot")
        request.predicate = predicate
        request.sortKeys = [SortKey(key, ascending: ascending), SortKey("name")]
        request.fetchLimit = limit
        return try ManagedObjectContext(coordinator: coordinator).fetch(request).map {
            $0.value(forKey: "name") as! String
        }
    }

    static let formats: [(format: String, key: String, ascending: Bool)] = [
        ("start <= %@ AND end > %@", "start", true),
        ("start <= %@ AND end >= %@", "start", true),
        ("start >= %@ AND start < %@", "start", true),
        ("start > %@ AND start <= %@ AND label == 'x'", "start", true),
        ("start == %@ OR start == %@", "start", true),
        ("start == %@ AND %@ != nil", "start", true),
        ("end > %@ AND start < %@", "start", true),
        ("start <= %@ AND end > %@", "start", false),
        ("(start <= %@ AND end > %@) AND label != 'z'", "start", true),
        ("NOT (start <= %@) AND end > %@", "start", true),
        ("end > %@ AND end < %@", "start", true),
        ("start >= %@ AND start > %@", "start", true),
        ("start < %@ AND start <= %@", "start", true),
    ]

    @Test(arguments: [1, 4])
    func rangedWalksFindWhatTestingEveryObjectFinds(stores: Int) throws {
        let (coordinator, folder) = try coordinator(stores: stores, count: 1200, seed: UInt64(stores) * 7)
        defer { withExtendedLifetime(folder) {} }
        var random = SeededGenerator(seed: 99)
        for round in 0..<6 {
            for (format, key, ascending) in Self.formats {
                let first = Self.base.addingTimeInterval(Double(random.next() % 1500) * 60 - 1800)
                let second = round % 2 == 0 ? first : first.addingTimeInterval(Double(random.next() % 240) * 60)
                let predicate = try ObjectPredicate(format: format, first, second)
                for limit in [0, 1, 25] {
                    let got = try fetched(coordinator, predicate, key: key, ascending: ascending, limit: limit)
                    let want = try expected(coordinator, predicate, key: key, ascending: ascending, limit: limit)
                    #expect(got == want, "\(format) with \(first), \(second), limit \(limit), \(stores) stores")
                    if limit == 0 {
                        // Counts walk the narrowest range of an order by one of the bounded attributes.
                        let request = FetchRequest(entityName: "Slot")
                        request.predicate = predicate
                        let count = try ManagedObjectContext(coordinator: coordinator).count(for: request)
                        #expect(count == want.count, "count of \(format) with \(first), \(second)")
                    }
                }
            }
            // Numbers: an integer sort key, a double bound on another attribute (spans of the same kind).
            let low = Int64(random.next() % 1000)
            for format in ["low <= %@ AND high > %@", "low >= %@ AND low <= %@", "low <= %@ AND high >= %@"] {
                let predicate = try ObjectPredicate(format: format, low, Double(low) + 0.5)
                for limit in [0, 10] {
                    let got = try fetched(coordinator, predicate, key: "low", ascending: true, limit: limit)
                    let want = try expected(coordinator, predicate, key: "low", ascending: true, limit: limit)
                    #expect(got == want, "\(format) with \(low), limit \(limit), \(stores) stores")
                }
            }
        }
    }

    /// A mismatched constant (a number against dates) leaves the whole order and still answers as every object
    /// would.
    @Test func boundsOfAnotherKindAreNotUsed() throws {
        let (coordinator, folder) = try coordinator(stores: 2, count: 300, seed: 5)
        defer { withExtendedLifetime(folder) {} }
        let predicate = try ObjectPredicate(
            format: "start <= %@ AND end > %@", Self.base.addingTimeInterval(3600),
            Self.base.timeIntervalSinceReferenceDate + 3600)
        let got = try fetched(coordinator, predicate, key: "start", ascending: true, limit: 0)
        #expect(got == (try expected(coordinator, predicate, key: "start", ascending: true, limit: 0)))
    }

    /// The sessions under way at a moment walk about one longest span of the order, not everything before it.
    @Test func sessionsUnderWayWalkOnlyTheLongestSpanBeforeTheMoment() throws {
        _ = StoreKind.all
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        // 2,000 slots of at most an hour, one every 5 minutes over about a week.
        for index in 0..<2000 {
            let slot = context.insertNewObject(forEntityName: "Slot")
            slot.setValue(String(format: "s%05d", index), forKey: "name")
            let start = Self.base.addingTimeInterval(Double(index) * 300)
            slot.setValue(start, forKey: "start")
            slot.setValue(start.addingTimeInterval(Double(index % 4 + 1) * 900), forKey: "end")
        }
        try context.save()
        let now = Self.base.addingTimeInterval(1000 * 300 + 60)
        let predicate = try ObjectPredicate(format: "start <= %@ AND end > %@", now, now)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Slot"])
        let request = StoreFetchRequest(
            entity: entity, entityNames: ["Slot"], predicate: predicate,
            sortKeys: [SortKey("start")], limit: 50)
        let ordered = try #require(store as? any SortedOrderStore)
        let order = try ordered.sortedOrder(
            request,
            key: SortedOrder.Key(
                entityNames: ["Slot"],
                sortKeys: [SortKey("start")]))
        let range = OrderRange.positions(
            matching: predicate, keys: order.keys, prepared: order.prepared,
            width: 1, count: order.views.count, columns: order.columns)
        // Starts within an hour before `now` (12 slots) and up to `now`: positions 989...1000.
        #expect(range == 989..<1001)
        let names = try fetched(coordinator, predicate, key: "start", ascending: true, limit: 0)
        #expect(names == (try expected(coordinator, predicate, key: "start", ascending: true, limit: 0)))
        #expect(!names.isEmpty)
        // Without the bound on the sort key, missing starts could match: the whole order is walked.
        let endOnly = try ObjectPredicate(format: "end > %@", now)
        #expect(
            OrderRange.positions(
                matching: endOnly, keys: order.keys, prepared: order.prepared, width: 1,
                count: order.views.count, columns: order.columns) == 0..<2000)
    }

    // MARK: Strings

    /// Pieces of titles: plain letters, a precomposed and a decomposed accent, a combining mark alone, a letter that
    /// composes with the next scalar but not with this one, CJK, an emoji with a modifier, the last scalar and the
    /// one before the surrogates.
    static let pieces = [
        "a", "b", "ab", "Session ", "1", "2", "é", "e\u{301}", "\u{301}", "q\u{300}", "会", "👍🏽", "\u{10FFFF}",
        "\u{D7FF}", "Z", " ",
    ]

    /// `count` talks with titles made of 0 to 4 pieces (some missing), in in-memory and binary stores; the titles
    /// in canonical composition (NFC) when `composed`.
    func talks(stores storeCount: Int, count: Int, seed: UInt64, composed: Bool = true) throws
        -> (PersistentStoreCoordinator, TemporaryFolder)
    {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Talk",
                properties: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "title", type: .string),
                ])
        ])
        return try Self.populated(model, entity: "Talk", prefix: "t", stores: storeCount, count: count, seed: seed) {
            talk, random in
            guard random.next() % 12 != 0 else { return }
            let title = (0..<Int(random.next() % 5)).map { _ in
                Self.pieces[Int(random.next() % UInt64(Self.pieces.count))]
            }.joined()
            talk.setValue(composed ? title.precomposedStringWithCanonicalMapping : title, forKey: "title")
        }
    }

    /// Prefixes and string bounds walk a range of the order by title: fetches sorted by title and counts find what
    /// testing every talk finds, for prefixes cut anywhere (inside a character too) and strings with combining
    /// marks that compose with nothing, emoji and the largest scalars.
    @Test(arguments: [1, 3])
    func prefixesAndStringBoundsFindWhatTestingEveryObjectFinds(stores: Int) throws {
        let (coordinator, folder) = try talks(stores: stores, count: 900, seed: UInt64(stores) * 13)
        defer { withExtendedLifetime(folder) {} }
        let all = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Talk"))
        let titles = all.compactMap { $0.value(forKey: "title") as? String }
        var random = SeededGenerator(seed: 17)
        var prefixes = ["", "a", "Session 1", "e", "é", "e\u{301}", "q", "q\u{300}", "\u{10FFFF}", "\u{D7FF}", "👍"]
        for _ in 0..<40 {
            let title = titles[Int(random.next() % UInt64(titles.count))]
            // Cut by characters and by scalars (a cut inside a character matches no title by BEGINSWITH).
            prefixes.append(String(title.prefix(Int(random.next() % UInt64(title.count + 1)))))
            let scalars = Array(title.unicodeScalars)
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars.prefix(Int(random.next() % UInt64(scalars.count + 1))))
            prefixes.append(String(view))
        }
        for prefix in prefixes {
            for format in ["title BEGINSWITH %@", "title BEGINSWITH %@ AND title < %@", "title >= %@ AND title <= %@"] {
                let predicate =
                    format.hasSuffix("AND title < %@") || format.hasPrefix("title >=")
                    ? try ObjectPredicate(format: format, prefix, prefix + "b")
                    : try ObjectPredicate(format: format, prefix)
                let want = try all.filter { try predicate.evaluate(with: $0) }.sorted { a, b in
                    let (x, y) = (a.value(forKey: "title") as! String, b.value(forKey: "title") as! String)
                    return x != y ? x < y : (a.value(forKey: "name") as! String) < (b.value(forKey: "name") as! String)
                }.map { $0.value(forKey: "name") as! String }
                let request = FetchRequest(entityName: "Talk")
                request.predicate = predicate
                request.sortKeys = [SortKey("title"), SortKey("name")]
                let context = ManagedObjectContext(coordinator: coordinator)
                let got = try context.fetch(request).map { $0.value(forKey: "name") as! String }
                #expect(got == want, "\(format) with \(prefix.unicodeScalars.map(\.value)), \(stores) stores")
                // Orders by title folded for case, or compared as Finder does, are no ranges of the prefix.
                for comparison in [SortKey.Comparison.caseInsensitive, .localizedStandard] {
                    request.sortKeys = [SortKey("title", comparison: comparison), SortKey("name")]
                    let folded = try context.fetch(request).map { $0.value(forKey: "name") as! String }
                    #expect(folded.sorted() == want.sorted(), "\(format) with \(prefix), \(comparison)")
                }
                let counting = FetchRequest(entityName: "Talk")
                counting.predicate = predicate
                #expect(try context.count(for: counting) == want.count, "count of \(format) with \(prefix)")
            }
        }
    }

    /// Titles not all in canonical composition (a decomposed "é"), whose Swift order is no strict weak order: the
    /// whole order is walked, and counts still find what testing every talk finds.
    @Test func decomposedTitlesWalkTheWholeOrder() throws {
        let (coordinator, folder) = try talks(stores: 2, count: 500, seed: 11, composed: false)
        defer { withExtendedLifetime(folder) {} }
        let all = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Talk"))
        #expect(all.contains { ($0.value(forKey: "title") as? String)?.unicodeScalars.contains("\u{301}") == true })
        for prefix in ["é", "e\u{301}", "e", "a", "Session ", "q\u{300}", ""] {
            let predicate = try ObjectPredicate(format: "title BEGINSWITH %@", prefix)
            let want = try all.filter { try predicate.evaluate(with: $0) }.count
            let request = FetchRequest(entityName: "Talk")
            request.predicate = predicate
            #expect(try ManagedObjectContext(coordinator: coordinator).count(for: request) == want, "\(prefix)")
        }
        let store = try #require(coordinator.persistentStores.first as? any SortedOrderStore)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Talk"])
        let order = try store.sortedOrder(
            StoreFetchRequest(
                entity: entity, entityNames: ["Talk"], predicate: nil, sortKeys: [SortKey("title")], limit: 0),
            key: SortedOrder.Key(entityNames: ["Talk"], sortKeys: [SortKey("title")]))
        let predicate = try ObjectPredicate(format: "title BEGINSWITH 'a'")
        #expect(
            OrderRange.positions(
                matching: predicate, keys: order.keys, prepared: order.prepared, width: 1,
                count: order.views.count, columns: order.columns) == 0..<order.views.count)
    }

    /// A prefix walks only the titles that can begin with it, not the whole order.
    @Test func aPrefixWalksOnlyItsPartOfTheOrder() throws {
        let (coordinator, folder) = try talks(stores: 1, count: 600, seed: 3)
        defer { withExtendedLifetime(folder) {} }
        let store = try #require(coordinator.persistentStores.first as? any SortedOrderStore)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Talk"])
        let request = StoreFetchRequest(
            entity: entity, entityNames: ["Talk"], predicate: nil, sortKeys: [SortKey("title")], limit: 0)
        let order = try store.sortedOrder(
            request, key: SortedOrder.Key(entityNames: ["Talk"], sortKeys: [SortKey("title")]))
        let titles = order.views.map { $0.record["title"] as? String }
        for prefix in ["Session ", "a", "é"] {
            let predicate = try ObjectPredicate(format: "title BEGINSWITH %@", prefix)
            let range = OrderRange.positions(
                matching: predicate, keys: order.keys, prepared: order.prepared, width: 1,
                count: order.views.count, columns: order.columns)
            let matches = titles.indices.filter { titles[$0]?.hasPrefix(prefix) == true }
            #expect(!matches.isEmpty)
            #expect(range.contains(matches.first!) && range.contains(matches.last!), "\(prefix)")
            if prefix != "é" {
                // Exactly the matches: nothing else sorts between these prefixes and their ends.
                #expect(range == matches.first!..<(matches.last! + 1), "\(prefix)")
            } else {
                // "é" with an acute after it sorts in the range yet is another character: walked, not matched.
                #expect(range.count < order.views.count / 4)
            }
        }
        // Without a bound on the sort key (CONTAINS), the whole order.
        let contains = try ObjectPredicate(format: "title CONTAINS 'a'")
        #expect(
            OrderRange.positions(
                matching: contains, keys: order.keys, prepared: order.prepared, width: 1,
                count: order.views.count, columns: order.columns) == 0..<order.views.count)
    }

    /// The end of a prefix's range: the last scalar moved up, past the surrogates, carried past the largest scalar,
    /// none for the empty prefix or when the moved scalar would compose.
    @Test func theEndOfAPrefix() {
        #expect(OrderRange.prefixEnd("abc") == "abd")
        #expect(OrderRange.prefixEnd("") == nil)
        #expect(OrderRange.prefixEnd("a\u{10FFFF}") == "b")
        #expect(OrderRange.prefixEnd("\u{10FFFF}") == nil)
        #expect(OrderRange.prefixEnd("\u{D7FF}") == "\u{E000}")
        #expect(OrderRange.prefixEnd("e\u{301}")?.unicodeScalars.map(\.value) == [0xEA])  // é composed, then ê
        // "a" + U+0305 (overline) composes with nothing, but moved up to U+0306 (breve) it composes to "ă": no end.
        #expect(OrderRange.prefixEnd("a\u{305}") == nil)
        #expect(OrderRange.prefixEnd("q\u{300}") == "q\u{301}")
        // Composed: ASCII, Latin with precomposed accents, CJK and emoji, a mark that composes with nothing.
        for composed in ["Session 1", "Vortrag über Schönheit", "会议 👍🏽", "q\u{300}", ""] {
            #expect(OrderRange.isComposed(composed), "\(composed)")
        }
        for decomposed in [
            "e\u{301}", "Scho\u{308}nheit", "\u{304B}\u{3099}", "\u{212B}", "\u{1100}\u{1161}", "\u{30A6}\u{3099}",
        ] {
            #expect(!OrderRange.isComposed(decomposed), "\(decomposed.unicodeScalars.map(\.value))")
        }
    }

    /// The scalars a string is known composed of at once: each is composed alone and a starter, and none is ever
    /// the second of two scalars that compose, nor begins the decomposition of one of them (checked against the
    /// canonical decomposition of every assigned scalar). A string of them only is then composed: composing its
    /// decomposition gives each scalar back and joins no two.
    @Test func scalarsThatComposeWithNothing() {
        let known = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            OrderRange.composesWithNothing($0.value)
        }
        #expect(known.count > 40_000)
        // Alone: a starter, and its own composition; joined by a line feed (a starter that composes with nothing, so
        // the pieces stay apart) to compose all at once.
        #expect(known.allSatisfy { $0.properties.canonicalCombiningClass == .notReordered })
        var joined = String.UnicodeScalarView()
        for scalar in known {
            joined.append(scalar)
            joined.append("\n")
        }
        let text = String(joined)
        #expect(text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(text.unicodeScalars))
        // Seconds of compositions: every scalar after the first in the canonical decomposition of any scalar.
        var decomposable = String.UnicodeScalarView()
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .unassigned,
                scalar.properties.generalCategory != .privateUse
            else { continue }
            decomposable.append(scalar)
            decomposable.append("\n")
        }
        var seconds = Set<UInt32>()
        for piece in String(decomposable).decomposedStringWithCanonicalMapping.unicodeScalars.split(separator: "\n") {
            for scalar in piece.dropFirst() { seconds.insert(scalar.value) }
        }
        #expect(seconds.contains(0x301) && seconds.contains(0x3099) && seconds.contains(0x11A8))
        let firsts = known.compactMap { String($0).decomposedStringWithCanonicalMapping.unicodeScalars.first?.value }
        #expect(known.filter { seconds.contains($0.value) }.isEmpty)
        #expect(firsts.filter { seconds.contains($0) }.isEmpty)
    }
}
