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
