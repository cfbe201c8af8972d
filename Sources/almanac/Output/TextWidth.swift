/// Terminal display width of text: wide East Asian characters and most emoji take two columns, combining marks
/// none.
enum TextWidth {
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 || (0x300...0x36F).contains(value) || value == 0x200B || value == 0x200D
            || (0xFE00...0xFE0F).contains(value)
        {
            return 0
        }
        if (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value) || (0xAC00...0xD7A3).contains(value)
            || (0xF900...0xFAFF).contains(value) || (0xFE30...0xFE4F).contains(value)
            || (0xFF00...0xFF60).contains(value) || (0xFFE0...0xFFE6).contains(value)
            || (0x1F300...0x1FAFF).contains(value) || (0x20000...0x3FFFD).contains(value)
        {
            return 2
        }
        return 1
    }

    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    /// The text cut to at most `width` columns, ending in `…` when cut. The cut falls after a whole word when
    /// that keeps at least half the width (`Saal GLITCH…`, not `Saal GL…`), else inside the word; with
    /// `wholeWords`, after a whole word whenever the text has a space before the cut.
    static func clip(_ text: String, to width: Int, wholeWords: Bool = false) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        var rest = Substring(text)
        for character in text {
            let characterWidth = of(String(character))
            if used + characterWidth > width - 1 { break }
            result.append(character)
            rest = rest.dropFirst()
            used += characterWidth
        }
        // Cut at the last space when the cut would otherwise split a word.
        if let next = rest.first, !next.isWhitespace, let space = result.lastIndex(where: \.isWhitespace),
            wholeWords || of(String(result[..<space])) * 2 >= width
        {
            result = String(result[..<space])
        }
        while let last = result.last, last.isWhitespace || last == "," || last == ":" || last == "-" {
            result.removeLast()
        }
        return result + "…"
    }

    /// The text clipped to `width` and padded with spaces to exactly `width` columns.
    static func pad(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let clipped = clip(text, to: width)
        let padding = String(repeating: " ", count: max(0, width - of(clipped)))
        return alignRight ? padding + clipped : clipped + padding
    }

    /// Single-line text: newlines and tabs become spaces.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
