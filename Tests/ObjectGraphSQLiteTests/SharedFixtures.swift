import Foundation

/// The shared fixtures folder: `<packageRoot>/../shared`; `nil` if neither exists.
func sharedFixturesDirectory(filePath: StaticString = #filePath) -> URL? {
    let packageRoot = URL(fileURLWithPath: "\(filePath)")
        .deletingLastPathComponent()  // ObjectGraphSQLiteTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
    let candidates = [
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared"),
    ]
    return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
}
