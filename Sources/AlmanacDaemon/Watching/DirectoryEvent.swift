import Foundation

/// What happened to a watched folder, as the daemon acts on it.
public enum DirectoryEvent: Sendable, Hashable {
    /// A complete file appeared or was replaced (closed after writing, or renamed into the folder).
    case fileReady(URL)
    /// A file went away (deleted, or renamed out of the folder).
    case fileRemoved(URL)
    /// Events were lost or the folder was re-created: compare the folder with what is attached.
    case rescan(URL)
}
