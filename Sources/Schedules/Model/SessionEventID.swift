/// A frab event id: numeric in frab and Pentabarf, occasionally text in hand-written files.
public enum SessionEventID: Sendable, Hashable, CustomStringConvertible {
    /// A numeric id.
    case number(Int64)
    /// A non-numeric id, as written.
    case text(String)

    /// Parses `value`: a decimal integer becomes ``number(_:)``, anything else non-empty ``text(_:)``.
    public init?(_ value: String) {
        guard let trimmed = value.trimmedNonEmpty else { return nil }
        if let number = Int64(trimmed) { self = .number(number) } else { self = .text(trimmed) }
    }

    /// The id as written.
    public var description: String {
        switch self {
        case .number(let number): String(number)
        case .text(let text): text
        }
    }
}
