/// Bounds that protect a reader against hostile or corrupt documents.
///
/// Every violation throws an ``XMLError`` with its own code. The defaults suit Core Data XML stores, Xcode model
/// files and conference schedules; raise them only for documents you trust.
public struct XMLLimits: Sendable, Hashable {
    /// The deepest element nesting accepted; the root element is at depth 1. Default 256.
    /// Exceeding it throws ``XMLError/Code/tooDeep``.
    public var maxDepth: Int
    /// The largest document accepted, in bytes. Default 512 MiB.
    /// Exceeding it throws ``XMLError/Code/tooLarge``.
    public var maxBytes: Int
    /// The longest text content of one element accepted, in UTF-8 bytes. Default 10,000,000 (libxml2's own cap
    /// on one text node unless its "huge" mode is on). Exceeding it throws ``XMLError/Code/textTooLong``.
    public var maxTextLength: Int

    /// Creates limits; omitted values take their defaults.
    public init(maxDepth: Int = 256, maxBytes: Int = 512 * 1024 * 1024, maxTextLength: Int = 10_000_000) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxTextLength = maxTextLength
    }

    /// The default limits: depth 256, 512 MiB, 10,000,000 bytes of text per element.
    public static let `default` = XMLLimits()

    /// libxml2's built-in caps without `XML_PARSE_HUGE`. The reader switches to huge mode only when the caller's
    /// limits exceed them, since its own checks then take over.
    static let libxml2DepthCap = 256
    static let libxml2TextCap = 10_000_000

    var needsHugeMode: Bool {
        maxDepth > Self.libxml2DepthCap || maxTextLength > Self.libxml2TextCap
    }
}
