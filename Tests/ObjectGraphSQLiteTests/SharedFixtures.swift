import Foundation
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
