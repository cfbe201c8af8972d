import Foundation

/// What changed between two releases of one conference's schedule, matching sessions by
/// ``SessionInfo/identity``.
///
/// - ``added``: in the new release only (or cancelled before and confirmed again now);
/// - ``cancelled``: confirmed before and now removed or marked cancelled;
/// - ``moved``: confirmed in both, with a different start or room;
/// - ``changed``: confirmed in both, with different content (see ``SessionField``).
///
/// A session can be both moved and changed. Sessions cancelled in the old release that stay cancelled or
/// disappear are not reported, nor are sessions that appear already cancelled. Every list is ordered by
/// start (the new start, or the old one for cancellations), then identity.
public struct ScheduleChanges: Sendable, Hashable {
    /// Sessions that are new (or reinstated) in the new release, as they are now.
    public var added: [SessionInfo]
    /// Sessions that no longer take place.
    public var cancelled: [SessionCancellation]
    /// Sessions whose start or room changed.
    public var moved: [SessionMove]
    /// Sessions whose content changed.
    public var changed: [SessionEdit]

    /// Creates a change set from its parts (ordering is left as given).
    public init(
        added: [SessionInfo] = [], cancelled: [SessionCancellation] = [], moved: [SessionMove] = [],
        changed: [SessionEdit] = []
    ) {
        self.added = added
        self.cancelled = cancelled
        self.moved = moved
        self.changed = changed
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { added.isEmpty && cancelled.isEmpty && moved.isEmpty && changed.isEmpty }

    /// Compares two releases.
    ///
    /// When a document holds the same identity twice (readers prevent this), the first session counts.
    /// - Complexity: O((n + m) log(n + m)) in the two session counts.
    public static func between(old: ScheduleDocument, new: ScheduleDocument) -> ScheduleChanges {
        let oldByIdentity = Dictionary(old.sessions.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        let newByIdentity = Dictionary(new.sessions.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        var changes = ScheduleChanges()
        for (identity, current) in newByIdentity {
            guard let previous = oldByIdentity[identity] else {
                if current.status == .confirmed { changes.added.append(current) }
                continue
            }
            switch (previous.status, current.status) {
            case (.cancelled, .confirmed):
                changes.added.append(current)
            case (.confirmed, .cancelled):
                changes.cancelled.append(SessionCancellation(session: current, reason: .statusCancelled))
            case (.cancelled, .cancelled):
                continue
            case (.confirmed, .confirmed):
                if previous.start != current.start || previous.roomName != current.roomName {
                    changes.moved.append(SessionMove(old: previous, new: current))
                }
                let fields = SessionField.allCases.filter { !$0.isEqual(previous, current) }
                if !fields.isEmpty { changes.changed.append(SessionEdit(old: previous, new: current, fields: fields)) }
            }
        }
        for (identity, previous) in oldByIdentity where newByIdentity[identity] == nil && previous.status == .confirmed
        {
            changes.cancelled.append(SessionCancellation(session: previous, reason: .removed))
        }
        changes.added.sort(by: Self.ordered)
        changes.cancelled.sort { Self.ordered($0.session, $1.session) }
        changes.moved.sort { Self.ordered($0.new, $1.new) }
        changes.changed.sort { Self.ordered($0.new, $1.new) }
        return changes
    }

    static func ordered(_ lhs: SessionInfo, _ rhs: SessionInfo) -> Bool {
        if lhs.start != rhs.start { return lhs.start < rhs.start }
        return lhs.identity < rhs.identity
    }
}
