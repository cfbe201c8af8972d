import Foundation
import ObjectGraph
import ObjectGraphSQLite
import ObjectGraphXML
import Schedules

/// Chooses a store type from a file's content (not its name), by asking each store class the library attaches
/// whether it can open the file (`ObjectGraph/PersistentStore/canOpen(prefix:)`): binary magic, SQLite header,
/// frab XML root, frab JSON shape, `BEGIN:VCALENDAR`, Core Data XML root.
public enum StoreSniffer {
    /// The store classes asked, in this order (their formats do not overlap; the cheapest checks come first).
    static let storeClasses: [PersistentStore.Type] = [
        BinaryStore.self, SQLiteStore.self, FrabXMLStore.self, FrabJSONStore.self, ICalendarStore.self, XMLStore.self,
    ]

    /// The store type for a file's first bytes, or `nil` when no known format matches.
    public static func storeType(forPrefix prefix: Data) -> PersistentStoreType? {
        storeClasses.first { $0.canOpen(prefix: prefix) }?.storeType
    }

    /// Whether a type is one of the foreign (read-only) schedule formats.
    public static func isForeignFormat(_ type: PersistentStoreType) -> Bool {
        type == .frabXML || type == .frabJSON || type == .iCalendar
    }
}
