import Foundation

/// A read-only view of an array of slot values that reads each value's type, and values of a few inline types, in
/// place.
///
/// Copying an `Any?` out of an array goes through two witness tables (`Optional<Any>`'s copy, then the value's own),
/// and the compiler copies even to compare with nil or to ask a value's type. Those copies were most of validating
/// an object and of finding its changed slots, which a save does for every object it writes: in a child context's
/// save of 10k changed objects (benchmark row "child save of 10k changes into parent vs SQLite save"), validation
/// and finding changes cost about 2,300 of 6,500 instructions per object (callgrind), 930 read in place.
///
/// The view relies on the layout of an existential container, which Swift's ABI fixes: three words of inline
/// buffer, then the value's type metadata; `Optional<Any>.none` is the metadata word 0 (its extra inhabitant).
/// Values of the types read here (`Int`, `Double`, `Bool`, `Date`, `String`) are stored inline, at the start of
/// the buffer. `SlotViewTests` checks that layout with values of every kind.
struct SlotView {
    private let base: UnsafeRawPointer?
    let count: Int

    private static let stride = MemoryLayout<Any?>.stride
    private static let metadataOffset = 3 * MemoryLayout<Int>.size

    fileprivate init(base: UnsafeRawPointer?, count: Int) {
        precondition(MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size, "unexpected existential layout")
        self.base = base
        self.count = count
    }

    /// The type of the value at `index`, `nil` when the slot holds nil.
    @inline(__always)
    func typeIdentifier(at index: Int) -> ObjectIdentifier? {
        precondition(index >= 0 && index < count, "slot index out of range")
        let metadata = base.unsafelyUnwrapped.load(
            fromByteOffset: index &* Self.stride &+ Self.metadataOffset, as: UnsafeRawPointer?.self)
        return metadata.map { ObjectIdentifier(unsafeBitCast($0, to: Any.Type.self)) }
    }

    /// The value at `index`, which holds a value of type `T` (its ``typeIdentifier(at:)`` is `T`'s). `T` is one of
    /// the inline types above.
    @inline(__always)
    func value<T>(at index: Int, as type: T.Type) -> T {
        precondition(typeIdentifier(at: index) == ObjectIdentifier(T.self), "slot holds another type")
        return base.unsafelyUnwrapped.load(fromByteOffset: index &* Self.stride, as: T.self)
    }

    /// A copy of the value at `index` when it is nil or of one of the inline types, made as that type (no witness
    /// table); `nil` for values of other types, which the caller copies from the array.
    @inline(__always)
    func copy(at index: Int) -> Any?? {
        switch typeIdentifier(at: index) {
        case nil: .some(nil)
        case ObjectIdentifier(Int.self): value(at: index, as: Int.self)
        case ObjectIdentifier(String.self): value(at: index, as: String.self)
        case ObjectIdentifier(Double.self): value(at: index, as: Double.self)
        case ObjectIdentifier(Date.self): value(at: index, as: Date.self)
        case ObjectIdentifier(Bool.self): value(at: index, as: Bool.self)
        default: nil
        }
    }

    /// Whether the values at `index` in two views are the same value in the same representation: both nil, or of the
    /// same inline type with the same bits (a `Double`'s bit pattern, so `-0.0` is not `0.0`; a `String`'s two
    /// words, so equal strings in other storage or another normalization are not the same). `false` for values of
    /// other types, which the caller does not compare.
    @inline(__always)
    static func valuesIdentical(_ lhs: SlotView, _ rhs: SlotView, at index: Int) -> Bool {
        let type = lhs.typeIdentifier(at: index)
        guard type == rhs.typeIdentifier(at: index) else { return false }
        switch type {
        case nil: return true
        case ObjectIdentifier(Int.self): return lhs.value(at: index, as: Int.self) == rhs.value(at: index, as: Int.self)
        case ObjectIdentifier(Double.self):
            return lhs.value(at: index, as: Double.self).bitPattern == rhs.value(at: index, as: Double.self).bitPattern
        case ObjectIdentifier(Date.self):
            return lhs.value(at: index, as: Date.self).timeIntervalSinceReferenceDate.bitPattern
                == rhs.value(at: index, as: Date.self).timeIntervalSinceReferenceDate.bitPattern
        case ObjectIdentifier(Bool.self):
            return lhs.value(at: index, as: Bool.self) == rhs.value(at: index, as: Bool.self)
        case ObjectIdentifier(String.self):
            return lhs.stringWords(at: index) == rhs.stringWords(at: index)
        default: return false
        }
    }

    /// The two words of the `String` at `index`, read without retaining its storage.
    @inline(__always)
    private func stringWords(at index: Int) -> SIMD2<UInt64> {
        precondition(MemoryLayout<String>.size == MemoryLayout<SIMD2<UInt64>>.size, "unexpected String layout")
        return base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: index &* Self.stride, as: SIMD2<UInt64>.self)
    }

    /// Whether the values at `index` in two views are equal, when both are nil or of one of the inline types;
    /// `nil` (undecided) for values of other types, which the caller compares as values.
    @inline(__always)
    static func valuesEqual(_ lhs: SlotView, _ rhs: SlotView, at index: Int) -> Bool? {
        let type = lhs.typeIdentifier(at: index)
        let otherType = rhs.typeIdentifier(at: index)
        guard let type, let otherType else { return type == nil && otherType == nil }
        guard type == otherType else { return nil }
        switch type {
        case ObjectIdentifier(Int.self): return lhs.value(at: index, as: Int.self) == rhs.value(at: index, as: Int.self)
        case ObjectIdentifier(Double.self):
            return lhs.value(at: index, as: Double.self) == rhs.value(at: index, as: Double.self)
        case ObjectIdentifier(String.self):
            return lhs.value(at: index, as: String.self) == rhs.value(at: index, as: String.self)
        case ObjectIdentifier(Date.self):
            return lhs.value(at: index, as: Date.self) == rhs.value(at: index, as: Date.self)
        case ObjectIdentifier(Bool.self):
            return lhs.value(at: index, as: Bool.self) == rhs.value(at: index, as: Bool.self)
        default: return nil
        }
    }
}

extension Array where Element == Any? {
    /// A copy of the array in a buffer of its own. Values of the inline types are copied as those types; only
    /// others go through their witness tables, as every value of an array's copy-on-write copy does. (The buffer is
    /// reserved, not made with `init(unsafeUninitializedCapacity:)`, which allocates through an unspecialized
    /// generic path that cost more than copying four values.)
    func copyingSlots() -> [Any?] {
        var copy: [Any?] = []
        copy.reserveCapacity(count)
        withSlotView { view in
            // The switch of `SlotView.copy(at:)` written out again: appending its `Any??` result doubled the
            // instructions of a child's save spent here (callgrind).
            for index in 0..<view.count {
                switch view.typeIdentifier(at: index) {
                case nil: copy.append(nil)
                case ObjectIdentifier(Int.self): copy.append(view.value(at: index, as: Int.self))
                case ObjectIdentifier(String.self): copy.append(view.value(at: index, as: String.self))
                case ObjectIdentifier(Double.self): copy.append(view.value(at: index, as: Double.self))
                case ObjectIdentifier(Date.self): copy.append(view.value(at: index, as: Date.self))
                case ObjectIdentifier(Bool.self): copy.append(view.value(at: index, as: Bool.self))
                default: copy.append(self[index])
                }
            }
        }
        return copy
    }

    /// `self[index]`, copied as ``copyingSlots()`` copies each value.
    @inline(__always)
    func copyOfSlot(_ index: Int) -> Any? {
        withSlotView { view in view.copy(at: index) } ?? self[index]
    }

    /// Calls `body` with a view of the array's values (see ``SlotView``); the view is valid only inside `body`.
    @inline(__always)
    func withSlotView<R>(_ body: (SlotView) throws -> R) rethrows -> R {
        try withUnsafeBytes { raw in try body(SlotView(base: raw.baseAddress, count: count)) }
    }
}
