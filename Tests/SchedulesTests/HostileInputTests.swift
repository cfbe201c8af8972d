import Foundation
import Testing

@testable import Schedules

@Suite struct HostileInputTests {
    static let readers: [@Sendable (Data) throws -> ScheduleDocument] = [
        { try ScheduleReader.read($0, source: "any") },
        { try FrabXMLReader().read($0, source: "x.xml") },
        { try FrabJSONReader().read($0, source: "x.json") },
        { try ICalendarReader().read($0, source: "x.ics") },
    ]

    @Test func emptyInputIsNotWellFormedForEveryReader() throws {
        for read in Self.readers {
            let error = try #require(throws: ScheduleError.self) { try read(Data()) }
            #expect(error.code == .notWellFormed)
        }
    }

    @Test func unknownContentIsUnsupported() {
        #expect(throws: ScheduleError(code: .unsupportedFormat, message: "", source: "")) {
            try ScheduleReader.read("hello".utf8Data, source: "x")
        }
    }

    @Test func randomAndTruncatedInputNeverCrashes() throws {
        var generator = SeededGenerator(seed: 7)
        let seeds = [
            frabXML(
                conference: "<time_zone_name>UTC</time_zone_name>",
                days:
                    "<day index=\"1\" date=\"2020-01-01\"><room name=\"A\"><event id=\"1\"><start>10:00</start><duration>00:10</duration><title>T</title></event></room></day>"
            ),
            #"{"schedule": {"conference": {"time_zone_name": "UTC", "days": [{"index": 1, "date": "2020-01-01", "rooms": {"A": [{"id": 1, "start": "10:00", "duration": "00:10", "title": "T"}]}}]}}}"#
                .utf8Data,
            calendar(event("UID:1", "DTSTART:20240101T100000Z", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:T")),
        ]
        for seed in seeds {
            for cut in stride(from: 0, to: seed.count, by: 7) {
                for read in Self.readers { _ = try? read(seed.prefix(cut)) }
            }
            for _ in 0..<100 {
                var mutated = [UInt8](seed)
                for _ in 0..<4 {
                    mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                for read in Self.readers { _ = try? read(Data(mutated)) }
            }
        }
        for _ in 0..<100 {
            let bytes = (0..<Int.random(in: 1..<2048, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            for read in Self.readers { _ = try? read(Data(bytes)) }
        }
    }

    @Test func deepICalendarNestingIsRefused() throws {
        let lines = Array(repeating: "BEGIN:X", count: 100_000) + Array(repeating: "END:X", count: 100_000)
        let error = try #require(throws: ScheduleError.self) {
            try ICalendarReader().read(calendar(lines), source: "t.ics")
        }
        #expect(error.code == .tooDeeplyNested)
    }

    @Test func sessionLimitIsEnforced() throws {
        let configuration = ScheduleReaderConfiguration(limits: ScheduleReaderLimits(maxSessions: 2))
        let data = calendar(event("UID:r", "DTSTART:20240101T100000Z", "RRULE:FREQ=DAILY;COUNT=3", "SUMMARY:T"))
        #expect(throws: ScheduleError(code: .tooLarge, message: "", source: "")) {
            try ICalendarReader(configuration: configuration).read(data, source: "t.ics")
        }
    }
}
