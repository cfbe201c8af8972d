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
