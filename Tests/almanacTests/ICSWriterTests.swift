import AlmanacWire
import Foundation
import Testing

@testable import almanac

@Suite struct ICSWriterTests {
    let stamp = WireDate.date(from: "2024-12-20T08:00:00Z")!

    @Test func writesAValidCalendarWithCRLF() {
        let text = ICSWriter(stamp: stamp).calendar([SampleSessions.sessions[0]])
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(text.contains("\r\nUID:g-opening@38c3.almanac\r\n"))
        #expect(text.contains("\r\nDTSTAMP:20241220T080000Z\r\n"))
        #expect(text.contains("\r\nDTSTART:20241228T090000Z\r\n"))
        #expect(text.contains("\r\nDTEND:20241228T093000Z\r\n"))
        #expect(text.contains("\r\nSUMMARY:Opening Ceremony\r\n"))
        #expect(text.contains("\r\nLOCATION:Saal 1\r\n"))
        #expect(text.contains("\r\nSTATUS:CONFIRMED\r\n"))
    }

    @Test func cancelledSessionsAreMarked() {
        let text = ICSWriter(stamp: stamp).calendar([SampleSessions.sessions[2]])
        #expect(text.contains("\r\nSTATUS:CANCELLED\r\n"))
    }

    @Test func escapesTextValues() {
        #expect(ICSWriter.escape("a,b;c\\d\ne\r\nf") == "a\\,b\\;c\\\\d\\ne\\nf")
        let text = ICSWriter(stamp: stamp).calendar([SampleSessions.sessions[1]])
        #expect(text.contains("DESCRIPTION:Why\\, how\\; and \\\\ what\\nnext?"))
    }

    @Test func foldsLongLinesAt75Octets() {
        let line = "DESCRIPTION:" + String(repeating: "abcdefghij", count: 20)
        let folded = ICSWriter.fold(line)
        let physical = folded.components(separatedBy: "\r\n")
        #expect(physical.count == 3)
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })
        #expect(physical.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(physical.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined() == line)
    }

    @Test(arguments: 1...8)
    func foldingNeverSplitsAMultiByteCharacter(prefixLength: Int) {
        // Shift multi-byte characters across the fold positions.
        let line = "SUMMARY:" + String(repeating: "x", count: prefixLength) + String(repeating: "é😀日", count: 30)
        let folded = ICSWriter.fold(line)
        let physical = folded.components(separatedBy: "\r\n")
        for piece in physical {
            #expect(piece.utf8.count <= 75)
            #expect(String(validating: Array(piece.utf8), as: UTF8.self) != nil)
        }
        let unfolded = physical.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined()
        #expect(unfolded == line)
    }

    @Test func everyLineOfAnExportFitsAndIsValidUTF8() {
        let text = ICSWriter(stamp: stamp, calendarName: "Almanac 38c3").calendar(SampleSessions.sessions)
        let lines = text.components(separatedBy: "\r\n").dropLast()
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(text.components(separatedBy: "BEGIN:VEVENT").count == SampleSessions.sessions.count + 1)
    }

    @Test(
        .enabled(
            if: ICSWriterTests.pythonWithIcalendar() != nil,
            "python3-icalendar is not installed: apt-get install -y python3-icalendar"
        )
    )
    func pythonIcalendarParsesTheExport() async throws {
        let python = try #require(Self.pythonWithIcalendar())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aw-ics-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("export.ics")
        try Data(ICSWriter(stamp: stamp).calendar(SampleSessions.sessions).utf8).write(to: file)
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            for e in cal.walk('VEVENT'):
                print('%s|%s|%s|%s' % (e['UID'], e['SUMMARY'], e.decoded('DTSTART').isoformat(), e.decoded('DTEND').isoformat()))
            """
        let result = try await ProcessRunner.run(python, arguments: ["-c", script, file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == SampleSessions.sessions.count)
        #expect(lines.contains("g-opening@38c3.almanac|Opening Ceremony|2024-12-28T09:00:00+00:00|2024-12-28T09:30:00+00:00"))
        #expect(lines.contains("g-grüße@38c3.almanac|Grüße aus Köln 😀|2024-12-28T09:15:00+00:00|2024-12-28T10:00:00+00:00"))
        #expect(lines.contains { $0.hasPrefix("g-rust@38c3.almanac|Memory safety in practice: a long title that will not fit in a box|") })
    }

    static func pythonWithIcalendar() -> String? {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] where FileManager.default.isExecutableFile(atPath: candidate) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: candidate)
            process.arguments = ["-c", "import icalendar"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                process.waitUntilExit()
            } catch {
                continue
            }
            if process.terminationStatus == 0 { return candidate }
        }
        return nil
    }
}
