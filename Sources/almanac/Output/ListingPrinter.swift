import AlmanacWire

/// Renders a ``Listing`` in an ``OutputFormat``.
struct ListingPrinter {
    var format: OutputFormat
    /// The terminal width for tables (nil: no limit).
    var width: Int?
    var colors: Bool

    func render(_ listing: Listing) -> String {
        let listing = listing.columns(for: format)
        switch format {
        case .table: return table(listing)
        case .json: return JSONValue.array(listing.objects).encodedString() + "\n"
        case .ndjson: return listing.objects.map { $0.encodedString() + "\n" }.joined()
        case .csv: return delimited(listing, separator: ",", escape: Self.csvField)
        case .tsv: return delimited(listing, separator: "\t", escape: Self.tsvField)
        }
    }

    // MARK: Table

    private func table(_ listing: Listing) -> String {
        let columns = listing.columns
        guard !columns.isEmpty else { return "" }
        var widths = columns.map { TextWidth.of($0.header) }
        let rows = listing.rows.map { $0.map { TextWidth.singleLine($0.text) } }
        for row in rows {
            for (index, text) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], TextWidth.of(text))
            }
        }
        fit(&widths, columns: columns)
        var output = ""
        let header = columns.enumerated().map { index, column in
            TextWidth.pad(column.header, to: widths[index], alignRight: column.alignment == .right)
        }
        output += TextStyle.bold.apply(trimmed(header.joined(separator: "  ")), colors: colors) + "\n"
        for (rowIndex, row) in rows.enumerated() {
            var cells: [String] = []
            for (index, column) in columns.enumerated() {
                let text = index < row.count ? row[index] : ""
                let padded = TextWidth.pad(text, to: widths[index], alignRight: column.alignment == .right)
                let style = index < listing.rows[rowIndex].count ? listing.rows[rowIndex][index].style : .plain
                cells.append(style == .plain ? padded : style.apply(padded, colors: colors))
            }
            output += trimmed(cells.joined(separator: "  ")) + "\n"
        }
        return output
    }

    /// Shrinks flexible columns until the table fits the terminal: first the secondary ones (room, track,
    /// conference) down to a readable width, then the primary one (the title) down to its own, then all of them
    /// down to a few columns. The widest candidate shrinks first at each stage.
    private func fit(_ widths: inout [Int], columns: [Listing.Column]) {
        guard let width else { return }
        var total = widths.reduce(0, +) + 2 * (widths.count - 1)
        let headers = columns.map { TextWidth.of($0.header) }
        let stages: [(primary: Bool, floor: (Int) -> Int)] = [
            (false, { max(headers[$0], 12) }),
            (true, { max(headers[$0], 24) }),
            (false, { max(headers[$0], 6) }),
            (true, { max(headers[$0], 10) }),
            (false, { _ in 3 }),
            (true, { _ in 3 }),
        ]
        for stage in stages {
            while total > width {
                let candidates = widths.indices.filter {
                    columns[$0].isFlexible && columns[$0].isPrimary == stage.primary && widths[$0] > stage.floor($0)
                }
                guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
                // Shrink the widest down to the next widest (so they shrink together), by at least one column.
                let next = max(stage.floor(widest), candidates.filter { $0 != widest }.map { widths[$0] }.max() ?? 0)
                let step = max(1, min(total - width, widths[widest] - next))
                let target = max(stage.floor(widest), widths[widest] - step)
                total -= widths[widest] - target
                widths[widest] = target
            }
        }
    }

    private func trimmed(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }

    // MARK: CSV and TSV

    private func delimited(_ listing: Listing, separator: String, escape: (String) -> String) -> String {
        var output = listing.columns.map { escape($0.key) }.joined(separator: separator) + lineEnd
        for row in listing.rows {
            output += row.map { escape($0.raw) }.joined(separator: separator) + lineEnd
        }
        return output
    }

    private var lineEnd: String { format == .csv ? "\r\n" : "\n" }

    /// RFC 4180: quote fields holding a comma, quote, CR or LF; double the quotes.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// TSV (IANA text/tab-separated-values with the common escapes): `\`, tab, LF and CR escaped.
    static func tsvField(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": output += "\\\\"
            case "\t": output += "\\t"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}

import Foundation
