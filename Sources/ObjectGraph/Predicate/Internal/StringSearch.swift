/// Substring search without Foundation bridging.
enum StringSearch {
    /// True when `haystack` contains `needle` (always true for an empty needle). ASCII strings are
    /// searched byte-wise; others character-wise, with canonical equivalence like `hasPrefix`.
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        if needle.isEmpty { return true }
        var haystack = haystack
        var needle = needle
        let fast: Bool? = haystack.withUTF8 { h in
            needle.withUTF8 { n -> Bool? in
                guard n.allSatisfy({ $0 < 0x80 }), h.allSatisfy({ $0 < 0x80 }) else { return nil }
                guard n.count <= h.count else { return false }
                let first = n[0]
                var i = 0
                let last = h.count - n.count
                while i <= last {
                    if h[i] == first {
                        var k = 1
                        while k < n.count, h[i + k] == n[k] { k += 1 }
                        if k == n.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
        if let fast { return fast }
        return haystack.firstRange(of: needle) != nil
    }
}
