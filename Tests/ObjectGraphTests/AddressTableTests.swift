import Foundation
import Testing

@testable import ObjectGraph

/// The open-addressing table behind a context's object lists, checked against `Dictionary`.
@Suite("Address table")
struct AddressTableTests {
    final class Box {}

    @Test func randomInsertsUpdatesAndRemovalsMatchADictionary() {
        var generator = SystemRandomNumberGenerator()
        let boxes = (0..<600).map { _ in Box() }
        var table = AddressTable()
        var reference: [ObjectIdentifier: Int] = [:]
        for step in 0..<20_000 {
            let key = ObjectIdentifier(boxes[Int.random(in: 0..<boxes.count, using: &generator)])
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let added = table.insert(step, forKey: key)
                #expect(added == (reference[key] == nil))
                if added { reference[key] = step }
            case 1:
                #expect(table.updateValue(step, forKey: key) == (reference[key] == nil))
                reference[key] = step
            default:
                #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
            }
            #expect(table.count == reference.count)
            if step % 500 == 0 {
                for box in boxes { #expect(table[ObjectIdentifier(box)] == reference[ObjectIdentifier(box)]) }
            }
        }
        for box in boxes { #expect(table[ObjectIdentifier(box)] == reference[ObjectIdentifier(box)]) }
        table.removeAll()
        #expect(table.isEmpty && table[ObjectIdentifier(boxes[0])] == nil)
        withExtendedLifetime(boxes) {}
    }
}
