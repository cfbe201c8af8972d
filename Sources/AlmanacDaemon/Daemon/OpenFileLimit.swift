import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`), which bounds how many connections the daemon can hold.
///
/// Most systems start a process with a soft limit of 1,024 and a much higher hard limit (systemd: 524,288); the
/// daemon raises the soft limit to the hard one at start (``raiseToHard()``) and fits its connection limits to what
/// it got (``ConnectionLimits/fitted(toOpenFileLimit:)``).
public struct OpenFileLimit: Sendable, Hashable {
    /// The limit in force.
    public var soft: Int
    /// The most the soft limit may be raised to.
    public var hard: Int

    /// A limit of `soft` and `hard` descriptors.
    public init(soft: Int, hard: Int) {
        self.soft = soft
        self.hard = hard
    }

    /// The process's limit now.
    public static func current() -> OpenFileLimit {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return OpenFileLimit(soft: 1024, hard: 1024) }
        return OpenFileLimit(soft: Self.count(limit.rlim_cur), hard: Self.count(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (to the kernel's `nr_open` when the hard limit is unlimited).
    ///
    /// - Returns: The limit afterwards, and the `errno` text when raising failed (the limit is then unchanged; a
    ///   seccomp filter or a container may forbid it).
    @discardableResult
    public static func raiseToHard() -> (limit: OpenFileLimit, failure: String?) {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return (current(), String(cString: strerror(errno))) }
        var target = limit.rlim_max
        if target == Self.unlimited { target = rlim_t(Self.kernelMaximum) }
        guard limit.rlim_cur < target else { return (current(), nil) }
        var raised = limit
        raised.rlim_cur = target
        guard setrlimit(Self.resource, &raised) == 0 else { return (current(), String(cString: strerror(errno))) }
        return (current(), nil)
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif

    /// `RLIM_INFINITY` (all bits set; Swift cannot import the C macro).
    private static let unlimited = rlim_t.max

    /// The most descriptors a process may have (`/proc/sys/fs/nr_open`, 1,048,576 when unreadable).
    private static var kernelMaximum: Int {
        let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8)
        guard let value = text.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), value > 0
        else { return 1 << 20 }
        return value
    }

    private static func count(_ value: rlim_t) -> Int {
        value == Self.unlimited || value > rlim_t(Int.max) ? Int.max : Int(value)
    }
}
