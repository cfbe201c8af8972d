import Foundation

/// The process's resident memory, for tests that check that repeating an operation leaves nothing behind.
///
/// Tests run in parallel, so other tests' allocations add noise: ``growth(rounds:_:)`` repeats the measurement and
/// keeps the smallest growth; a leak grows every round. Five rounds, not three: on a loaded machine (a CI run beside
/// a sanitizer build) every one of three rounds once grew by 44 MB through other tests alone.
enum ResidentMemory {
    /// The resident set size in bytes (`/proc/self/statm`); 0 where it cannot be read.
    static var bytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The smallest growth of the resident memory over `rounds` runs of `body`.
    static func growth(rounds: Int = 5, _ body: () throws -> Void) rethrows -> Int {
        var smallest = Int.max
        for _ in 0..<rounds {
            let before = bytes
            try body()
            smallest = min(smallest, bytes - before)
        }
        return smallest
    }
}
