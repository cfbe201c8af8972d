import Foundation
import Glibc
import ObjectGraph
import ObjectGraphSQLite
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

    /// `runuser -u nobody --`, when this process may run a command as another user (root, runuser, a user nobody).
    static let asNobody: [String]? = {
        guard geteuid() == 0, getpwnam("nobody") != nil,
            let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first(where: FileManager.default.isExecutableFile)
        else { return nil }
        return [runuser, "-u", "nobody", "--"]
    }()

    /// Runs a command as the user nobody (see ``asNobody``).
    static func runAsNobody(_ command: [String]) async throws -> ProcessRunner.Result {
        let prefix = try #require(asNobody)
        return try await ProcessRunner.run(prefix[0], arguments: Array(prefix.dropFirst()) + command)
    }

    /// A WAL-mode Core Data store in a folder its reader cannot write (a backup, another user's files): SQLite
    /// cannot make the -shm file it reads a log with. Without a log the file holds everything and is read as it is,
    /// leaving no file behind; with a log that holds changes, the tool says why it cannot read them, rather than
    /// showing the file without them.
    @Test(.enabled(if: isAvailable && asNobody != nil, "needs ../shared/coredata, root, runuser and a user nobody"))
    func aStoreInAFolderTheReaderCannotWriteIsReadOrRefusedClearly() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The tool and the files, where nobody can read and run them.
        let tool = folder.appendingPathComponent("objectgraph").path
        try FileManager.default.copyItem(atPath: try DaemonProcessTests.binary("objectgraph"), toPath: tool)
        let readOnly = folder.appendingPathComponent("backup")
        let logged = folder.appendingPathComponent("logged")
        let scratch = folder.appendingPathComponent("scratch")
        for sub in [readOnly, logged, scratch] {
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        }
        let original = Self.coredata.appendingPathComponent("DataUsage.sqlite")
        try FileManager.default.copyItem(at: original, to: readOnly.appendingPathComponent("DataUsage.sqlite"))
        // A log with a change in it: the writer keeps it (no checkpoint) while both files are copied.
        let writable = scratch.appendingPathComponent("DataUsage.sqlite")
        try FileManager.default.copyItem(at: original, to: writable)
        do {
            let file = try SQLiteFile(writable)
            try file.execute("PRAGMA wal_autocheckpoint = 0; UPDATE ZPROCESS SET ZBUNDLENAME = 'changed'")
            for name in ["DataUsage.sqlite", "DataUsage.sqlite-wal"] {
                try FileManager.default.copyItem(
                    at: scratch.appendingPathComponent(name), to: logged.appendingPathComponent(name))
            }
        }
        for sub in [readOnly, logged] {
            for name in try FileManager.default.contentsOfDirectory(atPath: sub.path) {
                chmod(sub.appendingPathComponent(name).path, 0o444)
            }
            chmod(sub.path, 0o555)
        }
        chmod(folder.path, 0o755)
        chmod(tool, 0o755)
        defer { for sub in [readOnly, logged] { chmod(sub.path, 0o755) } }

        let read = try await Self.runAsNobody(
            [tool, "query", readOnly.appendingPathComponent("DataUsage.sqlite").path, "Process", "--format", "csv"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.hasPrefix("bundleName,firstTimeStamp,procName,timeStamp\n"))
        #expect(read.stdout.contains("com.apple.Translate"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly.path) == ["DataUsage.sqlite"])

        let refused = try await Self.runAsNobody(
            [tool, "query", logged.appendingPathComponent("DataUsage.sqlite").path, "Process"])
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("write-ahead log (-wal) holds changes"), "\(refused.stderr)")
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

extension ObjectGraphToolTests {
    /// A store with composite attributes: `model` lists each composite's elements, `query` gives each element a
    /// column named by its key path and filters by it.
    @Test func compositeAttributesAreColumnsOfTheirElements() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("quakes.sqlite")
        let magnitude = CompositeAttributeDescription(
            name: "magnitude",
            elements: [
                AttributeDescription(name: "richter", type: .double),
                AttributeDescription(name: "scale", type: .string),
            ])
        let quake = EntityDescription(
            name: "Quake", properties: [AttributeDescription(name: "code", type: .string), magnitude])
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [quake]))
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for (code, richter, scale) in [("a", 4.6, "ML"), ("b", 6.1, "Mw")] {
            let object = context.insertNewObject(forEntityName: "Quake")
            object.setValue(code, forKey: "code")
            object.setValue(["richter": richter, "scale": scale] as [String: Any], forKey: "magnitude")
        }
        try context.save()

        let model = try await Self.run(["model", url.path])
        #expect(model.status == 0)
        #expect(model.stdout.contains("  magnitude: Composite (richter: Double, scale: String)"), "\(model.stdout)")
        let csv = try await Self.run(
            ["query", url.path, "Quake", "--where", "magnitude.richter > 5", "--format", "csv"])
        #expect(csv.status == 0)
        #expect(csv.stdout == "code,magnitude.richter,magnitude.scale\n\"b\",\"6.1\",\"Mw\"\n", "\(csv.stdout)")
    }
}
