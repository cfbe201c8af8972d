import Foundation

/// The stable identity of a session across releases of one conference's schedule.
///
/// Precedence: the guid, else the pretalx code, else the frab event id, else the iCalendar UID
/// (plus the recurrence instant for an expanded recurrence). The string form is `kind:value`:
///
/// - `guid:<guid>` (UUIDs lowercased, other guids as written),
/// - `code:<code>`,
/// - `id:<event id>`,
/// - `uid:<UID>` for a single event, `uid:<UID>@<yyyyMMdd'T'HHmmss'Z'>` for a recurrence instance
///   (its original start in UTC), or `title:<title>@<start>` as a last resort in files without ids.
///
/// Identities are only meaningful within one conference (see ``ConferenceIdentity``).
public struct SessionIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What the identity was derived from.
    public enum Kind: String, Sendable, Hashable {
        /// The session guid.
        case guid
        /// The pretalx code.
        case code
        /// The numeric (or textual) frab event id.
        case id
        /// The iCalendar UID, with the recurrence instant when there is one.
        case uid
        /// Title and start, for events that carry no identifier at all.
        case title
    }

    /// What the identity was derived from.
    public var kind: Kind
    /// The identifying value (without the kind prefix).
    public var value: String

    /// Creates an identity from an explicit kind and value.
    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// Derives an identity by the documented precedence.
    public init(guid: String?, code: String?, eventID: SessionEventID?, uid: String?, recurrenceInstant: Date?) {
        if let guid = guid?.trimmedNonEmpty {
            self.init(kind: .guid, value: guid)
        } else if let code = code?.trimmedNonEmpty {
            self.init(kind: .code, value: code)
        } else if let eventID {
            self.init(kind: .id, value: eventID.description)
        } else if let uid = uid?.trimmedNonEmpty {
            if let recurrenceInstant {
                self.init(kind: .uid, value: uid + "@" + Self.utcStamp(recurrenceInstant))
            } else {
                self.init(kind: .uid, value: uid)
            }
        } else {
            self.init(kind: .title, value: "")
        }
    }

    /// The `kind:value` form.
    public var description: String { "\(kind.rawValue):\(value)" }

    /// Hashes the value and the kind's case (not its raw string, which a raw-value enum would hash by default):
    /// a reader hashes each session's identity once or twice.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
        switch kind {
        case .guid: hasher.combine(0 as UInt8)
        case .code: hasher.combine(1 as UInt8)
        case .id: hasher.combine(2 as UInt8)
        case .uid: hasher.combine(3 as UInt8)
        case .title: hasher.combine(4 as UInt8)
        }
    }

    /// Orders by the string form.
    public static func < (lhs: SessionIdentity, rhs: SessionIdentity) -> Bool {
        lhs.description < rhs.description
    }

    /// Formats an instant as `yyyyMMdd'T'HHmmss'Z'`.
    static func utcStamp(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let local = LocalDateTime(secondsSinceEpoch: seconds)
        return local.compactStamp + "Z"
    }
}
