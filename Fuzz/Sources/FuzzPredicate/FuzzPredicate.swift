import CFuzzerDriver
import Foundation
import ObjectGraph

/// The predicate language on arbitrary text: `ObjectPredicate(format:)` must return a predicate or throw, never
/// trap or hang. A predicate that parses is then
/// - formatted and parsed again: the canonical form must parse to an equal predicate (the documented contract of
///   `predicateFormat`; the fuzzer passes no `%@` arguments, so no identity constants arise), and
/// - evaluated against a small dictionary object with every `$variable` bound, which must return or throw.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { UnsafeBufferPointer(start: $0, count: count) } ?? UnsafeBufferPointer(start: nil, count: 0)
    let format = String(decoding: bytes, as: UTF8.self)
    guard let predicate = try? ObjectPredicate(format: format, argumentArray: []) else { return 0 }

    let canonical = predicate.predicateFormat
    let reparsed: ObjectPredicate
    do {
        reparsed = try ObjectPredicate(format: canonical, argumentArray: [])
    } catch {
        fatalError("canonical form does not parse: \(canonical) (from \(format)): \(error)")
    }
    precondition(reparsed == predicate, "canonical form parses differently: \(canonical) → \(reparsed.predicateFormat)")

    _ = try? predicate.evaluate(with: FuzzFixture.person, substitutionVariables: FuzzFixture.variables)
    return 0
}

enum FuzzFixture {
    nonisolated(unsafe) static let friend: [String: Any] = [
        "name": "Bea", "age": 27, "score": 6.5, "isActive": false, "tags": ["b"], "friends": [Any](),
    ]
    /// Keys the predicate corpus uses, with values of every kind the evaluator handles.
    nonisolated(unsafe) static let person: [String: Any] = [
        "name": "Ann", "age": 34, "score": 7.25, "isActive": true, "nickname": NSNull(),
        "birthday": Date(timeIntervalSinceReferenceDate: 626_614_800),
        "tags": ["a", "b", "c"], "numbers": [1, 2, 3, -4], "scores": [1.5, 2.5],
        "friends": [friend, friend], "best": friend, "data": Data([1, 2, 3]),
    ]
    nonisolated(unsafe) static let variables: [String: Any?] = [
        "X": "Ann", "Y": 3, "Z": 2.5, "low": 1, "high": 100, "name": "a", "list": [1, 2, 3], "date": Date(),
        "p": friend, "n": nil,
    ]
}

/// The executable's entry point (SwiftPM links `main` to `FuzzPredicate_main`): hands over to libFuzzer's driver.
@_cdecl("FuzzPredicate_main")
public func fuzzPredicateMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzPredicate(data, size) }
}
