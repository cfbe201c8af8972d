/// Where a conference's time zone came from, in the order the readers try them.
public enum TimeZoneSource: String, Sendable, Hashable, CaseIterable {
    /// The file names its zone (frab `time_zone_name`, iCalendar `X-WR-TIMEZONE` or an IANA `TZID`).
    case file
    /// The UTC offsets written on the file's times (frab `<date>`): a known zone whose offsets agree, else a
    /// fixed offset such as `+01:00`.
    case offsets
    /// The per-file setting (`files` in `almanacd.json`), for a file that says nothing about its zone.
    case configured
    /// Nothing said which zone: UTC is assumed, with a warning.
    case assumed
}
