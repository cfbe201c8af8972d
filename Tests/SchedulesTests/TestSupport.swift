import Foundation

@testable import Schedules

/// An instant from an ISO 8601 string with offset, for expectations.
func instant(_ text: String) -> Date {
    let parsed = TimestampParser.parseISO(text)!
    return Date(timeIntervalSince1970: TimeInterval(parsed.secondsSinceEpoch!))
}

extension String {
    var utf8Data: Data { Data(utf8) }
}

/// A small frab XML document around the given conference extras and days.
func frabXML(conference: String = "", days: String) -> Data {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <schedule>
      <version>0.1</version>
      <conference><acronym>test</acronym><title>Test</title>\(conference)</conference>
    \(days)
    </schedule>
    """.utf8Data
}

/// What a person reads on a clock in the document's conference zone: `yyyy-MM-dd'T'HH:mm:ss` and the offset
/// (`Z` in UTC), computed with Foundation rather than the readers' own zone code.
func wallClock(_ date: Date, in document: ScheduleDocument) -> String {
    let name = document.conference.timeZone ?? "(none)"
    let zone: TimeZone?
    if let sign = name.first, sign == "+" || sign == "-" {
        let parts = name.dropFirst().split(separator: ":").compactMap { Int($0) }
        zone =
            parts.count == 2
            ? TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (parts[0] * 3600 + parts[1] * 60)) : nil
    } else {
        zone = TimeZone(identifier: name)
    }
    guard let zone else { return "unknown zone \(name)" }
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = zone
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}

/// The 1-based line of the first line of `text` that contains `needle`.
func line(of needle: String, in data: Data) -> Int? {
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    return lines.firstIndex { $0.contains(needle) }.map { $0 + 1 }
}
