/// The file formats the readers understand.
public enum ScheduleFormat: String, Sendable, Hashable, CaseIterable {
    /// frab / Pentabarf XML with a `<schedule>` root element.
    case frabXML
    /// frab JSON v1: an object with a top-level `"schedule"` key.
    case frabJSON
    /// iCalendar (RFC 5545), starting with `BEGIN:VCALENDAR`.
    case iCalendar
}
