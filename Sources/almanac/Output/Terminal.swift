#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the client knows about where its output goes.
struct Terminal: Sendable {
    /// Whether standard output is a terminal.
    var isTerminal: Bool
    /// The width in columns (COLUMNS, else the terminal's size, else 80).
    var width: Int
    /// Whether colour may be used: only on a terminal, never when NO_COLOR is set.
    var colors: Bool

    static func current(environment: [String: String]) -> Terminal {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        return Terminal(
            isTerminal: isTerminal,
            width: width(environment: environment, fd: STDOUT_FILENO),
            colors: wantsColors(isTerminal: isTerminal, environment: environment)
        )
    }

    static func wantsColors(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal, environment["NO_COLOR"] == nil else { return false }
        return environment["TERM"] != "dumb"
    }

    static func width(environment: [String: String], fd: CInt) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        var size = winsize()
        #if canImport(Glibc)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        if ioctl(fd, request, &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
