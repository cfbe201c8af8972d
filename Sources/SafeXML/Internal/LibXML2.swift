@preconcurrency import CLibXML2

/// libxml2's one-time global set-up, run lazily and exactly once (Swift globals initialize atomically).
private let libxml2Initialized: Void = xmlInitParser()

enum LibXML2 {
    /// Runs `xmlInitParser()` the first time it is called; later calls do nothing.
    static func initializeOnce() {
        _ = libxml2Initialized
    }

    /// Parser options for every document: never touch the network, never substitute entities, never load or
    /// validate against a DTD, keep text small in memory, record line numbers past 65,535 where libxml2 can.
    /// `XML_PARSE_HUGE` is added only when the caller's limits exceed libxml2's own caps; our own depth, size
    /// and text-length checks still apply then.
    static func options(for limits: XMLLimits) -> Int32 {
        var options = XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue
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
