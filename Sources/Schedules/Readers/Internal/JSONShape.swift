/// Byte-level JSON scans that run before (or instead of) a full parse.
enum JSONShape {
    /// Whether the object starting at `start` has `key` among its top-level keys. Stops at the first
    /// malformed byte it cannot skip; never recurses.
    static func hasTopLevelKey(_ key: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        let wanted = Array(key.utf8)
        var depth = 0
        var index = start
        var expectingKey = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                depth += 1
                expectingKey = depth == 1
                index += 1
            case UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 { return false }
                index += 1
            case UInt8(ascii: ","):
                expectingKey = depth == 1
                index += 1
            case UInt8(ascii: "\""):
                let stringStart = index + 1
                index = stringStart
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return false }
                if expectingKey && depth == 1 && index - stringStart == wanted.count {
                    var same = true
                    for offset in 0..<wanted.count where bytes[stringStart + offset] != wanted[offset] {
                        same = false
                        break
                    }
                    if same { return true }
                }
                expectingKey = false
                index += 1
            default:
                index += 1
            }
        }
        return false
    }

    /// The deepest array/object nesting in the bytes, stopping as soon as it exceeds `limit`, plus the line
    /// where the limit was crossed. Strings are skipped, so brackets inside them do not count.
    static func nestingDepth(of bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> (depth: Int, line: Int) {
        var depth = 0
        var deepest = 0
        var line = 1
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 10 { line += 1 }
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return (deepest, line) }
                }
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
            }
            index += 1
        }
        return (deepest, line)
    }
}
