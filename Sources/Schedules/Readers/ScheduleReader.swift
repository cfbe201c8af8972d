import Foundation

/// Reads any supported schedule format, chosen by content.
///
/// ```swift
/// let document = try ScheduleReader.read(data, source: "schedule.xml")
/// ```
public enum ScheduleReader {
    /// Sniffs the format of `data` and reads it with the matching reader.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - source: The file name or URL, used in errors, warnings and as the conference identity of last resort.
    ///   - configuration: Limits and the fallback time zone.
    /// - Throws: ``ScheduleError`` with code `unsupportedFormat` when the content is none of the formats,
    ///   `tooLarge` past the size limit, or any code the chosen reader throws.
    public static func read(
        _ data: Data, source: String, configuration: ScheduleReaderConfiguration = .default
    ) throws(ScheduleError) -> ScheduleDocument {
        try checkSize(data, source: source, limits: configuration.limits)
        switch ScheduleFormat.sniff(data) {
        case .frabXML: return try FrabXMLReader(configuration: configuration).read(data, source: source)
        case .frabJSON: return try FrabJSONReader(configuration: configuration).read(data, source: source)
        case .iCalendar: return try ICalendarReader(configuration: configuration).read(data, source: source)
        case nil:
            throw ScheduleError(
                code: .unsupportedFormat,
                message: "The content is not frab XML (<schedule> root), frab JSON (\"schedule\" key) or iCalendar "
                    + "(BEGIN:VCALENDAR); check that the URL serves the schedule export.",
                source: source)
        }
    }

    static func checkSize(_ data: Data, source: String, limits: ScheduleReaderLimits) throws(ScheduleError) {
        guard data.count <= limits.maxInputBytes else {
            throw ScheduleError(
                code: .tooLarge,
                message: "The input has \(data.count) bytes, more than the limit of \(limits.maxInputBytes); "
                    + "raise ScheduleReaderLimits.maxInputBytes if the file is genuine.",
                source: source)
        }
        guard !data.isEmpty else {
            throw ScheduleError(
                code: .notWellFormed, message: "The input is empty; check that the download completed.", source: source)
        }
    }
}
