import Foundation
import Testing

/// The `objectgraph` tool on real Core Data stores: its output and exit codes.
struct ObjectGraphToolTests {
    static let coredata = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/coredata")
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: coredata.appendingPathComponent("DataUsage.sqlite").path)
    }

    static func run(_ arguments: [String]) async throws -> ProcessRunner.Result {
        try await ProcessRunner.run(try DaemonProcessTests.binary("objectgraph"), arguments: arguments)
    }

    /// A new folder of the test's own (the caller removes it).
    static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("og-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(.enabled(if: isAvailable, "needs ../shared/coredata (absent here)"))
    func modelQueryAndConvertWorkOnARealStore() async throws {
        let store = Self.coredata.appendingPathComponent("DataUsage.sqlite").path
        let model = try await Self.run(["model", store])
        #expect(model.status == 0)
        #expect(
            model.stdout.contains(
                "CheckUpEvent\n  hasTshootingData -> TshootingData (to-many) inverse "
                    + "withCheckUpEvent"))
        let contents = try await Self.run(["model", "--xcdatamodel", store])
        #expect(contents.stdout.contains("<entity name=\"CheckUpEvent\""))
        let csv = try await Self.run(["query", store, "CheckUpEvent", "--format", "csv", "--sort", "syndromeID"])
        #expect(csv.status == 0)
        #expect(csv.stdout.hasPrefix("syndromeID,timeStamp\n"))

        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("copy.xml").path
        let convert = try await Self.run(["convert", store, "--to", "xml", output])
        #expect(convert.status == 0)
        #expect(FileManager.default.fileExists(atPath: output))
    }

    /// A store converted to SQLite keeps its model: the copy prints the same model and answers the same query,
    /// by the same camel-case names (not the lower-case ones its tables alone would give).
    @Test(.enabled(if: isAvailable, "needs ../shared/coredata (absent here)"))
    func aConvertedSQLiteCopyKeepsTheModelsNames() async throws {
        let store = Self.coredata.appendingPathComponent("knowledgec-10.14.db").path
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("copy.sqlite").path
        let convert = try await Self.run(["convert", store, "--to", "sqlite", copy])
        #expect(convert.status == 0)
        let original = try await Self.run(["model", "--xcdatamodel", store])
        let copied = try await Self.run(["model", "--xcdatamodel", copy])
        #expect(copied.status == 0 && !copied.stdout.isEmpty && copied.stdout == original.stdout)
        let query = ["Event", "--where", "streamName == '/app/inFocus'", "--sort", "startDate", "--format", "csv"]
        let fromOriginal = try await Self.run(["query", store] + query)
        let fromCopy = try await Self.run(["query", copy] + query)
        #expect(fromCopy.status == 0, "\(fromCopy.stderr)")
        #expect(fromCopy.stdout.hasPrefix("confidence,creationDate,endDate,"))
        #expect(fromCopy.stdout == fromOriginal.stdout)
    }

    @Test(.enabled(if: isAvailable, "needs ../shared/coredata (absent here)"))
    func anUnknownEntityOrFileFailsWithAMessage() async throws {
        let store = Self.coredata.appendingPathComponent("DataUsage.sqlite").path
        let unknown = try await Self.run(["query", store, "Nope"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no entity 'Nope'"))
        let missing = try await Self.run(["model", "/nonexistent/store.sqlite"])
        #expect(missing.status != 0)
        #expect(missing.stdout.isEmpty)
    }
}
