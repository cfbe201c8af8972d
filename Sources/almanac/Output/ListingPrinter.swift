import AlmanacWire
import Foundation

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
        var listing = listing
        // An optional column with nothing in it (no errors, no tracks) is left out.
        for index in listing.columns.indices.reversed()
        where !listing.rows.isEmpty && (listing.columns[index].isOptional || listing.columns[index].shrinksFirst) {
            guard listing.rows.allSatisfy({ index >= $0.count || $0[index].text.isEmpty }) else { continue }
            listing.columns.remove(at: index)
            listing.rows = listing.rows.map { row in
                var row = row
                if index < row.count { row.remove(at: index) }
                return row
            }
        }
        var widths = naturalWidths(listing)
        // Leave optional columns out (the last first) while the table does not fit with readable widths.
        while let width, let optional = listing.columns.lastIndex(where: \.isOptional) {
            var trial = widths
            fit(&trial, columns: listing.columns, typical: typicalWidths(listing), stages: 4)
            guard trial.reduce(0, +) + 2 * (trial.count - 1) > width else { break }
            listing.columns.remove(at: optional)
            listing.rows = listing.rows.map { row in
                var row = row
                if optional < row.count { row.remove(at: optional) }
                return row
            }
            widths.remove(at: optional)
        }
        let columns = listing.columns
        guard !columns.isEmpty else { return "" }
        let rows = listing.rows.map { $0.map { TextWidth.singleLine($0.text) } }
        fit(&widths, columns: columns, typical: typicalWidths(listing))
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

    /// Shrinks flexible columns until the table fits the terminal: first those that shrink first (errors) to 20
    /// columns, then the primary one to the width nine in ten
    /// of its cells fit in, then the secondary ones (room, track,
    /// conference) to 12 columns, the title to 40, the secondary ones to 8, the title to 24 then 10, then all of
    /// them down to a few columns. The widest candidate shrinks first at each stage.
    /// The width nine in ten cells of each column fit in.
    private func typicalWidths(_ listing: Listing) -> [Int] {
        listing.columns.indices.map { index in
            let sizes = listing.rows.map { index < $0.count ? TextWidth.of(TextWidth.singleLine($0[index].text)) : 0 }
                .sorted()
            return sizes.isEmpty ? 0 : sizes[min(sizes.count - 1, sizes.count * 9 / 10)]
        }
    }

    private func naturalWidths(_ listing: Listing) -> [Int] {
        var widths = listing.columns.map { TextWidth.of($0.header) }
        for row in listing.rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], TextWidth.of(TextWidth.singleLine(cell.text)))
            }
        }
        return widths
    }

    private func fit(_ widths: inout [Int], columns: [Listing.Column], typical: [Int], stages count: Int = 9) {
        guard let width else { return }
        var total = widths.reduce(0, +) + 2 * (widths.count - 1)
        let headers = columns.map { TextWidth.of($0.header) }
        let natural = widths
        let stages: [(primary: Bool, floor: (Int) -> Int)] = [
            (false, { columns[$0].shrinksFirst ? max(headers[$0], 20) : natural[$0] }),
            // A title longer than nine in ten of the others does not push the other columns aside.
            (true, { max(headers[$0], 24, typical[$0]) }),
            (false, { max(headers[$0], 12, columns[$0].minimumWidth) }),
            (true, { max(headers[$0], 40) }),
            (false, { max(headers[$0], 8, columns[$0].minimumWidth) }),
            (true, { max(headers[$0], 24) }),
            (true, { max(headers[$0], 10) }),
            (false, { _ in 3 }),
            (true, { _ in 3 }),
        ]
        for stage in stages.prefix(count) {
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
