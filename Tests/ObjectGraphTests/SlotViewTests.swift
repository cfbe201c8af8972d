import Foundation
import Testing

@testable import ObjectGraph

/// `SlotView` reads slot values in place, relying on the layout of `Any?`; these tests check that layout on the
/// running toolchain with values of every kind a slot holds, and the save paths that read slots through it.
@Suite("Slots read in place")
struct SlotViewTests {
    final class Reference {}

    /// One value of every kind a slot can hold: nil, the inline types the view reads, and others it leaves alone.
    static func values() -> [Any?] {
        [
            nil, 42, -1.5, true, false, Date(timeIntervalSinceReferenceDate: 811_000_000), "short",
            "a string far too long to be stored in a small string's sixteen bytes, with ümlauts", Reference(),
            Int?.none as Any, Int32(7), Decimal(string: "3.25")!, [1, 2, 3], Data([1, 2]), UUID(), Double.nan,
        ]
    }

    @Test func theViewReadsEachValuesTypeAndInlineValues() {
        let values = Self.values()
        values.withSlotView { view in
            #expect(view.count == values.count)
            for (index, value) in values.enumerated() {
                #expect(view.typeIdentifier(at: index) == value.map { ObjectIdentifier(type(of: $0)) }, "slot \(index)")
            }
            #expect(view.value(at: 1, as: Int.self) == 42)
            #expect(view.value(at: 2, as: Double.self) == -1.5)
            #expect(view.value(at: 3, as: Bool.self) && !view.value(at: 4, as: Bool.self))
            #expect(view.value(at: 5, as: Date.self) == Date(timeIntervalSinceReferenceDate: 811_000_000))
            #expect(view.value(at: 6, as: String.self) == "short")
            #expect(view.value(at: 7, as: String.self) == values[7] as? String)
        }
        [Any?]().withSlotView { #expect($0.count == 0) }
    }

    @Test func inlineValuesCompareAsValuesAndOthersAreLeftToTheCaller() {
        let lhs: [Any?] = [
            nil, nil, 1, 1, 0.0, Double.nan, "é", "x", true, Date(timeIntervalSince1970: 5), 1, Reference(),
        ]
        let rhs: [Any?] = [
            nil, 1, 1, 2, -0.0, Double.nan, "e\u{301}", "y", true, Date(timeIntervalSince1970: 5), 1.0,
            Reference(),
        ]
        let expected: [Bool?] = [true, false, true, false, true, false, true, false, true, true, nil, nil]
        lhs.withSlotView { left in
            rhs.withSlotView { right in
                for index in lhs.indices {
                    #expect(SlotView.valuesEqual(left, right, at: index) == expected[index], "slot \(index)")
                }
            }
        }
    }

    @Test func identicalValuesAreTheSameBitsNotOnlyEqualOnes() {
        let long = "a string far too long to be stored in a small string's sixteen bytes"
        let sameStorage = long
        let otherStorage = String(decoding: Array(long.utf8), as: UTF8.self)
        let nan = Double.nan
        let lhs: [Any?] = [
            nil, nil, 1, 0.0, nan, "é", "x", long, long, true, Date(timeIntervalSince1970: 5), 1, Int32(1),
            Reference(),
        ]
        let rhs: [Any?] = [
            nil, 1, 1, -0.0, nan, "e\u{301}", "x", sameStorage, otherStorage, true, Date(timeIntervalSince1970: 5),
            1.0, Int32(1), Reference(),
        ]
        #expect(otherStorage == long)
        // NaN is the same bits though not equal; equal strings in other storage are not the same bits; values of
        // other types (Int32, a class) are never called identical.
        let expected = [true, false, true, false, true, false, true, true, false, true, true, false, false, false]
        lhs.withSlotView { left in
            rhs.withSlotView { right in
                for index in lhs.indices {
                    #expect(SlotView.valuesIdentical(left, right, at: index) == expected[index], "slot \(index)")
                }
            }
        }
    }

    @Test func aCopyHoldsEqualValuesInABufferOfItsOwn() throws {
        let values = Self.values()
        var copy = values.copyingSlots()
        #expect(copy.count == values.count)
        for index in values.indices {
            // Not comparable as values: the reference (compared by identity below) and NaN.
            if index != 8, index != values.count - 1 {
                #expect(ManagedObject.slotValuesEqual(copy[index], values[index]), "slot \(index)")
            }
            #expect(
                copy[index].map { ObjectIdentifier(type(of: $0)) }
                    == values[index].map { ObjectIdentifier(type(of: $0)) })
        }
        #expect((copy[8] as? Reference) === (values[8] as? Reference))
        copy[6] = "changed"
        copy[1] = nil
        let original = values
        #expect(original[6] as? String == "short")
        #expect(original[1] as? Int == 42)
        let empty: [Any?] = []
        #expect(empty.copyingSlots().count == 0)
    }

    private static func savedItem() throws -> (ManagedObjectContext, ManagedObject) {
        let item = EntityDescription(
            name: "Item",
            properties: [
                AttributeDescription(name: "count", type: .integer64, isOptional: false),
                AttributeDescription(name: "small", type: .integer16),
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "rate", type: .double),
                AttributeDescription(name: "when", type: .date),
                AttributeDescription(name: "done", type: .boolean),
            ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [item]))
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let object = context.insertNewObject(forEntityName: "Item")
        object.setValue(1, forKey: "count")
        object.setValue(2, forKey: "small")
        object.setValue("caf\u{E9}", forKey: "title")
        object.setValue(0.5, forKey: "rate")
        object.setValue(Date(timeIntervalSinceReferenceDate: 100), forKey: "when")
        object.setValue(true, forKey: "done")
        try context.save()
        return (context, object)
    }

    @Test func valuesSetBackToWhatTheyWereAreNoChange() throws {
        let (context, object) = try Self.savedItem()
        // Each inline type set to another value and back, the string spelled decomposed: equal, so nothing changed.
        let changes: [(String, Any, Any)] = [
            ("count", 5, 1), ("title", "tea", "cafe\u{301}"), ("rate", 2.5, 0.5),
            ("when", Date(timeIntervalSinceReferenceDate: 7), Date(timeIntervalSinceReferenceDate: 100)),
            ("done", false, true),
        ]
        for (key, other, original) in changes {
            object.setValue(other, forKey: key)
            #expect(Set(object.changedValues().keys) == [key])
            object.setValue(original, forKey: key)
            #expect(object.changedValues().isEmpty, "\(key)")
        }
        #expect(!context.hasChanges)
        object.setValue(nil, forKey: "title")
        object.setValue(0.75, forKey: "rate")
        #expect(Set(object.changedValues().keys) == ["title", "rate"])
        #expect(object.committedValues(forKeys: ["title"])["title"] as? String == "caf\u{E9}")
        try context.save()
        #expect(object.committedValues(forKeys: ["rate"])["rate"] as? Double == 0.75)
    }

    @Test func anUpdateValidatesTheValuesItDidNotChangeToo() throws {
        let (context, object) = try Self.savedItem()
        // A wrong value in a slot the change does not touch (as a custom store could hand it over) fails the update.
        object.setValue(3, forKey: "count")
        func storeValue(_ value: Any?, forKey key: String) {
            let slot = object.entity.layout.slot(forKey: key)!
            object.slots[slot] = value
            object.snapshot![slot] = value
        }
        storeValue(42, forKey: "title")
        #expect(Set(object.changedValues().keys) == ["count"])
        let wrongType = try #require(throws: ValidationError.self) { try context.save() }
        #expect(wrongType.allErrors.map(\.code) == [.wrongType])
        storeValue("fine", forKey: "title")
        storeValue(40_000, forKey: "small")
        let outOfRange = try #require(throws: ValidationError.self) { try context.save() }
        #expect(outOfRange.allErrors.map(\.code) == [.wrongType])  // no Int16 holds it
        storeValue(nil, forKey: "count")
        storeValue(9, forKey: "small")
        object.setValue(0.25, forKey: "rate")
        let missing = try #require(throws: ValidationError.self) { try context.save() }
        #expect(missing.allErrors.map(\.code) == [.missingMandatoryProperty])
        // Nothing reached the store.
        let reader = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let stored = try reader.existingObject(with: object.objectID)
        #expect(stored.value(forKey: "count") as? Int == 1 && stored.value(forKey: "title") as? String == "caf\u{E9}")
        object.setValue(3, forKey: "count")
        try context.save()
        reader.refreshAllObjects()
        #expect(stored.value(forKey: "count") as? Int == 3 && stored.value(forKey: "rate") as? Double == 0.25)
    }
}
