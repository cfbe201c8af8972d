import Foundation
import ObjectGraph
import Schedules

/// Chooses a store type from a file's content (not its name): binary magic, SQLite header, XML root element, JSON
/// shape, `BEGIN:VCALENDAR`.
public enum StoreSniffer {
    /// The store type for a file's first bytes, or `nil` when no known format matches.
    public static func storeType(forPrefix prefix: Data) -> PersistentStoreType? {
        if BinaryStore.isBinaryStore(prefix) { return .binary }
        if prefix.starts(with: Array("SQLite format 3\0".utf8)) { return .sqlite }
        if let format = ScheduleFormat.sniff(prefix) {
            switch format {
            case .frabXML: return .frabXML
            case .frabJSON: return .frabJSON
            case .iCalendar: return .iCalendar
            }
        }
        if xmlRootElement(prefix) == "database" { return .xml }
        return nil
    }

    /// Whether a type is one of the foreign (read-only) schedule formats.
    public static func isForeignFormat(_ type: PersistentStoreType) -> Bool {
        type == .frabXML || type == .frabJSON || type == .iCalendar
    }

    /// The name of the first element of an XML document, skipping the declaration, comments and a DOCTYPE.
    static func xmlRootElement(_ data: Data) -> String? {
        let text = String(decoding: data.prefix(4096), as: UTF8.self)
        var rest = Substring(text)
        if rest.hasPrefix("\u{FEFF}") { rest = rest.dropFirst() }
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let first = rest.first else { return nil }
            if first == "?" || first == "!" {
                guard let close = rest.firstIndex(of: ">") else { return nil }
                rest = rest[rest.index(after: close)...]
                continue
            }
            return String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ":" })
        }
        return nil
    }
}
