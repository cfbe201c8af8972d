import Foundation
import ObjectGraph
import Schedules
import Testing

@testable import AlmanacDaemon

/// The sniffer asks each store class whether it can open a file: exactly one class answers for each format.
@Suite("Store sniffing")
struct StoreSnifferTests {
    static let samples: [(String, Data, PersistentStoreType?)] = [
        ("binary", Data("OGBSTORE".utf8) + Data(repeating: 1, count: 64), .binary),
        ("sqlite", Data("SQLite format 3\0".utf8) + Data(repeating: 0, count: 84), .sqlite),
        ("frab xml", Data("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- x -->\n<schedule>\n".utf8), .frabXML),
        ("frab json", Data(#"{"$schema": "x", "schedule": {"conference": {}}}"#.utf8), .frabJSON),
        ("icalendar", Data("\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\n".utf8), .iCalendar),
        ("core data xml", Data("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"x.dtd\">\n<database>".utf8), .xml),
        ("doctype hiding a root", Data("<!DOCTYPE x [ <!ENTITY a \"<database>\"> ]><model>".utf8), nil),
        ("plist", Data("<?xml version=\"1.0\"?><plist>".utf8), nil),
        ("short sqlite header", Data("SQLite format 3".utf8), nil),
        ("json without schedule", Data(#"{"meta": {"schedule": 1}}"#.utf8), nil),
        ("text", Data("hello".utf8), nil),
        ("empty", Data(), nil),
    ]

    @Test(arguments: samples.indices)
    func exactlyTheFormatsStoreClassAnswers(_ index: Int) {
        let (name, prefix, expected) = Self.samples[index]
        #expect(StoreSniffer.storeType(forPrefix: prefix) == expected, "\(name)")
        for storeClass in StoreSniffer.storeClasses {
            #expect(
                storeClass.canOpen(prefix: prefix) == (storeClass.storeType == expected),
                "\(storeClass.storeType) on \(name)")
        }
    }

    @Test func everyFormatTheLibraryAttachesHasItsStoreClass() {
        let types = Set(StoreSniffer.storeClasses.map(\.storeType))
        #expect(types == [.binary, .sqlite, .frabXML, .frabJSON, .iCalendar, .xml])
        #expect(!PersistentStore.canOpen(prefix: Self.samples[0].1))
    }
}
