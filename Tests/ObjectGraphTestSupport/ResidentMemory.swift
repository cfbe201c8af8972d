import Foundation

/// The process's resident memory, for tests that check that repeating an operation leaves nothing behind.
///
/// Tests run in parallel, so other tests' allocations add noise: ``growth(below:limit:_:)`` repeats the measurement
/// until one round grows less than the bound, and returns the smallest growth. A leak grows every round; other
/// tests' growth stops once they finish. A fixed number of rounds was not enough: in CI, where such a test starts
/// early and the rest of the suite runs beside it, each of five rounds caught 40 MB of other tests' growth.
enum ResidentMemory {
    /// The resident set size in bytes (`/proc/self/statm`); 0 where it cannot be read.
    static var bytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The smallest growth of the resident memory over runs of `body`, run until one grows by less than `bound` or
    /// `limit` has passed (at least once).
    static func growth(below bound: Int, limit: Duration = .seconds(120), _ body: () throws -> Void) rethrows -> Int {
        let clock = ContinuousClock()
        let start = clock.now
        var smallest = Int.max
        repeat {
            let before = bytes
            try body()
            smallest = min(smallest, bytes - before)
        } while smallest >= bound && clock.now - start < limit
        return smallest
    }
}
