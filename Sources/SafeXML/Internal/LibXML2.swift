@preconcurrency import CLibXML2

/// libxml2's one-time global set-up, run lazily and exactly once (Swift globals initialize atomically).
private let libxml2Initialized: Void = xmlInitParser()

enum LibXML2 {
    /// Runs `xmlInitParser()` the first time it is called; later calls do nothing.
    static func initializeOnce() {
        _ = libxml2Initialized
    }

    /// Parser options for every document: never touch the network; entities are never substituted and no DTD
    /// is loaded or validated against (none of those options is set). `XML_PARSE_HUGE` is added only when the
    /// caller's limits exceed libxml2's own caps; our own depth, size and text-length checks still apply then.
    /// (No tree is built, so the tree options of xmlTextReader's days, compact text and big line numbers, are
    /// gone: the SAX callbacks read lines from the parser, which counts them in a full `int`.)
    static func options(for limits: XMLLimits) -> Int32 {
        var options = XML_PARSE_NONET.rawValue
        if limits.needsHugeMode {
            options |= XML_PARSE_HUGE.rawValue
        }
        return Int32(bitPattern: options)
    }

    /// Frees a string that a non-`Const` libxml2 function handed over.
    static func free(_ string: UnsafeMutablePointer<xmlChar>?) {
        guard let string else { return }
        xmlFree(string)
    }
}
