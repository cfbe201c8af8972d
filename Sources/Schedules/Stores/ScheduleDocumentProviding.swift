import ObjectGraph

/// A store read from a schedule document that it keeps: its conference, zone and warnings, and what changed between
/// two releases, come from the document rather than from queries.
///
/// ``ScheduleFileStore`` adopts it; code that serves many kinds of store (the daemon's library) asks a store for
/// its document through this protocol without naming the store class.
public protocol ScheduleDocumentProviding: PersistentStore {
    /// The document the store was read from; `nil` before the store read its file.
    var document: ScheduleDocument? { get }
}
