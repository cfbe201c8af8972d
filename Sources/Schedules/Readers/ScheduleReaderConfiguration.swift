import Foundation

/// Settings shared by all readers, and the per-file settings a user gives for one file.
public struct ScheduleReaderConfiguration: Sendable {
    /// Size and expansion bounds. Default ``ScheduleReaderLimits/default``.
    public var limits: ScheduleReaderLimits
    /// The zone assumed for wall-clock times when a file names none, carries no UTC offsets and no zone is
    /// configured (legacy FOSDEM XML, floating iCalendar times without `X-WR-TIMEZONE`). Default UTC; a warning is
    /// recorded when used, and the conference's ``ConferenceInfo/timeZoneSource`` is ``TimeZoneSource/assumed``.
    public var fallbackTimeZone: TimeZone
    /// The zone configured for this file (`"timeZone"` in the daemon's per-file settings): used when the file names
    /// none (``TimeZoneSource/configured``), and preferred as the name of the file's UTC offsets when they agree with
    /// it. A zone the file names itself wins.
    public var timeZone: TimeZone?
    /// The conference name configured for this file (`"acronym"`): replaces the file's acronym.
    public var acronym: String?
    /// The configured day change, in seconds after local midnight (`"dayChange": "06:00"`): where a conference day
    /// ends when the file's `<day>` gives no window. Default none (the file's `day_change`, else 06:00).
    public var dayChange: Int?

    /// The default configuration.
    public static let `default` = ScheduleReaderConfiguration()

    /// Creates a configuration; every parameter has the documented default.
    public init(
        limits: ScheduleReaderLimits = .default, fallbackTimeZone: TimeZone = TimeZone(identifier: "UTC")!,
        timeZone: TimeZone? = nil, acronym: String? = nil, dayChange: Int? = nil
    ) {
        self.limits = limits
        self.fallbackTimeZone = fallbackTimeZone
        self.timeZone = timeZone
        self.acronym = acronym
        self.dayChange = dayChange
    }
}
