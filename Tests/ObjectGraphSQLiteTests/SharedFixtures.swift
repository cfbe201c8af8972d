import Foundation
@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// The shared fixtures folder: `<packageRoot>/../shared`; `nil` if neither exists.
func sharedFixturesDirectory(filePath: StaticString = #filePath) -> URL? {
    let packageRoot = URL(fileURLWithPath: "\(filePath)")
        .deletingLastPathComponent()  // ObjectGraphSQLiteTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
    let candidates = [
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared"),
        // A scratch checkout one level deeper (`<work>/scratch/<package>`) still finds `<work>/shared`.
        packageRoot.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared"),
    ]
    return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
}

/// The rows a query gives on a read-only connection of its own, each as its columns joined by `|` (NULL as "NULL"):
/// what a store wrote, seen as any other SQLite client sees it.
func rawRows(_ url: URL, _ sql: String) throws -> [String] {
    var configuration = SQLiteConnection.Configuration()
    configuration.mode = .readOnly
    let connection = try SQLiteConnection(path: url.path, configuration: configuration)
    let statement = try connection.makeStatement(sql)
    var rows: [String] = []
    while try statement.step() == .row {
        rows.append((0..<statement.columnCount).map { statement.string(at: $0) ?? "NULL" }.joined(separator: "|"))
    }
    return rows
}
