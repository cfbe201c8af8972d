import Foundation
import Logging

/// Writes log lines to stderr; under systemd (when `JOURNAL_STREAM` is set) each line starts with its syslog
/// priority (`<3>` for errors, `<6>` for info, …) so journald keeps the levels.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let usesPriorityPrefixes: Bool

    /// Creates a handler; `environment` decides whether priority prefixes are written.
    public init(label: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        self.usesPriorityPrefixes = environment["JOURNAL_STREAM"] != nil
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The syslog priority of a level.
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public func log(event: LogEvent) {
        var all = self.metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        let details = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        let line: String
        if usesPriorityPrefixes {
            line = "<\(Self.priority(of: event.level))>\(event.message)\(details)\n"
        } else {
            line = "\(Date().ISO8601Format()) \(event.level) \(label): \(event.message)\(details)\n"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }
}
