import Foundation

/// Settings shared by all readers.
public struct ScheduleReaderConfiguration: Sendable {
    /// Size and expansion bounds. Default ``ScheduleReaderLimits/default``.
    public var limits: ScheduleReaderLimits
    /// The zone for wall-clock times when a file names none and carries no UTC offsets (legacy FOSDEM
    /// XML, floating iCalendar times without `X-WR-TIMEZONE`). Default UTC; a warning is recorded when used.
    public var fallbackTimeZone: TimeZone

    /// The default configuration.
    public static let `default` = ScheduleReaderConfiguration()

    /// Creates a configuration; every parameter has the documented default.
    public init(limits: ScheduleReaderLimits = .default, fallbackTimeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.limits = limits
        self.fallbackTimeZone = fallbackTimeZone
    }
}
