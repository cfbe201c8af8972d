import SafeXML

/// A problem in the content of an otherwise well-formed document, found by this module's readers.
///
/// Internal: converted to ``ObjectGraph/StoreError`` or ``ObjectGraph/ModelError`` at the module's edge.
struct XMLFormatError: Error {
    /// What is wrong, without any attribute value.
    var message: String
    /// The 1-based line of the element involved, or 0 when unknown.
    var line: Int

    init(_ message: String, line: Int) {
        self.message = message
        self.line = line
    }
}
