extension Array {
    /// `count` nils, written for the concrete element type: `Array(repeating: nil, count:)` copies the nil into each
    /// place through the existential's value witness (a quarter of converting a batch-inserted object once), and
    /// `init(unsafeUninitializedCapacity:)` allocates through an unspecialized generic path; a reserved array
    /// appended to costs about half of the first and three quarters of the second (callgrind, six nils).
    static func nils<Wrapped>(count: Int) -> [Wrapped?] where Element == Wrapped? {
        var nils: [Wrapped?] = []
        nils.reserveCapacity(count)
        for _ in 0..<count { nils.append(nil) }
        return nils
    }
}
