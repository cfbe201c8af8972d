import Foundation
import Testing

/// Locates the real schedule files in `shared/schedules` beside the package (CI), else in
/// tests that need them are skipped when neither exists.
enum SharedSchedules {
    static let folder: URL? = {
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // SchedulesTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        let candidates = [
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/schedules"),
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("SOURCES.md").path) }
    }()

    static var isAvailable: Bool { folder != nil }

    static let skipReason: Comment =
        "shared/schedules is absent beside the package (a fresh clone has no shared/): skipped"

    static func data(_ name: String) throws -> Data {
        guard let folder else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }
}
