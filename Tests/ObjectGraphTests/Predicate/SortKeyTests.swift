import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Sort keys")
struct SortKeyTests {
    @Test func nilSortsFirstAscendingAndLastDescending() {
        let key = SortKey("x")
        #expect(key.compare(nil, 1) == .orderedAscending)
        #expect(key.compare(1, nil) == .orderedDescending)
        #expect(key.compare(nil, nil) == .orderedSame)
        #expect(SortKey("x", ascending: false).compare(nil, 1) == .orderedDescending)
    }

    @Test func numbersCompareAcrossTypes() {
        let key = SortKey("x")
        #expect(key.compare(1, 1.5) == .orderedAscending)
        #expect(key.compare(Decimal(2), 1.5) == .orderedDescending)
        #expect(key.compare(true, 1) == .orderedSame)
        #expect(key.compare(Int8(3), UInt64(3)) == .orderedSame)
    }

    @Test func stringsDatesAndMixedKinds() {
        let key = SortKey("x")
        #expect(key.compare("B", "a") == .orderedAscending)
        #expect(SortKey("x", comparison: .caseInsensitive).compare("B", "a") == .orderedDescending)
        #expect(key.compare(Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1)) == .orderedAscending)
        #expect(key.compare(5, "a") == .orderedAscending)
    }

    @Test func localizedStandardComparesNumbersInsideStrings() {
        let key = SortKey("x", comparison: .localizedStandard)
        #expect(key.compare("Room 2", "Room 10") == .orderedAscending)
        #expect(key.compare("room 2", "Room 10") == .orderedAscending)
        #expect(key.compare("a10b2", "a10b10") == .orderedAscending)
        #expect(key.compare("File", "file") == .orderedSame)
        #expect(key.compare("x01", "x1") == .orderedDescending)
        #expect(key.compare("x9", "x10") == .orderedAscending)
    }

    @Test func sortIsStableAndUsesEveryKey() throws {
        let people = PredicateFixtures.people()
        let byAge = try SortKey.sort(people, by: [SortKey("age")]).map { $0["name"] as! String }
        #expect(byAge == ["Bob", "Chloé", "Ann", "Åsa", "dave", "Eve"])
        let byAgeDescending = try SortKey.sort(people, by: [SortKey("age", ascending: false)]).map {
            $0["name"] as! String
        }
        #expect(byAgeDescending == ["Eve", "dave", "Ann", "Åsa", "Chloé", "Bob"])
        let byRoom = try SortKey.sort(
            people, by: [SortKey("room", comparison: .localizedStandard), SortKey("name", ascending: false)]
        ).map { $0["name"] as! String }
        #expect(byRoom == ["dave", "Åsa", "Chloé", "Eve", "Ann", "Bob"])
        let byCity = try SortKey.sort(people, by: [SortKey("address.city")]).map { $0["name"] as! String }
        #expect(byCity == ["dave", "Ann", "Eve", "Åsa", "Bob", "Chloé"])
    }

    @Test func sortExtractsEachValueOnce() {
        let items = (0..<100).map { $0 % 7 }
        var calls = 0
        let sorted = SortKey.sort(items, by: [SortKey("v")]) { item, _ in
            calls += 1
            return item
        }
        #expect(calls == items.count)
        #expect(sorted == items.sorted())
    }

    @Test func compareObjectsReadsTheKeyPath() throws {
        let people = PredicateFixtures.people()
        #expect(try SortKey("pets.@count").compareObjects(people[0], people[3]) == .orderedAscending)
        #expect(try SortKey("score").compareObjects(people[2], people[3]) == .orderedDescending)
    }
}

@Suite("Selecting the smallest")
struct SortKeySelectionTests {
    @Test(arguments: [0, 1, 3, 10, 99, 100, 150])
    func smallestMatchesSortingThenTaking(count: Int) {
        var generator = SeededGenerator(seed: UInt64(count) + 7)
        let items: [[String: Any]] = (0..<100).map { index in
            ["n": Int.random(in: 0..<10, using: &generator), "s": "v\(Int.random(in: 0..<5, using: &generator))",
             "i": index]
        }
        let keys = [SortKey("n"), SortKey("s", ascending: false)]
        let value: ([String: Any], SortKey) -> Any? = { item, key in item[key.keyPath] }
        let expected = Array(SortKey.sort(items, by: keys, value: value).prefix(count)).map { $0["i"] as! Int }
        let selected = SortKey.smallest(count, of: items, by: keys, value: value).map { $0["i"] as! Int }
        #expect(selected == expected)
    }
}
