import Foundation
import ObjectGraph

/// The shared fixture graph of the predicate corpus: six people as dictionaries, with a to-one
/// `address` and a to-many `pets`. A store's differential test loads the same data and checks that
/// its fetches return the same names as ``PredicateCorpus``.
enum PredicateFixtures {
    /// A UTC date at midnight.
    static func date(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    /// Initials used by the corpus: A Ann, B Bob, C Chloé, D dave, E Eve, S Åsa.
    static let initials: [Character: String] = [
        "A": "Ann", "B": "Bob", "C": "Chloé", "D": "dave", "E": "Eve", "S": "Åsa",
    ]

    static let allNames: Set<String> = Set(initials.values)

    /// The people. Notes: Chloé's `score` is an `Int`, dave's a `Decimal` and he has no `address`,
    /// no `nickname` and no `room`; Åsa's `nickname` is an explicit `NSNull` and she has no `email`.
    static func people() -> [[String: Any]] {
        [
            [
                "name": "Ann", "age": 34, "score": 9.5, "birthday": date(1990, 4, 12), "isActive": true,
                "tags": ["swift", "music"], "nickname": "Annie", "email": "ann@example.com", "room": "Room 2",
                "address": ["city": "Berlin", "zip": "10115"] as [String: Any],
                "pets": [
                    ["name": "Rex", "species": "dog", "age": 3],
                    ["name": "Tom", "species": "cat", "age": 5],
                ] as [[String: Any]],
            ],
            [
                "name": "Bob", "age": 17, "score": 4.25, "birthday": date(2007, 1, 2), "isActive": false,
                "tags": ["chess"], "email": "bob@test.org", "room": "Room 10",
                "address": ["city": "Paris", "zip": "75001"] as [String: Any], "pets": [] as [[String: Any]],
            ],
            [
                "name": "Chloé", "age": 28, "score": 7, "birthday": date(1996, 7, 30), "isActive": true,
                "tags": ["music", "art"], "nickname": "Clo", "email": "chloe@example.com", "room": "room 1",
                "address": ["city": "Zürich", "zip": "8001"] as [String: Any],
                "pets": [["name": "Bella", "species": "dog", "age": 7]] as [[String: Any]],
            ],
            [
                "name": "dave", "age": 45, "score": Decimal(string: "6.5")!, "birthday": date(1979, 11, 5),
                "isActive": true, "tags": [String](), "email": "DAVE@EXAMPLE.COM",
                "pets": [
                    ["name": "Goldie", "species": "fish", "age": 1],
                    ["name": "Rex", "species": "dog", "age": 10],
                    ["name": "Nemo", "species": "fish", "age": 2],
                ] as [[String: Any]],
            ],
            [
                "name": "Eve", "age": 62, "score": 8.75, "birthday": date(1962, 3, 15), "isActive": false,
                "tags": ["swift", "art", "chess"], "nickname": "E", "email": "eve@sample.net", "room": "Room 2",
                "address": ["city": "Berlin", "zip": "10117"] as [String: Any], "pets": [] as [[String: Any]],
            ],
            [
                "name": "Åsa", "age": 34, "score": 7.5, "birthday": date(1990, 4, 12), "isActive": true,
                "tags": ["music"], "nickname": NSNull(), "room": "Room 1",
                "address": ["city": "Oslo", "zip": "0150"] as [String: Any],
                "pets": [["name": "Mjau", "species": "cat", "age": 12]] as [[String: Any]],
            ],
        ]
    }
}

/// A value type conforming to ``PredicateEvaluable`` for tests.
struct TestRecord: PredicateEvaluable, Sendable {
    var values: [String: any Sendable]
    var identity: Int?

    func predicateValue(forKey key: String) throws -> Any? {
        guard let value = values[key] else { throw ObjectPredicateError.unknownKey(key, in: "TestRecord") }
        return value
    }

    var predicateIdentity: (any Hashable & Sendable)? { identity }
}

/// A class conforming to ``PredicateEvaluable`` without an identity (compared with `===`).
final class TestObject: PredicateEvaluable, Sendable {
    let name: String
    init(name: String) { self.name = name }

    func predicateValue(forKey key: String) throws -> Any? {
        guard key == "name" else { throw ObjectPredicateError.unknownKey(key, in: "TestObject") }
        return name
    }
}

/// A value no predicate accepts as an argument.
struct UnsupportedArgument: Sendable {}

/// Foundation also exports a `ObjectPredicateError` (for `#Predicate`); this module's own alias wins lookup.
