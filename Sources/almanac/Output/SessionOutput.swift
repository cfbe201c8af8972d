import AlmanacWire
import Foundation

/// Prints objects as sessions when they are sessions, else as plain objects.
enum SessionOutput {
    static func print(_ objects: [WireObject], context: CommandContext, favorites: Set<String>? = nil) throws {
        if !objects.isEmpty, objects.allSatisfy({ $0.entity == "Session" }) {
            let favorites = favorites ?? (try? context.favoriteGUIDs()) ?? []
            context.print(
                SessionListing.make(objects.map(SessionSummary.init), favorites: favorites, display: context.display))
        } else {
            context.print(ObjectListing.make(objects, fields: nil, display: context.display))
        }
    }

    /// Prints sessions; for people, an empty list prints `empty` (what found nothing) instead of a bare header.
    static func print(_ sessions: [SessionSummary], context: CommandContext, empty: String? = nil) {
        if sessions.isEmpty, let empty, context.options.format == .table {
            context.write(empty + "\n")
            return
        }
        let favorites = (try? context.favoriteGUIDs()) ?? []
        context.print(SessionListing.make(sessions, favorites: favorites, display: context.display))
    }
}
