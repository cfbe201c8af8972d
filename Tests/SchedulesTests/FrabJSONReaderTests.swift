import Foundation
import Testing

@testable import Schedules

@Suite struct FrabJSONReaderTests {
    let reader = FrabJSONReader()

    @Test func readsRoomsKeyedByNameAndLenientFields() throws {
        let json = """
            {"schedule": {"version": 7, "conference": {"acronym": "demo", "title": "Demo",
              "start": "2019-08-21", "end": "2019-08-22", "daysCount": 1, "timeslot_duration": "00:15",
              "time_zone_name": "Europe/Berlin",
              "days": [{"index": 1, "date": "2019-08-21", "day_start": "2019-08-21T09:00:00+02:00",
                "day_end": "2019-08-22T04:00:00+02:00",
                "rooms": {
                  "Curie": [{"id": 10386, "guid": "A0A0FCFE-B7FB-46E3-84B6-97A5406016B4",
                     "date": "2019-08-21T11:00:00+02:00", "start": "11:00", "duration": "00:30",
                     "title": "Opening", "abstract": "<p>Hi</p>", "track": null,
                     "persons": [{"id": 7797, "public_name": "jinxx"}, {"name": "smtw", "guid": "p-2"}]}],
                  "Meitner": [{"id": "10400", "start": "01:30", "duration": "1:00:00", "title": "Night",
                     "state": "canceled"}],
                  "Empty": []
                }}]}}}
            """
        let document = try reader.read(json.utf8Data, source: "demo.json")
        #expect(document.conference.version == "7")
        #expect(document.conference.start == instant("2019-08-21T00:00:00+02:00"))
        // The file's order of the room keys, not name order; the empty room is not listed.
        #expect(document.rooms.map(\.name) == ["Curie", "Meitner"])
        #expect(document.sessions.count == 2)
        let opening = document.sessions[0]
        #expect(opening.identity.description == "guid:a0a0fcfe-b7fb-46e3-84b6-97a5406016b4")
        #expect(opening.start == instant("2019-08-21T11:00:00+02:00"))
        #expect(opening.trackName == nil)
        #expect(opening.persons == [PersonInfo(name: "jinxx", id: "7797"), PersonInfo(name: "smtw", guid: "p-2")])
        let night = document.sessions[1]
        #expect(night.identity.description == "id:10400")
        #expect(night.start == instant("2019-08-22T01:30:00+02:00"))
        #expect(night.duration == 60)
        #expect(night.status == .cancelled)
    }

    @Test func missingConferenceIsUnsupported() {
        #expect(throws: ScheduleError(code: .unsupportedFormat, message: "", source: "")) {
            try reader.read(#"{"schedule": {"version": "1"}}"#.utf8Data, source: "t.json")
        }
    }

    @Test func truncatedJSONIsNotWellFormed() {
        #expect(throws: ScheduleError(code: .notWellFormed, message: "", source: "")) {
            try reader.read(#"{"schedule": {"conference": {"title": "x"#.utf8Data, source: "t.json")
        }
    }

    @Test func deepNestingIsRefusedBeforeParsing() throws {
        let data =
            (#"{"schedule": "# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}")
            .utf8Data
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "deep.json") }
        #expect(error.code == .tooDeeplyNested)
    }

    @Test func bracketsInsideStringsDoNotCount() throws {
        let title = String(repeating: "[{", count: 1000)
        let json = """
            {"schedule": {"conference": {"title": "\(title)", "time_zone_name": "UTC", "days": []}}}
            """
        #expect(try reader.read(json.utf8Data, source: "t.json").conference.title == title)
    }
}
