import Foundation

extension PredicateSQLCompiler {
    /// `BEGINSWITH`, `ENDSWITH`, `LIKE` and `MATCHES` of a string column with a constant pattern.
    ///
    /// - `BEGINSWITH` without options is an index-friendly range `col >= p AND col < p⁺` (strings are stored in
    ///   NFC, whose byte order is Swift's order); with options, a prefix comparison of the folded text.
    /// - `ENDSWITH` compares the last bytes (`substr(CAST(col AS BLOB), -n)`); prefix, suffix and substring tests
    ///   compare UTF-8 bytes, which for NFC text is Swift's comparison of scalars.
    /// - `LIKE` becomes a case-sensitive `GLOB` (`*` and `?` as in the framework's wildcards, everything else
    ///   literal), over the folded text for `[c]`/`[d]`.
    /// - `MATCHES` calls the registered `regexp(pattern, text, flags)`, which follows the framework's rules.
    package func stringTest(
        _ expression: String, _ op: ComparisonOperator, pattern: String,
        options: ComparisonOptions
    ) -> SQLFragment? {
        let folding = options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive)
        guard let column = folded(expression, kind: .string, options: options), dialect.canBind(pattern) else {
            return nil
        }
        switch op {
        case .beginsWith:
            let prefix = Self.fold(pattern, options)
            if prefix.isEmpty { return SQLFragment("\(expression) IS NOT NULL") }
            if !folding, let upper = Self.successor(of: prefix) {
                return SQLFragment(
                    "\(expression) >= ? AND \(expression) < ?", [.text(prefix), .text(upper)],
                    mayBeNull: true)
            }
            return dialect.hasPrefix(column, prefix)
        case .endsWith:
            let suffix = Self.fold(pattern, options)
            if suffix.isEmpty { return SQLFragment("\(expression) IS NOT NULL") }
            return dialect.hasSuffix(column, suffix)
        case .like:
            // GLOB reads text up to a NUL; such patterns are matched in memory.
            guard !pattern.utf8.contains(0) else { return nil }
            return dialect.matchesWildcards(column, pattern: Self.fold(pattern, options))
        case .matches:
            let caseless = options.contains(.caseInsensitive)
            guard (try? NSRegularExpression(pattern: pattern, options: caseless ? [.caseInsensitive] : [])) != nil
            else { return nil }
            let flags = (caseless ? 1 : 0) + (options.contains(.diacriticInsensitive) ? 2 : 0)
            return dialect.matchesRegularExpression(expression, pattern: pattern, flags: flags)
        default:
            return nil
        }
    }

    /// The smallest string greater than every string that starts with `prefix` (its last scalar incremented);
    /// `nil` when there is none.
    package static func successor(of prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                return String(view)
            }
        }
        return nil
    }

    /// Translates a framework wildcard pattern (`*`, `?`, `\` escapes) to a `GLOB` pattern.
    package static func glob(fromLike pattern: String) -> String {
        var result = ""
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                result += literal(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" || scalar == "?" {
                result.unicodeScalars.append(scalar)
            } else {
                result += literal(scalar)
            }
        }
        if escaping { result += literal("\\") }
        return result
    }

    private static func literal(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "*": "[*]"
        case "?": "[?]"
        case "[": "[[]"
        default: String(scalar)
        }
    }
}
