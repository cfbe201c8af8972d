import Foundation

/// Finds the root element's name in the first bytes of an XML document without parsing it: skips a UTF-8
/// byte-order mark, white space, the XML declaration, processing instructions, comments and a DOCTYPE (with an
/// internal subset and quoted strings).
///
/// The one check behind every "is this XML file one of ours" question: the XML store's `<database>` and frab's
/// `<schedule>` (their store classes' `canOpen(prefix:)`).
package enum XMLRootSniffer {
    /// The root element's name, or `nil` when the bytes do not start like an XML document or end too early.
    /// Looks at no more than the first 64 KiB.
    package static func rootElementName(in prefix: Data) -> String? {
        let bytes = [UInt8](prefix.prefix(64 * 1024))
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "<"), index + 1 < bytes.count else { return nil }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "?") {
                guard let end = find([UInt8(ascii: "?"), UInt8(ascii: ">")], in: bytes, from: index + 2) else {
                    return nil
                }
                index = end + 2
            } else if bytes[index...].starts(with: Array("<!--".utf8)) {
                guard let end = find(Array("-->".utf8), in: bytes, from: index + 4) else { return nil }
                index = end + 3
            } else if next == UInt8(ascii: "!") {
                guard let end = endOfDeclaration(in: bytes, from: index + 2) else { return nil }
                index = end + 1
            } else {
                var end = index + 1
                while end < bytes.count, !isNameTerminator(bytes[end]) { end += 1 }
                guard end < bytes.count, end > index + 1 else { return nil }
                return String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            }
        }
        return nil
    }

    private static func isNameTerminator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "/")
    }

    /// The index of the `>` closing a `<!DOCTYPE …>`, skipping an internal subset in brackets and quoted strings.
    private static func endOfDeclaration(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        var bracketDepth = 0
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                bracketDepth += 1
            } else if byte == UInt8(ascii: "]") {
                bracketDepth -= 1
            } else if byte == UInt8(ascii: ">"), bracketDepth <= 0 {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count)
        where bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
