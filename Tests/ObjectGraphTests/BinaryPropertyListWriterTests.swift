import Foundation
import Testing

@testable import ObjectGraph

@Suite("Binary property lists and keyed archives written")
struct BinaryPropertyListWriterTests {
    /// Every kind of value, at the sizes where the format changes how it is written.
    static let sample: PropertyListValue = .dictionary([
        "integers": .array(
            [
                0, 14, 15, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, -1, Int64.min,
                Int64.max,
            ].map { .integer($0) }),
        "reals": .array([.real(0.5), .real(-1e300), .real(.infinity)]),
        "date": .date(Date(timeIntervalSinceReferenceDate: 752_407_200.25)),
        "flags": .array([.bool(true), .bool(false)]),
        "ascii": .string("a string longer than fifteen bytes"),
        "unicode": .string("Zürich – 東京 🎉"),
        "empty": .string(""),
        "data": .data(Data((0..<300).map { UInt8($0 % 256) })),
        "uids": .array([.uid(0), .uid(255), .uid(256), .uid(70_000)]),
        "nested": .dictionary(["inner": .array([.dictionary([:]), .array([])])]),
    ])

    @Test func whatIsWrittenReadsBackTheSame() throws {
        let data = BinaryPropertyListWriter.encode(Self.sample)
        #expect(data.starts(with: Array("bplist00".utf8)))
        #expect(try BinaryPropertyList.parse(data) == Self.sample)
        // The same value writes the same bytes (dictionaries in key order).
        #expect(BinaryPropertyListWriter.encode(Self.sample) == data)
    }

    @Test func foundationReadsWhatIsWritten() throws {
        var sample = Self.sample.dictionary!
        sample["uids"] = nil  // Foundation hands UIDs over as a private type
        let data = BinaryPropertyListWriter.encode(.dictionary(sample))
        let read = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect((read["integers"] as? [Int])?.last == Int.max)
        #expect((read["integers"] as? [Int])?[10] == Int.min)
        #expect(read["unicode"] as? String == "Zürich – 東京 🎉")
        #expect(read["empty"] as? String == "")
        #expect((read["data"] as? Data)?.count == 300)
        #expect((read["date"] as? Date)?.timeIntervalSinceReferenceDate == 752_407_200.25)
        #expect((read["reals"] as? [Double])?[1] == -1e300)
    }

    @Test func aManyObjectListUsesWiderReferences() throws {
        // More than 255 objects: references take two bytes; more than 65,535 bytes: offsets take three or more.
        let value = PropertyListValue.array((0..<70_000).map { .string("item \($0)") })
        let data = BinaryPropertyListWriter.encode(value)
        #expect(data[data.count - 26] > 2 && data[data.count - 25] == 4)  // offset size, reference size
        #expect(try BinaryPropertyList.parse(data) == value)
    }

    @Test func aKeyedArchiveReadsBackItsObjects() throws {
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        let child = writer.add(className: "Child", values: ["name": writer.string("first")])
        let list = writer.array([child, child])
        let table = writer.dictionary([("key", child)])
        writer.set(
            root, className: "Parent", superclasses: ["Base", "NSObject"],
            values: ["children": list, "table": table, "back": .uid(root), "count": .integer(2)])
        let archive = try KeyedArchive(data: writer.encoded(root: root))
        let parent = try #require(archive.object(archive.rootUID))
        #expect(parent.className == "Parent")
        #expect(archive.resolve(parent.values["count"])?.integer == 2)
        #expect(archive.object(parent, "back")?.uid == root)
        #expect(archive.elementUIDs(of: archive.object(parent, "children")) == [child, child])
        let entries = archive.entries(of: archive.object(parent, "table"))
        #expect(entries.map(\.key) == ["key"] && entries.map(\.uid) == [child])
        #expect(archive.object(child).flatMap { archive.string($0, "name") } == "first")
    }

    /// `NSKeyedArchiver` writes a mutable string as an object (`NS.string`), and some strings as UTF-8 bytes
    /// (`NS.bytes`); both read as strings, and data objects do not.
    @Test func stringObjectsReadAsStrings() throws {
        var writer = KeyedArchiveWriter()
        let mutable = writer.add(
            className: "NSMutableString", superclasses: ["NSString", "NSObject"],
            values: ["NS.string": writer.string("Category")])
        let bytes = writer.add(className: "NSString", values: ["NS.bytes": .data(Data("Zürich".utf8))])
        let data = writer.add(className: "NSMutableData", values: ["NS.bytes": .data(Data("Zürich".utf8))])
        let root = writer.add(
            className: "Holder",
            values: [
                "mutable": .uid(mutable), "bytes": .uid(bytes), "data": .uid(data), "plain": writer.string("plain"),
            ])
        let archive = try KeyedArchive(data: writer.encoded(root: root))
        let holder = try #require(archive.object(archive.rootUID))
        #expect(archive.string(holder, "mutable") == "Category")
        #expect(archive.string(holder, "bytes") == "Zürich")
        #expect(archive.string(holder, "plain") == "plain")
        #expect(archive.string(holder, "data") == nil)
        #expect(archive.string(holder, "missing") == nil)
    }
}
