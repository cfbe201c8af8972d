import ArgumentParser

/// How results are printed.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// Aligned columns with a header, times in the conference's zone (for people).
    case table
    /// The daemon's objects unchanged, as one JSON array (or the answer's object).
    case json
    /// One JSON object per line.
    case ndjson
    /// RFC 4180 comma-separated values with a header; raw values (dates as ISO 8601).
    case csv
    /// Tab-separated values with a header; tabs and newlines in values are escaped as \t and \n.
    case tsv
}
