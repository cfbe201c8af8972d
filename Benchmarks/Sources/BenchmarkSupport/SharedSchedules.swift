import Foundation

/// The real schedule files of `../shared/schedules` (beside the checkout; see its SOURCES.md), or of
/// `$ALMANAC_SHARED/schedules` when that is set (`scripts/bench-all.sh --shared PATH` sets it, by default to the
/// `shared` folder beside the checkout it runs from, wherever the binaries were built). A fresh clone has no such
/// folder: workloads that need one report a skipped row.
public enum SharedSchedules {
    /// The checkout's root: this file is Benchmarks/Sources/BenchmarkSupport/SharedSchedules.swift.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let folder: URL = {
        if let shared = ProcessInfo.processInfo.environment["ALMANAC_SHARED"], !shared.isEmpty {
            return URL(fileURLWithPath: shared).appendingPathComponent("schedules").standardizedFileURL
        }
        return repository.deletingLastPathComponent().appendingPathComponent("shared/schedules")
    }()

    /// FOSDEM 2021's frab (Pentabarf) XML: 1.66 MB, 773 sessions.
    public static let fosdem2021 = "fosdem-2021-schedule.xml"

    /// The file's URL, or `nil` when it is absent.
    public static func url(_ name: String) -> URL? {
        let url = folder.appendingPathComponent(name).standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
