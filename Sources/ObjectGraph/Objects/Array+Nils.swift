import Foundation

/// Reads the common canonical values (`Int`, `Double`, `Bool`, `Date`, `String`) straight out of slots of values
/// (a record row's `(any Sendable)?`, a managed object's `Any?`, which share one layout), without copying each value
/// out, opening it and destroying the copy: binding a saved row did that for every column of every row, and
/// validating a new object for every attribute.
///
/// An optional existential is laid out as Swift's ABI describes (docs/ABI/TypeLayout.rst): a three-word inline
/// buffer, then the value's type metadata, null for `nil`. Values of these types are small and bitwise-takable, so
/// they sit in the buffer. `isUsable` checks all of that once, on sample values; when it fails, callers take the
/// ordinary way, which gives the same results.
package enum SlotReader {
    // Inlinable, and the types' addresses computed where they are used: the SQLite store reads slots in its binding
    // loop, from another module, and a call (and a once-check for each stored constant) per value showed up there.

    /// The slot size and the metadata word's offset in it.
    @usableFromInline static var slotSize: Int { MemoryLayout<(any Sendable)?>.stride }
    @usableFromInline static var metadataOffset: Int { 3 * MemoryLayout<UnsafeRawPointer>.stride }

    @inlinable package static var intType: UInt { metadata(of: Int.self) }
    @inlinable package static var doubleType: UInt { metadata(of: Double.self) }
    @inlinable package static var boolType: UInt { metadata(of: Bool.self) }
    @inlinable package static var dateType: UInt { metadata(of: Date.self) }
    @inlinable package static var stringType: UInt { metadata(of: String.self) }

    /// Whether slots have the layout this reader expects, checked on sample values of every type it reads.
    package static let isUsable: Bool = {
        guard MemoryLayout<(any Sendable)?>.size == 4 * MemoryLayout<UnsafeRawPointer>.stride,
              MemoryLayout<Any?>.stride == slotSize else { return false }
        let date = Date(timeIntervalSinceReferenceDate: 1234.5)
        let long = "a string too long to be stored in the string's own bytes"
        let samples: [(any Sendable)?] = [-42, 2.5, true, date, "short", long, nil]
        return samples.withUnsafeBufferPointer { buffer in
            let slot = { (index: Int) in slotPointer(UnsafeRawPointer(buffer.baseAddress!), index) }
            return type(at: slot(0)) == intType && slot(0).load(as: Int.self) == -42
                && type(at: slot(1)) == doubleType && slot(1).load(as: Double.self) == 2.5
                && type(at: slot(2)) == boolType && slot(2).load(as: Bool.self)
                && type(at: slot(3)) == dateType && slot(3).load(as: Date.self) == date
                && type(at: slot(4)) == stringType && slot(4).load(as: String.self) == "short"
                && type(at: slot(5)) == stringType && slot(5).load(as: String.self) == long
                && type(at: slot(6)) == nil
        }
    }()

    /// The slot at `index` of a row's buffer.
    @inlinable @inline(__always)
    package static func slotPointer(_ base: UnsafeRawPointer, _ index: Int) -> UnsafeRawPointer {
        base + index * slotSize
    }

    /// The address of the type metadata of the value in a slot; `nil` for an empty slot.
    @inlinable @inline(__always)
    package static func type(at slot: UnsafeRawPointer) -> UInt? {
        let metadata = slot.load(fromByteOffset: metadataOffset, as: UInt.self)
        return metadata == 0 ? nil : metadata
    }

    /// The address of a type's metadata, as ``type(at:)`` gives it.
    @inlinable
    package static func metadata(of type: Any.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
    }
}

extension Array {
    /// `count` nils, written for the concrete element type: `Array(repeating: nil, count:)` copies the nil into each
    /// place through the existential's value witness (a quarter of converting a batch-inserted object once).
    static func nils<Wrapped>(count: Int) -> [Wrapped?] where Element == Wrapped? {
        [Wrapped?](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { (buffer.baseAddress! + index).initialize(to: nil) }
            initialized = count
        }
    }
}
