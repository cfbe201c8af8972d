import Foundation
import Testing

@testable import Schedules

@Suite struct ScheduleFormatSniffTests {
    @Test(arguments: [
        ("<schedule>", ScheduleFormat?.some(.frabXML)),
        (
            "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- generated -->\n<!DOCTYPE schedule>\n<schedule version=\"1\">",
            .frabXML
        ),
        ("  \r\n<schedule/>", .frabXML),
        ("<schedules>", nil),
        ("<database>", nil),
        (#"{"$schema": "x", "schedule": {}}"#, .frabJSON),
        (#"{"meta": {"schedule": 1}}"#, nil),
        (#"{"a": "\"schedule\"", "b": 1}"#, nil),
        ("BEGIN:VCALENDAR\r\n", .iCalendar),
        ("\u{FEFF}\nbegin:vcalendar\n", .iCalendar),
        ("BEGIN:VCARD", nil),
        ("", nil),
        ("SQLite format 3\0", nil),
    ])
    func sniffsByContent(text: String, expected: ScheduleFormat?) {
        #expect(ScheduleFormat.sniff(text.utf8Data) == expected)
    }

    @Test func randomBytesAreNoFormat() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0..<512, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let format = ScheduleFormat.sniff(Data(bytes))
            #expect(format == nil || bytes.first == UInt8(ascii: "<") || bytes.first == UInt8(ascii: "{"))
        }
    }
}

/// A deterministic generator (SplitMix64) so fuzz-style tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Sniffing past a DOCTYPE")
struct DoctypeSniffTests {
    @Test func aDoctypeWithAnInternalSubsetIsSkipped() {
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE schedule [\n  <!ENTITY a \"b\">\n]>\n<schedule><version>1</version></schedule>"
        #expect(ScheduleFormat.sniff(Data(text.utf8)) == .frabXML)
    }
}

@Suite("Schedule store classes recognise their own format")
struct ScheduleStoreCanOpenTests {
    @Test(arguments: [
        ("<schedule version=\"1\">", ScheduleFormat?.some(.frabXML)),
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE schedule [ <!ENTITY a \"]>\"> ]>\n<schedule>", .frabXML),
        (#"{"schedule": {}}"#, .frabJSON),
        ("begin:vcalendar\n", .iCalendar),
        ("<database>", nil),
        ("OGBSTORE", nil),
    ])
    func canOpenAgreesWithSniff(text: String, expected: ScheduleFormat?) {
        let data = Data(text.utf8)
        #expect(ScheduleFormat.sniff(data) == expected)
        for storeClass in ScheduleFileStore.storeClasses {
            #expect(storeClass.canOpen(prefix: data) == (storeClass.format == expected), "\(storeClass.format)")
        }
    }
}
