import Foundation

/// Converts between wall clocks and instants for one time zone, caching offsets per quarter hour.
///
/// Not Sendable: each read creates its own converters.
final class ZoneConverter {
    enum Rules {
        case fixed(Int)
        case foundation(TimeZone)
        case custom(VTimeZoneRules)
    }

    let rules: Rules
    private var cache: [Int64: Int] = [:]

    init(_ rules: Rules) { self.rules = rules }

    convenience init(timeZone: TimeZone) {
        if let fixed = ZoneConverter.fixedOffset(of: timeZone) {
            self.init(.fixed(fixed))
        } else {
            self.init(.foundation(timeZone))
        }
    }

    private static func fixedOffset(of zone: TimeZone) -> Int? {
        zone.identifier == "UTC" || zone.identifier == "GMT" ? 0 : nil
    }

    /// Seconds east of UTC at the instant.
    func offset(atUTC seconds: Int64) -> Int {
        switch rules {
        case .fixed(let offset):
            return offset
        case .foundation(let zone):
            let key = seconds >= 0 ? seconds / 900 : (seconds - 899) / 900
            if let cached = cache[key] { return cached }
            let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(key * 900)))
            if cache.count > 100_000 { cache.removeAll(keepingCapacity: true) }
            cache[key] = offset
            return offset
        case .custom(let rules):
            return rules.offset(atUTC: seconds)
        }
    }

    /// The instant a wall clock denotes. In a DST gap the clock is read with the offset before the gap
    /// (02:30 in a spring-forward gap becomes 03:30); in an overlap the earlier instant is chosen.
    func instant(for local: LocalDateTime) -> Int64 {
        let wall = local.secondsSinceEpoch
        let before = offset(atUTC: wall - 86_400)
        let after = offset(atUTC: wall + 86_400)
        if before == after, case .foundation = rules, offset(atUTC: wall - Int64(before)) == before {
            return wall - Int64(before)
        }
        // Try both candidate offsets; prefer the earlier valid instant.
        let candidates = [wall - Int64(max(before, after)), wall - Int64(min(before, after))]
        for candidate in candidates where Int64(offset(atUTC: candidate)) == wall - candidate {
            return candidate
        }
        let first = offset(atUTC: wall - Int64(offset(atUTC: wall)))
        return wall - Int64(min(first, before))
    }

    /// The instant a wall clock denotes, as a `Date`.
    func date(for local: LocalDateTime) -> Date {
        Date(timeIntervalSince1970: TimeInterval(instant(for: local)))
    }

    /// The wall clock at an instant.
    func local(atUTC seconds: Int64) -> LocalDateTime {
        LocalDateTime(secondsSinceEpoch: seconds + Int64(offset(atUTC: seconds)))
    }

    /// The wall clock at a `Date` (sub-second parts are dropped).
    func local(at date: Date) -> LocalDateTime {
        local(atUTC: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// Resolves an IANA name (case-sensitive as in the zone database), accepting prefixed forms such as
    /// `/mozilla.org/20050126_1/Europe/Berlin` by trying ever shorter suffixes.
    static func ianaZone(named name: String) -> TimeZone? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count < 256 else { return nil }
        if let zone = TimeZone(identifier: trimmed), isIANALike(trimmed) { return zone }
        let parts = trimmed.split(separator: "/")
        guard parts.count > 1 else { return nil }
        for start in 1..<parts.count {
            let candidate = parts[start...].joined(separator: "/")
            if isIANALike(candidate), let zone = TimeZone(identifier: candidate) { return zone }
        }
        return nil
    }

    /// Foundation accepts abbreviations and `GMT+2`-style names too; treat only database-shaped names as
    /// IANA names (plus `UTC`).
    private static func isIANALike(_ name: String) -> Bool {
        name == "UTC" || name == "GMT" || name.contains("/")
    }
}
