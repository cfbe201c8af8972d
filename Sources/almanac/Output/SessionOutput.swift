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

    static func print(_ sessions: [SessionSummary], context: CommandContext) {
        let favorites = (try? context.favoriteGUIDs()) ?? []
        context.print(SessionListing.make(sessions, favorites: favorites, display: context.display))
    }
}
