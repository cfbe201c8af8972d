/// Bounds that keep a hostile or broken file from exhausting memory or time.
public struct ScheduleReaderLimits: Sendable, Hashable {
    /// The largest input accepted, in bytes. Default 64 MiB; larger input throws `tooLarge`.
    public var maxInputBytes: Int
    /// The deepest element, array or component nesting accepted. Default 256; deeper throws `tooDeeplyNested`.
    public var maxNestingDepth: Int
    /// The most sessions a document may hold (after recurrence expansion). Default 1,000,000; more throws
    /// `tooLarge`.
    public var maxSessions: Int
    /// The most instances one recurring iCalendar event expands to. Default 10,000; the rest are dropped
    /// with a warning.
    public var maxRecurrenceInstances: Int
    /// How far after its first instance a recurring event is expanded, in seconds. Default 2 years
    /// (731 days); later instances are dropped with a warning.
    public var recurrenceHorizon: Int64

    /// The default limits.
    public static let `default` = ScheduleReaderLimits()

    /// Creates limits; every parameter has the documented default.
    public init(
        maxInputBytes: Int = 64 << 20,
        maxNestingDepth: Int = 256,
        maxSessions: Int = 1_000_000,
        maxRecurrenceInstances: Int = 10_000,
        recurrenceHorizon: Int64 = 731 * 86_400
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxSessions = maxSessions
        self.maxRecurrenceInstances = maxRecurrenceInstances
        self.recurrenceHorizon = recurrenceHorizon
    }
}
