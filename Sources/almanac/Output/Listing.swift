import AlmanacWire

/// Rows to print, in any ``OutputFormat``: each cell has a human text (tables) and a raw text (CSV, TSV); the raw
/// JSON objects are kept for `json` and `ndjson`.
struct Listing: Sendable {
    struct Column: Sendable, Hashable {
        enum Alignment: Sendable { case left, right }
        /// The header in tables.
        var header: String
        /// The header in CSV and TSV (a field name).
        var key: String
        var alignment: Alignment = .left
        /// Whether the column may be shortened to fit the terminal (long text such as titles).
        var isFlexible = false
        /// Whether the column is what a person reads the row for (a title): the other flexible columns (room,
        /// track, conference) shrink first, and this one only when they cannot shrink further.
        var isPrimary = false
        /// The narrowest the column gets before the primary column shrinks below 10 (`UTC (assumed!)` stays whole).
        var minimumWidth = 0
        /// Whether the column gives way before every other (an error text, read in full with `--verbose`).
        var shrinksFirst = false
        /// Whether a table too wide for the terminal may leave the column out (the last such column first), once
        /// the flexible columns are as narrow as they read well.
        var isOptional = false
        /// Where the column appears.
        var visibility: Visibility = .everywhere

        enum Visibility: Sendable { case everywhere, tableOnly, dataOnly }
    }

    struct Cell: Sendable, Hashable {
        var text: String
        var raw: String
        var style: TextStyle = .plain

        init(_ text: String, raw: String? = nil, style: TextStyle = .plain) {
            self.text = text
            self.raw = raw ?? text
            self.style = style
        }
    }

    var columns: [Column]
    var rows: [[Cell]]
    /// The objects behind the rows, for `json` and `ndjson`.
    var objects: [JSONValue]

    /// The listing without the columns that do not appear in `format`.
    func columns(for format: OutputFormat) -> Listing {
        let keep = columns.indices.filter { index in
            switch columns[index].visibility {
            case .everywhere: return true
            case .tableOnly: return format == .table
            case .dataOnly: return format != .table
            }
        }
        return Listing(
            columns: keep.map { columns[$0] },
            rows: rows.map { row in keep.map { $0 < row.count ? row[$0] : Cell("") } },
            objects: objects
        )
    }
}

/// The few text styles the client uses (only on a terminal without NO_COLOR).
enum TextStyle: Sendable, Hashable {
    case plain, bold, dim, red, green, yellow, cyan
    /// A 24-bit foreground colour (a track's colour from the schedule file).
    case rgb(red: UInt8, green: UInt8, blue: UInt8)

    /// A colour written `#RRGGBB` (or `RRGGBB`), as schedule files give track colours; nil for anything else.
    init?(hexColor text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self = .rgb(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    var ansiCode: String? {
        switch self {
        case .rgb(let red, let green, let blue): return "38;2;\(red);\(green);\(blue)"
        case .plain: return nil
        case .bold: return "1"
        case .dim: return "2"
        case .red: return "31"
        case .green: return "32"
        case .yellow: return "33"
        case .cyan: return "36"
        }
    }

    func apply(_ text: String, colors: Bool) -> String {
        guard colors, let code = ansiCode, !text.isEmpty else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
