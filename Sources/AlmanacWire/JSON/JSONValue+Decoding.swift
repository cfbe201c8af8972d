extension JSONValue {
    /// The nesting depth the decoder accepts by default (arrays and objects inside each other).
    public static let defaultMaxDepth = 64

    /// Decodes one JSON text strictly (RFC 8259).
    ///
    /// Rejected, with a `parse_error` ``WireError`` carrying the byte `offset` of the problem: anything after the
    /// value but whitespace, nesting deeper than `maxDepth`, invalid UTF-8, unescaped control characters in strings,
    /// lone UTF-16 surrogates in `\u` escapes, duplicate keys in one object, leading zeros, `NaN`/`Infinity`.
    ///
    /// - Complexity: O(n) in the number of bytes.
    public init(parsing bytes: some Collection<UInt8>, maxDepth: Int = JSONValue.defaultMaxDepth) throws(WireError) {
        let result: Result<JSONValue, JSONSyntaxError>
        if let fast = bytes.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in
                var parser = JSONParser(buffer, maxDepth: maxDepth)
                return try parser.parseDocument()
            }
        }) {
            result = fast
        } else {
            let array = Array(bytes)
            result = array.withUnsafeBufferPointer { buffer in
                Result { () throws(JSONSyntaxError) -> JSONValue in
                    var parser = JSONParser(buffer, maxDepth: maxDepth)
                    return try parser.parseDocument()
                }
            }
        }
        switch result {
        case .success(let value): self = value
        case .failure(let error): throw WireError.parseError(error.message, offset: error.offset)
        }
    }

    /// Decodes one JSON text from a string; see ``init(parsing:maxDepth:)``.
    public init(parsing text: String, maxDepth: Int = JSONValue.defaultMaxDepth) throws(WireError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }
}
