/// A parsed RFC 5545 `RRULE` (the subset conference calendars use).
struct RecurrenceRule: Sendable, Hashable {
    enum Frequency: String, Sendable {
        case secondly = "SECONDLY"
        case minutely = "MINUTELY"
        case hourly = "HOURLY"
        case daily = "DAILY"
        case weekly = "WEEKLY"
        case monthly = "MONTHLY"
        case yearly = "YEARLY"
    }

    /// A `BYDAY` entry such as `TU`, `2TU` or `-1FR`.
    struct WeekdayEntry: Sendable, Hashable {
        /// ISO weekday, 1 = Monday.
        var weekday: Int
        var ordinal: Int?
    }

    struct Invalid: Error {
        var message: String
    }

    var frequency: Frequency
    var interval = 1
    var count: Int?
    var until: ParsedTimestamp?
    var byDay: [WeekdayEntry] = []
    var byMonthDay: [Int] = []
    var byMonth: [Int] = []
    /// ISO weekday the week starts on (`WKST`, default Monday).
    var weekStart = 1
    /// Rule parts this reader does not apply (`BYSETPOS`, `BYHOUR`…).
    var unsupportedParts: [String] = []

    static let weekdays = ["MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6, "SU": 7]

    init(parsing text: String) throws(Invalid) {
        var frequency: Frequency?
        var rule = (interval: 1, count: Int?.none, until: ParsedTimestamp?.none)
        var byDay: [WeekdayEntry] = []
        var byMonthDay: [Int] = []
        var byMonth: [Int] = []
        var weekStart = 1
        var unsupported: [String] = []
        for part in text.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else { throw Invalid(message: "rule part without '='") }
            let key = pieces[0].uppercased().trimmingSpaces
            let value = String(pieces[1]).trimmingSpaces
            switch key {
            case "FREQ":
                guard let parsed = Frequency(rawValue: value.uppercased()) else {
                    throw Invalid(message: "unknown FREQ")
                }
                frequency = parsed
            case "INTERVAL":
                guard let number = Int(value), number >= 1, number <= 100_000 else {
                    throw Invalid(message: "INTERVAL must be a positive integer")
                }
                rule.interval = number
            case "COUNT":
                guard let number = Int(value), number >= 1 else {
                    throw Invalid(message: "COUNT must be a positive integer")
                }
                rule.count = number
            case "UNTIL":
                guard let parsed = TimestampParser.parseICalendar(value) else {
                    throw Invalid(message: "UNTIL is not a date")
                }
                rule.until = parsed
            case "BYDAY":
                for entry in value.split(separator: ",") {
                    let upper = entry.uppercased().trimmingSpaces
                    guard upper.count >= 2, let weekday = Self.weekdays[String(upper.suffix(2))] else {
                        throw Invalid(message: "BYDAY entry is not a weekday")
                    }
                    let prefix = upper.dropLast(2)
                    var ordinal: Int? = nil
                    if !prefix.isEmpty {
                        guard let number = Int(prefix), number != 0, abs(number) <= 53 else {
                            throw Invalid(message: "BYDAY ordinal out of range")
                        }
                        ordinal = number
                    }
                    byDay.append(WeekdayEntry(weekday: weekday, ordinal: ordinal))
                }
            case "BYMONTHDAY":
                for entry in value.split(separator: ",") {
                    guard let number = Int(entry), number != 0, abs(number) <= 31 else {
                        throw Invalid(message: "BYMONTHDAY out of range")
                    }
                    byMonthDay.append(number)
                }
            case "BYMONTH":
                for entry in value.split(separator: ",") {
                    guard let number = Int(entry), (1...12).contains(number) else {
                        throw Invalid(message: "BYMONTH out of range")
                    }
                    byMonth.append(number)
                }
            case "WKST":
                guard let day = Self.weekdays[value.uppercased()] else {
                    throw Invalid(message: "WKST is not a weekday")
                }
                weekStart = day
            default:
                unsupported.append(key)
            }
        }
        guard let frequency else { throw Invalid(message: "FREQ is missing") }
        guard rule.count == nil || rule.until == nil else { throw Invalid(message: "COUNT and UNTIL are exclusive") }
        self.frequency = frequency
        self.interval = rule.interval
        self.count = rule.count
        self.until = rule.until
        self.byDay = byDay
        self.byMonthDay = byMonthDay
        self.byMonth = byMonth
        self.weekStart = weekStart
        self.unsupportedParts = unsupported
    }
}
