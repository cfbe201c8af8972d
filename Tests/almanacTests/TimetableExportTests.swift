import Foundation
import Testing

@testable import almanac

/// `almanac export html` through the real daemon on real schedules (31C3 and FOSDEM 2021 from ../shared): the
/// page libxml2 reads, what it holds, and (when Chromium is installed) how it renders.
@Suite(
    .serialized,
    .timeLimit(.minutes(5)),
    .enabled(if: LiveDaemon.sharedSchedules != nil, "../shared/schedules is absent: no real schedules to read")
)
struct TimetableExportTests {
    /// The Matter of Heartbleed (Saal 1, 23:00-23:30 CET) and Doing right by sources (Saal 2, 23:00-00:00) on
    /// 31C3's 2014-12-28 overlap by 30 minutes.
    static let heartbleed = "6bXRd7c5UJbIlb4QiTd1ng"
    static let sources = "xyADKdXtvEgJWo6eaTmUBQ"

    static var realFiles: [URL] {
        guard let folder = LiveDaemon.sharedSchedules else { return [] }
        return ["31c3-schedule-v1.5.xml", "fosdem-2021-schedule.xml"].map { folder.appendingPathComponent($0) }
    }

    /// Runs `almanac` and expects exit 0.
    static func almanac(_ daemon: LiveDaemon, _ arguments: [String]) async throws -> String {
        let result = try await daemon.almanac(arguments)
        #expect(result.status == 0, "almanac \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.stdout
    }

    /// Runs `body` against a daemon serving the real files, and stops it however `body` ends.
    static func withDaemon(_ body: (LiveDaemon) async throws -> Void) async throws {
        let daemon = try LiveDaemon(files: realFiles)
        do {
            try await body(daemon)
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
    }

    static func blocks(_ html: String) -> [Substring] {
        html.split(separator: "\n").filter { $0.hasPrefix("<div class=\"session") }
    }

    static func occurrences(_ needle: String, in html: String) -> Int {
        html.components(separatedBy: needle).count - 1
    }

    @Test(.enabled(if: TimetableHTMLTests.hasXMLLint, "xmllint is not installed (apt-get install libxml2-utils)"))
    func aCongressExportsEverySessionAsAWellFormedSelfContainedPage() async throws {
        try await Self.withDaemon { daemon in
            for conference in ["31c3", "fosdem-2021"] {
                let html = try await Self.almanac(daemon, ["export", "html", "--conference", conference])
                let events = try await Self.almanac(daemon, ["export", "ics", "--conference", conference])
                // Every session with a time is a block, as every one is an event in the calendar export.
                #expect(Self.blocks(html).count == Self.occurrences("BEGIN:VEVENT", in: events), "\(conference)")
                let file = try TimetableHTMLTests.write(html)
                defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
                #expect(try await HTMLTools.parserComplaints(file) == "", "\(conference)")
                let references = try await HTMLTools.references(file)
                #expect(!references.isEmpty && references.allSatisfy { $0.hasPrefix("#day-") }, "\(references)")
            }
            let congress = try await Self.almanac(daemon, ["export", "html", "--conference", "31c3"])
            #expect(Self.occurrences("<div class=\"day", in: congress) == 4)
            #expect(congress.contains("times in Europe/Berlin, UTC+01:00 (CET)"))
            // Rooms in the file's order: Saal 1, Saal 2, Saal G, Saal 6.
            let day = try await Self.almanac(daemon, ["export", "html", "--conference", "31c3", "--day", "2014-12-28"])
            let rooms = day.split(separator: "\n").filter { $0.hasPrefix("<div class=\"room\"") }.map {
                $0.split(separator: ">").last?.replacingOccurrences(of: "</div", with: "") ?? ""
            }
            #expect(rooms == ["Saal 1", "Saal 2", "Saal G", "Saal 6"])
        }
    }

    @Test func favouritesAreHighlightedAndTheirOverlapMarkedAlsoWhenTheOtherIsFilteredOut() async throws {
        try await Self.withDaemon { daemon in
            _ = try await Self.almanac(daemon, ["fav", "add", Self.heartbleed])
            _ = try await Self.almanac(daemon, ["fav", "add", Self.sources])
            let favourites = try await Self.almanac(daemon, ["export", "html", "--favorites", "--conference", "31c3"])
            let blocks = Self.blocks(favourites)
            #expect(blocks.count == 2)
            #expect(blocks.allSatisfy { $0.hasPrefix("<div class=\"session fav conflict\"") }, "\(blocks)")
            #expect(favourites.contains("⚠ overlaps Doing right by sources, done right (30 min)"))
            #expect(favourites.contains("<title>Timetable · 31c3 · favourites</title>"))

            let saal1 = try await Self.almanac(
                daemon, ["export", "html", "--conference", "31c3", "--day", "2014-12-28", "--room", "Saal 1"])
            #expect(saal1.split(separator: "\n").filter { $0.hasPrefix("<div class=\"room\"") }.count == 1)
            let marked = Self.blocks(saal1).filter { $0.contains("session fav") }
            #expect(marked.count == 1 && marked[0].contains("session fav conflict"), "\(marked)")
            #expect(Self.blocks(saal1).count == 13)
        }
    }

    @Test func anUnknownRoomOrAnUnwritableFileIsAnErrorAndWritesNothing() async throws {
        try await Self.withDaemon { daemon in
            let unknown = try await daemon.almanac(["export", "html", "--conference", "31c3", "--room", "Saal 99"])
            #expect(unknown.status != 0)
            #expect(unknown.stdout.isEmpty)
            #expect(unknown.stderr.contains("Saal G"), "\(unknown.stderr)")
            let target = daemon.root.appendingPathComponent("missing/folder/t.html")
            let unwritable = try await daemon.almanac(["export", "html", "--output", target.path])
            #expect(unwritable.status == 2, "\(unwritable.stderr)")
            #expect(unwritable.stderr.contains("cannot write"))
            #expect(!FileManager.default.fileExists(atPath: target.path))
            let written = daemon.root.appendingPathComponent("t.html")
            _ = try await Self.almanac(daemon, ["export", "html", "--conference", "31c3", "--output", written.path])
            #expect(Self.blocks(try String(contentsOf: written, encoding: .utf8)).count == 138)
        }
    }

    // MARK: Rendering

    static let hasChromium = HTMLTools.chromium != nil && HTMLTools.python != nil

    /// Appended to a copy of the page (the exported page itself has no script): writes every block's box as
    /// `left,top,right,bottom` lines into a `pre` that `--dump-dom` prints.
    static let layoutProbe = """
        <script>
        var lines = [];
        document.querySelectorAll(".session").forEach(function (e) {
          var b = e.getBoundingClientRect();
          lines.push([b.left, b.top, b.right, b.bottom, e.textContent.length].join(","));
        });
        var pre = document.createElement("pre");
        pre.id = "layout";
        pre.textContent = lines.join("\\n");
        document.body.appendChild(pre);
        </script>
        """

    /// Counts the pixels of a PNG (8-bit RGB or RGBA, not interlaced) that are not near white; prints
    /// `inked total`.
    static let inkCounter = #"""
        import sys, zlib, struct
        data = open(sys.argv[1], "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        pos, idat = 8, b""
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            elif kind == b"IDAT":
                idat += body
            pos += 12 + length
        assert depth == 8 and color in (2, 6) and interlace == 0
        bpp = 3 if color == 2 else 4
        raw, stride = zlib.decompress(idat), width * bpp
        prev, inked, at = bytearray(stride), 0, 0
        for y in range(height):
            kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
            at += 1 + stride
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if kind == 1: line[i] = (line[i] + a) & 255
                elif kind == 2: line[i] = (line[i] + b) & 255
                elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
                elif kind == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            for x in range(0, stride, bpp):
                if line[x] + line[x + 1] + line[x + 2] < 720: inked += 1
            prev = line
        print(inked, width * height)
        """#

    @Test(
        .enabled(
            if: hasChromium,
            "chromium or python3 is not installed (apt-get install chromium-headless-shell): not rendered"))
    func chromiumDrawsThePageWithoutOverlappingBlocks() async throws {
        let chromium = try #require(HTMLTools.chromium)
        let python = try #require(HTMLTools.python)
        try await Self.withDaemon { daemon in
            _ = try await Self.almanac(daemon, ["fav", "add", Self.heartbleed])
            _ = try await Self.almanac(daemon, ["fav", "add", Self.sources])
            let exports = [
                ("31c3", ["export", "html", "--conference", "31c3", "--day", "2014-12-28"]),
                ("fosdem", ["export", "html", "--conference", "fosdem-2021", "--day", "2021-02-06"]),
            ]
            for (name, arguments) in exports {
                let html = try await Self.almanac(daemon, arguments)
                let file = try TimetableHTMLTests.write(html)
                let folder = file.deletingLastPathComponent()
                defer { try? FileManager.default.removeItem(at: folder) }
                let common = [
                    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,1000",
                    "--user-data-dir=" + folder.appendingPathComponent("profile").path,
                ]

                // The picture: not blank (a blank page is one colour; text and blocks ink a good part of it).
                let png = folder.appendingPathComponent("page.png")
                let shot = try await HTMLTools.run(
                    chromium, common + ["--screenshot=" + png.path, file.absoluteString], in: folder)
                #expect(shot.status == 0, "\(name): chromium exited \(shot.status): \(shot.stderr.suffix(500))")
                let script = folder.appendingPathComponent("ink.py")
                try Self.inkCounter.write(to: script, atomically: true, encoding: .utf8)
                let ink = try await HTMLTools.run(python, [script.path, png.path], in: folder)
                let counts = ink.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .newlines)) }
                #expect(counts.count == 2, "\(name): \(ink.stderr)")
                if counts.count == 2 {
                    let share = Double(counts[0]) / Double(counts[1])
                    #expect(share > 0.05, "\(name): only \(counts[0]) of \(counts[1]) pixels are not white")
                }

                // The layout: every block has room for its text and no two blocks overlap.
                let probe = folder.appendingPathComponent("probe.html")
                try html.replacingOccurrences(of: "</body>", with: Self.layoutProbe + "\n</body>")
                    .write(to: probe, atomically: true, encoding: .utf8)
                let dump = try await HTMLTools.run(chromium, common + ["--dump-dom", probe.absoluteString], in: folder)
                let layout =
                    dump.stdout.components(separatedBy: "<pre id=\"layout\">").last?
                    .components(separatedBy: "</pre>").first ?? ""
                let boxes = layout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
                    .filter { $0.count == 5 }
                #expect(boxes.count == Self.blocks(html).count, "\(name): \(dump.stderr.suffix(500))")
                for box in boxes {
                    #expect(box[2] - box[0] >= 40 && box[3] - box[1] >= 8, "\(name): a block of \(box)")
                }
                var overlaps: [String] = []
                let sorted = boxes.sorted { $0[1] < $1[1] }
                for (index, a) in sorted.enumerated() {
                    for b in sorted[(index + 1)...] {
                        if b[1] >= a[3] - 0.5 { break }
                        if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 && min(a[3], b[3]) - max(a[1], b[1]) > 0.5 {
                            overlaps.append("\(a) and \(b)")
                        }
                    }
                }
                #expect(overlaps.isEmpty, "\(name): overlapping blocks: \(overlaps.prefix(5))")

                // Printed: A4 landscape pages (842 × 595 points).
                let pdf = folder.appendingPathComponent("page.pdf")
                let printed = try await HTMLTools.run(
                    chromium, common + ["--no-pdf-header-footer", "--print-to-pdf=" + pdf.path, file.absoluteString],
                    in: folder)
                #expect(
                    printed.status == 0, "\(name): chromium exited \(printed.status): \(printed.stderr.suffix(500))")
                let pageSizes = String(decoding: (try? Data(contentsOf: pdf)) ?? Data(), as: UTF8.self)
                    .components(separatedBy: "/MediaBox [").dropFirst()
                    .map { $0.prefix { $0 != "]" }.split(separator: " ").compactMap { Double($0) } }
                #expect(!pageSizes.isEmpty, "\(name): no pages in the PDF")
                for box in pageSizes where box.count == 4 {
                    #expect(abs(box[2] - 841.9) < 2 && abs(box[3] - 595) < 2, "\(name): a page of \(box)")
                }
            }
        }
    }
}
