/// Whether a session takes place.
public enum SessionStatus: String, Sendable, Hashable, CaseIterable {
    /// The session takes place (the default; iCalendar `CONFIRMED` or `TENTATIVE`, frab anything else).
    case confirmed
    /// The session was called off (iCalendar `STATUS:CANCELLED`, frab/JSON `status` or `state` "cancelled"/"canceled").
    case cancelled
}
