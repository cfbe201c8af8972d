import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

@Suite("Predicate properties")
struct PredicatePropertyTests {
    @Test func printedFormatParsesBackToAnEqualPredicate() throws {
        var builder = RandomPredicateBuilder(random: SeededGenerator(seed: 0x5EED))
        for _ in 0..<4000 {
            let predicate = ObjectPredicate(builder.predicate(depth: 4))
            let format = predicate.predicateFormat
            let reparsed: ObjectPredicate
            do {
                reparsed = try ObjectPredicate(format: format)
            } catch {
                Issue.record("\(format) does not parse: \(error)")
                continue
            }
            #expect(reparsed == predicate, "\(format) parsed as \(reparsed.predicateFormat)")
            #expect(reparsed.hashValue == predicate.hashValue)
        }
    }

    @Test func garbledInputOnlyThrows() {
        var random = SeededGenerator(seed: 42)
        let seeds = PredicateCorpus.all.map(\.format)
        let alphabet = Array("()[]{}'\"\\%@$#.,=!<>&|*?-+/ 0123456789xeEbo:ANDORNOTINANYSUBQUERYCASTé😀\n\t")
        let person = PredicateFixtures.people()[0]
        var parsed = 0
        for iteration in 0..<6000 {
            var text = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)])
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where !text.isEmpty:
                    text.remove(at: Int.random(in: 0..<text.count, using: &random))
                case 1:
                    text.insert(
                        alphabet.randomElement(using: &random)!, at: Int.random(in: 0...text.count, using: &random))
                case 2 where text.count > 2:
                    let start = Int.random(in: 0..<text.count, using: &random)
                    let end = min(text.count, start + Int.random(in: 1...8, using: &random))
                    text.insert(contentsOf: text[start..<end], at: Int.random(in: 0...text.count, using: &random))
                default:
                    let other = seeds[Int.random(in: 0..<seeds.count, using: &random)]
                    text = Array(String(text.prefix(text.count / 2)) + other.suffix(other.count / 2))
                }
            }
            let format = String(text)
            let arguments: [Any?] = iteration % 3 == 0 ? ["x", 1] : []
            guard let predicate = try? ObjectPredicate(format: format, argumentArray: arguments) else { continue }
            parsed += 1
            _ = try? predicate.evaluate(with: person)
            _ = try? predicate.evaluate(with: nil)
            _ = try? predicate.evaluate(with: [1, "a", nil] as [Any?])
            if let reparsed = try? ObjectPredicate(format: predicate.predicateFormat) {
                #expect(reparsed == predicate, "\(format) → \(predicate.predicateFormat)")
            } else if !predicate.predicateFormat.contains("ObjectIdentity") {
                Issue.record("canonical form of \(format) does not parse: \(predicate.predicateFormat)")
            }
        }
        #expect(parsed > 100)
    }

    /// Random bytes never crash the parser: each input parses to a predicate whose canonical form parses again, or
    /// is refused with an ``ObjectPredicateError`` that says where.
    @Test func randomBytesOnlyThrow() {
        var random = SeededGenerator(seed: 7)
        var refused = 0
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let format = String(decoding: bytes, as: UTF8.self)
            do {
                let predicate = try ObjectPredicate(format: format)
                #expect(
                    (try? ObjectPredicate(format: predicate.predicateFormat)) != nil, "\(predicate.predicateFormat)")
            } catch let error as ObjectPredicateError {
                refused += 1
                #expect(!error.message.isEmpty, "an empty message for \(format.debugDescription)")
            } catch {
                Issue.record("\(format.debugDescription) threw \(type(of: error)), not ObjectPredicateError")
            }
        }
        // Random bytes are almost never a predicate.
        #expect(refused > 2500)
    }
}
