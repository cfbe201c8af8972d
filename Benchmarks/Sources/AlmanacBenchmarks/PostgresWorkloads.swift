import BenchmarkSupport
import Foundation
import Logging
import ObjectGraph
import ObjectGraphPostgres
import PostgresNIO

#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL store beside PostgresNIO used by hand for the same work on the same server, in the same run
/// (issue #25): insert+save of 100k objects against a hand-written multi-row `INSERT` (and `COPY`), a fetch of
/// 100k rows with their values, an indexed sorted limit-50 fetch; and 8 `almanacd` sharing one schema as their
/// personal store, each with 4 clients inserting favourites.
///
/// The server is `ALMANAC_POSTGRES_URL` (`scripts/bench-all.sh` starts a private cluster with fsync on when it is
/// unset); every side works in a schema of its own, dropped afterwards. The two sides run in alternation, so a
/// change in the machine's load affects both alike.
enum PostgresWorkloads {
    /// The rows, or one skipped row when no server is configured.
    static func run(quick: Bool, filter: String?, binary: String?) -> [ResultRow] {
        guard let text = ProcessInfo.processInfo.environment["ALMANAC_POSTGRES_URL"], let base = URL(string: text),
            let location = PostgresStoreLocation(url: base)
        else {
            let reason = "ALMANAC_POSTGRES_URL is not set (scripts/bench-all.sh sets it when it can start a cluster)"
            say("postgres: skipped: \(reason)")
            return [ResultRow.skipped("PostgreSQL store vs PostgresNIO", target: .none, reason: reason)]
        }
        PostgresStore.register()
        say("postgres: \(location.displayString); load average before: \(ResultFile.loadAverage)")
        let steps: [(String, () throws -> [ResultRow])] = [
            ("insert", { try insert(base: base, quick: quick) }),
            ("fetch", { try fetch(base: base, quick: quick) }),
            ("daemons", { try daemons(base: base, quick: quick, binary: binary) }),
        ]
        var rows: [ResultRow] = []
        for (name, step) in steps where filter.map({ name.localizedCaseInsensitiveContains($0) }) ?? true {
            do {
                let made = try step()
                made.forEach(ResultTable.printRow)
                rows += made
            } catch {
                say("postgres \(name): error: \(String(reflecting: error))")
                rows.append(ResultRow.failed("PostgreSQL \(name)", target: .none, error: error))
            }
        }
        say("load average after: \(ResultFile.loadAverage)")
        ResultTable.print(rows)
        return rows
    }

    /// Rounds of the long workloads: 3 with `--quick`, 3 to 7 (until stable) otherwise.
    static func runs(_ quick: Bool) -> Figure.Runs { Figure.Runs.long(quick: quick) }

    /// The store URL of a fresh schema named after `prefix`.
    static func storeURL(_ base: URL, schema: String) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" }
            + [URLQueryItem(name: "schema", value: schema)]
        return components.url!
    }

    static func freshSchema(_ prefix: String) -> String {
        "bench_\(prefix)_\(getpid())_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    }

    // MARK: 1. Insert+save of 100k objects

    /// The `Item` rows (8 attributes) of SQLiteBench and the GRDB workloads, inserted through a context and
    /// saved, against PostgresNIO sending the same rows as multi-row `INSERT`s with bound parameters (1,000 rows
    /// per statement) and as `COPY … FROM STDIN`, one transaction each, into a table of the same layout.
    static func insert(base: URL, quick: Bool) throws -> [ResultRow] {
        let count = quick ? 20_000 : 100_000
        let model = SQLiteWorkloadData.model()
        let hand = try HandConnection(base)
        defer { hand.close() }
        func ours() throws -> Double {
            let schema = freshSchema("ours")
            defer { try? hand.dropSchema(schema) }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(type: .postgres, at: storeURL(base, schema: schema))
            defer { try? coordinator.remove(store) }
            let context = ManagedObjectContext(coordinator: coordinator)
            context.isUndoRegistrationEnabled = false
            return try Figure.seconds {
                for n in 0..<count {
                    SQLiteWorkloadData.setItemValues(n, on: context.insertNewObject(forEntityName: "Item"))
                }
                try context.save()
            }
        }
        func anchor(copy: Bool) throws -> Double {
            let schema = freshSchema(copy ? "copy" : "insert")
            try hand.createItemTable(schema: schema)
            defer { try? hand.dropSchema(schema) }
            return try Figure.seconds {
                try hand.execute("BEGIN")
                if copy { try hand.copyItems(schema: schema, count: count) } else {
                    try hand.insertItems(schema: schema, count: count)
                }
                try hand.execute("COMMIT")
            }
        }
        let (store, multiRow) = try Figure.samplingPair(runs(quick), unit: "s", ours: ours) {
            try anchor(copy: false)
        }
        let copy = try Figure.sampling(runs(quick), unit: "s") { try anchor(copy: true) }
        let unit = "objects/s"
        let note = "\(count / 1000)k Item rows of 8 columns, one transaction; anchor: PostgresNIO multi-row INSERT, "
            + "1,000 rows per statement"
        return [
            ResultRow(workload: "PostgreSQL insert+save 100k: context vs hand multi-row INSERT",
                      ours: store.rate(items: Double(count), unit: unit),
                      anchor: multiRow.rate(items: Double(count), unit: unit), target: .ratioAtLeast(0.5), note: note),
            ResultRow(workload: "PostgreSQL insert+save 100k: context vs hand COPY",
                      ours: store.rate(items: Double(count), unit: unit),
                      anchor: copy.rate(items: Double(count), unit: unit), target: .none,
                      note: "\(count / 1000)k Item rows; anchor: PostgresNIO COPY FROM STDIN (text), measured after "
                          + "the INSERT pair"),
        ]
    }

    // MARK: 2. Fetch all, and the indexed sorted limit-50

    /// 100k `Row` objects (10 attributes, `rank` indexed) saved once by the store; the anchor reads the store's own
    /// table with PostgresNIO and decodes every cell into a struct, so both sides read the same rows and index.
    static func fetch(base: URL, quick: Bool) throws -> [ResultRow] {
        let count = quick ? 20_000 : 100_000
        let hand = try HandConnection(base)
        defer { hand.close() }
        let schema = freshSchema("fetch")
        defer { try? hand.dropSchema(schema) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteWorkloadData.model())
        let store = try coordinator.addPersistentStore(type: .postgres, at: storeURL(base, schema: schema))
        defer { try? coordinator.remove(store) }
        let keys = try store.newReferenceKeys(forEntityName: "Row", count: count)
        var changes = StoreChanges()
        changes.inserted = keys.enumerated().map { index, key in
            StoreRecord(objectID: store.objectID(forEntityName: "Row", referenceKey: key),
                        values: SQLiteWorkloadData.rowValues(index, count: count))
        }
        try store.prepareSave(changes).commit()
        // The store quotes its table and column names (upper case); Z_PK, Z_ENT and Z_OPT are not quoted.
        let table = "\(schema).\"ZROW\""
        try hand.execute("ANALYZE \(table)")
        let columns = ["ZRANK", "ZA", "ZB", "ZX", "ZY", "ZS", "ZT", "ZU", "ZWHEN", "ZFLAG"].reduce("Z_PK, Z_ENT, Z_OPT") {
            $0 + ", \"\($1)\""
        }
        let all = try Figure.timingPair(runs(quick), ours: {
            let context = ManagedObjectContext(coordinator: coordinator)
            let request = FetchRequest(entityName: "Row")
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            precondition(objects.count == count)
        }, anchor: {
            let rows = try hand.rows("SELECT \(columns) FROM \(table) ORDER BY Z_PK")
            precondition(rows.count == count)
        })
        let threshold = count / 2
        let predicate = try ObjectPredicate(format: "rank >= %d", threshold)
        let iterations = quick ? 50 : 200
        let limit = try Figure.timingPair(runs(quick), ours: {
            let context = ManagedObjectContext(coordinator: coordinator)
            for _ in 0..<iterations {
                let request = FetchRequest(entityName: "Row")
                request.predicate = predicate
                request.sortKeys = [SortKey("rank")]
                request.fetchLimit = 50
                request.returnsObjectsAsFaults = false
                let objects = try context.fetch(request)
                precondition(objects.count == 50)
            }
        }, anchor: {
            for _ in 0..<iterations {
                let rows = try hand.rows(
                    "SELECT \(columns) FROM \(table) WHERE \"ZRANK\" >= $1 ORDER BY \"ZRANK\" ASC NULLS FIRST, Z_PK "
                        + "LIMIT 50", [Int64(threshold)])
                precondition(rows.count == 50)
            }
        })
        let unit = "rows/s"
        return [
            ResultRow(workload: "PostgreSQL fetch all 100k with values: context vs hand SELECT",
                      ours: all.ours.rate(items: Double(count), unit: unit),
                      anchor: all.anchor.rate(items: Double(count), unit: unit), target: .ratioAtLeast(0.5),
                      note: "\(count / 1000)k Row objects of 10 columns, not faults; anchor: PostgresNIO, every cell "
                          + "decoded into a struct"),
            ResultRow(workload: "PostgreSQL indexed sorted limit-50: context vs hand SELECT",
                      ours: limit.ours, anchor: limit.anchor, target: .ratioAtMost(2),
                      note: "\(iterations) queries per run, rank >= \(threshold) of \(count / 1000)k rows"),
        ]
    }

    // MARK: 3. 8 daemons on one schema

    /// 8 release `almanacd` with `--personal-store` on one schema, each with 4 clients inserting favourites (session
    /// GUIDs unique per daemon and client): the throughput of all 32 clients, the worst daemon's p99, and the errors.
    static func daemons(base: URL, quick: Bool, binary: String?) throws -> [ResultRow] {
        let binary = binary ?? ProcessInfo.processInfo.environment["ALMANACD"] ?? ""
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            let reason = "no almanacd (pass --almanacd PATH)"
            return ["throughput", "p99", "errors"].map {
                ResultRow.skipped("PostgreSQL 8 daemons x 4 clients inserting favourites: \($0)", target: .none,
                                  reason: reason)
            }
        }
        let daemonCount = 8, clientsPerDaemon = 4
        let seconds: Double = quick ? 3 : 10
        let schema = freshSchema("daemons")
        let hand = try HandConnection(base)
        defer {
            try? hand.dropSchema(schema)
            hand.close()
        }
        let root = URL(fileURLWithPath: "/tmp/almanac-bench-pg-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let url = storeURL(base, schema: schema).absoluteString
        var processes: [DaemonProcess] = []
        defer { processes.forEach { $0.stop() } }
        for index in 0..<daemonCount {
            let folder = root.appendingPathComponent("d\(index)")
            let inbox = folder.appendingPathComponent("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
            let daemon = try DaemonProcess(binary: binary, root: folder, inbox: inbox,
                                           arguments: ["--personal-store", url])
            processes.append(daemon)
            // One at a time: the first creates the schema, the others open it.
            _ = try daemon.waitUntilReady(timeout: 120)
        }
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let sockets = processes.map(\.socketPath)
        func round(_ tag: String) -> [LoadGenerator.Report] {
            let slots = (0..<daemonCount).map { _ in ReportSlot() }
            DispatchQueue.concurrentPerform(iterations: daemonCount) { index in
                let mix = [LoadGenerator.RequestKind(name: "insert", weight: 1, role: .plain) { client, n, _ in
                    #"{"id":\#(n),"op":"insert","entity":"Favorite","values":{"conferenceAcronym":"bench","sessionGUID":"pg-\#(run)-\#(tag)-\#(index)-\#(client)-\#(n)","createdAt":"2026-11-21T12:00:00Z","note":"load generator"}}"#
                }]
                let report = LoadGenerator(socketPath: sockets[index], clients: clientsPerDaemon,
                                           mix: mix, requestsPerClient: 1_000_000, seconds: seconds, warmUp: 5).run()
                slots[index].report = report
            }
            return slots.compactMap(\.report)
        }
        _ = round("warm")
        var rounds: [[LoadGenerator.Report]] = []
        for index in 0..<(quick ? 1 : 3) {
            let reports = round("r\(index)")
            let throughput = reports.reduce(0) { $0 + $1.throughput }
            say(String(format: "  round %d: %.0f inserts/s over %d daemons; worst p99 %.1f ms", index + 1, throughput,
                       daemonCount, (reports.map(\.p99).max() ?? .nan) * 1000))
            rounds.append(reports)
        }
        let errors = rounds.flatMap { $0 }.reduce(0) { $0 + $1.errorsByCode.values.reduce(0, +) }
        let codes = Dictionary(rounds.flatMap { $0 }.flatMap { $0.errorsByCode.map { ($0.key, $0.value) } },
                               uniquingKeysWith: +)
        let note = "\(daemonCount) release almanacd, --personal-store on one schema, \(clientsPerDaemon) clients "
            + "each, \(Int(seconds)) s per round, inserts only; p99: the worst daemon's"
            + String(format: "; p50 %.2f ms", (rounds.last?.map(\.p50).max() ?? .nan) * 1000)
        let name = "PostgreSQL \(daemonCount) daemons x \(clientsPerDaemon) clients inserting favourites"
        return [
            ResultRow(workload: "\(name): throughput",
                      ours: Figure(samples: rounds.map { $0.reduce(0) { $0 + $1.throughput } }, unit: "inserts/s"),
                      target: .none, note: note),
            ResultRow(workload: "\(name): p99",
                      ours: Figure(samples: rounds.map { $0.map(\.p99).max() ?? .nan }, unit: "s"), target: .none,
                      note: note),
            ResultRow(workload: "\(name): errors", ours: .single(Double(errors), unit: "errors"),
                      target: .atMost(0),
                      note: codes.isEmpty ? note : note + "; " + codes.map { "\($0.key): \($0.value)" }.joined(
                          separator: ", ")),
        ]
    }

    /// The report of one daemon's load generator in a round.
    final class ReportSlot: @unchecked Sendable {  // written by its daemon's thread, read after the threads joined
        var report: LoadGenerator.Report?
    }
}

/// PostgresNIO used by hand: one connection, waited on from the benchmark's thread.
final class HandConnection {
    let connection: PostgresConnection
    private let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

    init(_ url: URL) throws {
        guard let location = PostgresStoreLocation(url: url) else { throw BenchError("not a PostgreSQL URL: \(url)") }
        let configuration: PostgresConnection.Configuration
        if let folder = location.socketFolder {
            configuration = .init(unixSocketPath: "\(folder)/.s.PGSQL.\(location.port)", username: location.user,
                                  password: location.password, database: location.database)
        } else {
            configuration = .init(host: location.host ?? "localhost", port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: .disable)
        }
        connection = try PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.next(),
                                                    configuration: configuration, id: 1, logger: logger).wait()
    }

    func close() { try? connection.close().wait() }

    func execute(_ sql: String) throws {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
    }

    func dropSchema(_ schema: String) throws { try execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }

    /// A table laid out as the store lays out `Item` (the same column names and types).
    func createItemTable(schema: String) throws {
        try execute("CREATE SCHEMA \(schema)")
        try execute("""
            CREATE TABLE \(schema).ZITEM (Z_PK BIGINT PRIMARY KEY, Z_ENT BIGINT NOT NULL, Z_OPT BIGINT NOT NULL, \
            ZI1 BIGINT, ZI2 BIGINT, ZD1 DOUBLE PRECISION, ZD2 DOUBLE PRECISION, ZS1 TEXT COLLATE "C", \
            ZS2 TEXT COLLATE "C", ZDATE DOUBLE PRECISION, ZFLAG BIGINT)
            """)
    }

    static let itemColumns = "Z_PK, Z_ENT, Z_OPT, ZI1, ZI2, ZD1, ZD2, ZS1, ZS2, ZDATE, ZFLAG"

    /// The `Item` rows as multi-row `INSERT`s of 1,000 rows with bound parameters.
    func insertItems(schema: String, count: Int) throws {
        var start = 0
        while start < count {
            let end = min(count, start + 1000)
            var binds = PostgresBindings(capacity: (end - start) * 11)
            var sql = "INSERT INTO \(schema).ZITEM (\(Self.itemColumns)) VALUES "
            var parameter = 0
            for n in start..<end {
                if n > start { sql += ", " }
                sql += "("
                for column in 0..<11 {
                    parameter += 1
                    sql += column == 0 ? "$\(parameter)" : ", $\(parameter)"
                }
                sql += ")"
                binds.append(Int64(n + 1))
                binds.append(Int64(1))
                binds.append(Int64(1))
                binds.append(Int64(n))
                binds.append(Int64(n % 1000))
                binds.append(Double(n) * 0.5)
                binds.append(Double(n) / 3)
                binds.append("name \(n)")
                binds.append("city \(n % 97)")
                binds.append(Double(n))
                binds.append(Int64(n % 2 == 0 ? 1 : 0))
            }
            _ = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
            start = end
        }
    }

    /// The `Item` rows through `COPY … FROM STDIN` in text format, sent in chunks of about 256 KB.
    func copyItems(schema: String, count: Int) throws {
        let connection = connection
        let logger = logger
        let promise = connection.eventLoop.makePromise(of: Void.self)
        promise.completeWithTask {
            // copyFrom quotes the table name whole: the schema comes from the transaction's search path, and the
            // unquoted ZITEM of createItemTable is zitem.
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(schema)"), logger: logger)
            try await connection.copyFrom(table: "zitem", columns: [], logger: logger) { writer in
                var buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 18)
                for n in 0..<count {
                    let flag = n % 2 == 0 ? 1 : 0
                    buffer.writeString(
                        "\(n + 1)\t1\t1\t\(n)\t\(n % 1000)\t\(Double(n) * 0.5)\t\(Double(n) / 3)\tname \(n)\t"
                            + "city \(n % 97)\t\(Double(n))\t\(flag)\n")
                    if buffer.readableBytes >= 1 << 18 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        }
        try promise.futureResult.wait()
    }

    /// Every row of a query, each cell decoded into its Swift type (a 13-column `Row` row).
    func rows(_ sql: String, _ parameters: [Int64] = []) throws -> [FetchedRow] {
        var binds = PostgresBindings(capacity: parameters.count)
        for parameter in parameters { binds.append(parameter) }
        let result = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
        return try result.rows.map { row in
            let (pk, ent, opt, rank, a, b, x, y, s, t, u, when, flag) = try row.decode(
                (Int64, Int64, Int64, Int64, Int64, Int64, Double, Double, String, String, String, Double, Int64)
                    .self)
            return FetchedRow(pk: pk, ent: ent, opt: opt, rank: rank, a: a, b: b, x: x, y: y, s: s, t: t, u: u,
                              when: Date(timeIntervalSinceReferenceDate: when), flag: flag != 0)
        }
    }

    struct FetchedRow {
        var pk, ent, opt, rank, a, b: Int64
        var x, y: Double
        var s, t, u: String
        var when: Date
        var flag: Bool
    }
}
