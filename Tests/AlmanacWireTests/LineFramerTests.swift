import Testing

@testable import AlmanacWire

@Suite struct LineFramerTests {
    private func lines(_ texts: String...) -> [LineFramer.Action] {
        texts.map { .line(Array($0.utf8)) }
    }

    /// Feeds `input` in the given chunks, then ends the stream.
    private func frame(_ chunks: [[UInt8]], max: Int = 16) -> [LineFramer.Action] {
        var framer = LineFramer(maxLineLength: max)
        var actions: [LineFramer.Action] = []
        for chunk in chunks { actions += framer.append(chunk) }
        return actions + framer.finish()
    }

    @Test func splitsLinesOnLFAndCRLF() {
        #expect(frame([Array("a\nbb\r\nccc\n".utf8)]) == lines("a", "bb", "ccc"))
    }

    @Test func ignoresEmptyAndBlankLines() {
        #expect(frame([Array("\n\r\n  \t\na\n\n".utf8)]) == lines("a"))
    }

    @Test func returnsTheFinalLineWithoutNewlineAtEOF() {
        #expect(frame([Array("a\nlast".utf8)]) == lines("a", "last"))
        #expect(frame([Array("a\nlast\r".utf8)]) == lines("a", "last"))
    }

    @Test func keepsPartialLinesAcrossChunks() {
        var framer = LineFramer(maxLineLength: 16)
        #expect(framer.append(Array("ab".utf8)) == [])
        #expect(framer.hasPartialLine)
        #expect(framer.append(Array("c\nd".utf8)) == lines("abc"))
        #expect(framer.append(Array("\n".utf8)) == lines("d"))
        #expect(framer.finish() == [])
    }

    @Test func aLineOfExactlyTheLimitPasses() {
        let line = String(repeating: "x", count: 16)
        #expect(frame([Array("\(line)\n\(line)\r\n\(line)".utf8)]) == lines(line, line, line))
    }

    @Test func aLongerLineIsTooLargeOnceAndTheNextLineWorks() {
        let long = String(repeating: "y", count: 17)
        let huge = String(repeating: "z", count: 100)
        #expect(frame([Array("\(long)\nok\n".utf8)]) == [.tooLarge] + lines("ok"))
        #expect(frame([Array("\(huge)\nok".utf8)]) == [.tooLarge] + lines("ok"))
        #expect(frame([Array("\(long)\r\nok\n".utf8)]) == [.tooLarge] + lines("ok"))
        #expect(frame([Array(huge.utf8)]) == [.tooLarge])
    }

    @Test func discardsWithoutBufferingTheOversizedLine() {
        var framer = LineFramer(maxLineLength: 4)
        #expect(framer.append(Array("123456".utf8)) == [.tooLarge])
        #expect(!framer.hasPartialLine)
        #expect(framer.append(Array(repeating: UInt8(ascii: "q"), count: 10_000)) == [])
        #expect(!framer.hasPartialLine)
        #expect(framer.append(Array("q\nok\n".utf8)) == lines("ok"))
    }

    static let sample: [UInt8] = Array(
        "{\"id\":1}\r\n\n\(String(repeating: "L", count: 20))\nexactly16bytes!!\n  \nshort\r\n\(String(repeating: "M", count: 17))\r\nend"
            .utf8
    )

    @Test func everySplitIntoTwoChunksGivesTheSameActions() {
        let expected = frame([Self.sample])
        #expect(expected == lines("{\"id\":1}") + [.tooLarge] + lines("exactly16bytes!!", "short") + [.tooLarge] + lines("end"))
        for split in 0...Self.sample.count {
            let chunks = [Array(Self.sample[..<split]), Array(Self.sample[split...])]
            #expect(frame(chunks) == expected, "split at \(split)")
        }
    }

    @Test func everySplitIntoThreeChunksGivesTheSameActions() {
        let expected = frame([Self.sample])
        for first in 0...Self.sample.count {
            for second in first...Self.sample.count {
                let chunks = [
                    Array(Self.sample[..<first]), Array(Self.sample[first..<second]), Array(Self.sample[second...]),
                ]
                let actions = frame(chunks)
                if actions != expected {
                    Issue.record("splits at \(first), \(second) gave \(actions)")
                    return
                }
            }
        }
    }

    @Test func byteAtATimeGivesTheSameActions() {
        #expect(frame(Self.sample.map { [$0] }) == frame([Self.sample]))
    }

    @Test func defaultLimitIsOneMebibyte() {
        var framer = LineFramer()
        #expect(framer.maxLineLength == 1_048_576)
        let line = [UInt8](repeating: 0x61, count: 1_048_576)
        #expect(framer.append(line + [0x0A]) == [.line(line)])
        #expect(framer.append(line + [0x61, 0x0A]) == [.tooLarge])
    }
}
