/// A content field compared by ``ScheduleChanges``. Start and room are reported as moves instead.
public enum SessionField: String, Sendable, Hashable, CaseIterable {
    /// ``SessionInfo/title``.
    case title
    /// ``SessionInfo/subtitle``.
    case subtitle
    /// ``SessionInfo/abstract``.
    case abstract
    /// ``SessionInfo/details`` (the description).
    case details
    /// The ordered ``SessionInfo/personNames`` (speakers).
    case persons
    /// ``SessionInfo/trackName``.
    case track
    /// ``SessionInfo/type``.
    case type
    /// ``SessionInfo/language``.
    case language
    /// ``SessionInfo/duration`` in minutes.
    case duration

    func isEqual(_ lhs: SessionInfo, _ rhs: SessionInfo) -> Bool {
        switch self {
        case .title: lhs.title == rhs.title
        case .subtitle: lhs.subtitle == rhs.subtitle
        case .abstract: lhs.abstract == rhs.abstract
        case .details: lhs.details == rhs.details
        case .persons: lhs.personNames == rhs.personNames
        case .track: lhs.trackName == rhs.trackName
        case .type: lhs.type == rhs.type
        case .language: lhs.language == rhs.language
        case .duration: lhs.duration == rhs.duration
        }
    }
}
