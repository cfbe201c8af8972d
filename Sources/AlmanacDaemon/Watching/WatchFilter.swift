/// Which file names in a watched folder count as schedule files.
///
/// Dotfiles, editor backups (`*~`), swap files (`*.swp`, `*.swx`, `.#*`, `#*#`), and files still being written by
/// convention (`*.tmp`, `*.part`, `*.crdownload`, `*.download`) are ignored.
public struct WatchFilter: Sendable {
    /// Extra suffixes to ignore, besides the built-in ones.
    public var ignoredSuffixes: [String]

    /// Creates a filter.
    public init(ignoredSuffixes: [String] = []) {
        self.ignoredSuffixes = ignoredSuffixes
    }

    private static let builtInSuffixes = ["~", ".tmp", ".part", ".swp", ".swx", ".crdownload", ".download", ".lock",
                                          "-journal", "-wal", "-shm"]

    /// Whether a file name is a candidate schedule file.
    public func accepts(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasPrefix("#") else { return false }
        let lower = name.lowercased()
        for suffix in Self.builtInSuffixes + ignoredSuffixes where lower.hasSuffix(suffix) { return false }
        return true
    }
}
