import Foundation

/// Time zone abbreviations (`CET`, `CEST`, `EST`, `JST`) from the system's tz database.
///
/// Foundation on Linux answers `GMT+1` for most zones (ICU knows abbreviations only for a locale's own zones), so
/// the client reads the TZif file in `$TZDIR` or `/usr/share/zoneinfo` instead: the POSIX rule in the file's
/// footer names the current standard and daylight abbreviations; older offsets are found among the file's local
/// time types.
enum ZoneAbbreviations {
    struct LocalTimeType: Hashable {
        var offset: Int
        var isDaylight: Bool
        var abbreviation: String
    }

    struct ZoneInfo {
        /// Local time types, the most recently used first.
        var types: [LocalTimeType]
        var footerStandard: (name: String, offset: Int)?
        var footerDaylight: (name: String, offset: Int)?
    }

    /// Zones read so far. The client links only AlmanacWire, not ObjectGraph's `LockedValue`, so the lock is
    /// Foundation's: a pthread mutex on Linux, which ThreadSanitizer sees (Synchronization's `Mutex` it does not).
    private static let cache = Cache()

    private final class Cache: @unchecked Sendable {  // `zones` is only reached under `lock`
        private let lock = NSLock()
        private var zones: [String: ZoneInfo?] = [:]

        func withLock<T>(_ body: (inout [String: ZoneInfo?]) -> T) -> T {
            lock.withLock { body(&zones) }
        }
    }

    /// The abbreviation for `zone` at `date`, or nil when the database has none.
    static func abbreviation(of zone: TimeZone, at date: Date) -> String? {
        guard let info = info(for: zone.identifier) else { return nil }
        let offset = zone.secondsFromGMT(for: date)
        let isDaylight = zone.isDaylightSavingTime(for: date)
        if isDaylight, let daylight = info.footerDaylight, daylight.offset == offset { return daylight.name }
        if !isDaylight, let standard = info.footerStandard, standard.offset == offset { return standard.name }
        return info.types.first { $0.offset == offset && $0.isDaylight == isDaylight }?.abbreviation
            ?? info.types.first { $0.offset == offset }?.abbreviation
    }

    static func info(for identifier: String) -> ZoneInfo? {
        if let cached = cache.withLock({ $0[identifier] }) { return cached }
        let folder = ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo"
        let info: ZoneInfo?
        if identifier.contains(".."), identifier.hasPrefix("/") {
            info = nil
        } else if let data = FileManager.default.contents(atPath: folder + "/" + identifier) {
            info = parse(Array(data))
        } else {
            info = nil
        }
        cache.withLock { $0[identifier] = info }
        return info
    }

    /// Parses a TZif file (RFC 8536), preferring the 64-bit data block of version 2 and later.
    static func parse(_ bytes: [UInt8]) -> ZoneInfo? {
        guard bytes.count >= 44, bytes[0..<4].elementsEqual("TZif".utf8) else { return nil }
        func int32(_ at: Int) -> Int? {
            guard at + 4 <= bytes.count else { return nil }
            return Int(Int32(bitPattern: UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])))
        }
        func block(at start: Int, timeSize: Int) -> (types: [LocalTimeType], end: Int)? {
            guard let isutcnt = int32(start + 20), let isstdcnt = int32(start + 24), let leapcnt = int32(start + 28),
                let timecnt = int32(start + 32), let typecnt = int32(start + 36), let charcnt = int32(start + 40)
            else { return nil }
            let times = start + 44
            let indices = times + timecnt * timeSize
            let ttinfos = indices + timecnt
            let chars = ttinfos + typecnt * 6
            let end = chars + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
            guard end <= bytes.count else { return nil }
            var all: [LocalTimeType] = []
            for index in 0..<typecnt {
                let at = ttinfos + index * 6
                guard let offset = int32(at) else { return nil }
                var name = ""
                var position = chars + Int(bytes[at + 5])
                while position < chars + charcnt, bytes[position] != 0 {
                    name.unicodeScalars.append(Unicode.Scalar(bytes[position]))
                    position += 1
                }
                all.append(LocalTimeType(offset: offset, isDaylight: bytes[at + 4] != 0, abbreviation: name))
            }
            // Most recently used first.
            var ordered: [LocalTimeType] = []
            for transition in stride(from: timecnt - 1, through: 0, by: -1) {
                let type = Int(bytes[indices + transition])
                if type < all.count, !ordered.contains(all[type]) { ordered.append(all[type]) }
            }
            for type in all where !ordered.contains(type) { ordered.append(type) }
            return (ordered, end)
        }
        guard let first = block(at: 0, timeSize: 4) else { return nil }
        var info = ZoneInfo(types: first.types)
        if bytes[4] >= UInt8(ascii: "2"), let second = block(at: first.end, timeSize: 8) {
            info.types = second.types
            let footerStart = second.end
            if footerStart < bytes.count, bytes[footerStart] == 0x0A,
                let close = bytes[(footerStart + 1)...].firstIndex(of: 0x0A)
            {
                let rule = String(decoding: bytes[(footerStart + 1)..<close], as: UTF8.self)
                (info.footerStandard, info.footerDaylight) = parsePOSIXRule(rule)
            }
        }
        return info
    }

    /// The names and UTC offsets of a POSIX TZ rule such as `CET-1CEST,M3.5.0,M10.5.0/3` or `<+0530>-5:30`.
    static func parsePOSIXRule(_ rule: String) -> ((name: String, offset: Int)?, (name: String, offset: Int)?) {
        var scalars = Substring(rule)
        func name() -> String? {
            if scalars.first == "<" {
                guard let close = scalars.firstIndex(of: ">") else { return nil }
                let text = String(scalars[scalars.index(after: scalars.startIndex)..<close])
                scalars = scalars[scalars.index(after: close)...]
                return text
            }
            let text = scalars.prefix { $0.isLetter }
            scalars = scalars.dropFirst(text.count)
            return text.count >= 3 ? String(text) : nil
        }
        func offset() -> Int? {
            let text = scalars.prefix { $0.isNumber || $0 == ":" || $0 == "+" || $0 == "-" }
            guard !text.isEmpty else { return nil }
            scalars = scalars.dropFirst(text.count)
            var sign = 1
            var body = Substring(text)
            if body.first == "-" { sign = -1; body = body.dropFirst() } else if body.first == "+" { body = body.dropFirst() }
            let parts = body.split(separator: ":").compactMap { Int($0) }
            guard !parts.isEmpty else { return nil }
            let seconds = parts[0] * 3600 + (parts.count > 1 ? parts[1] * 60 : 0) + (parts.count > 2 ? parts[2] : 0)
            return -sign * seconds  // POSIX offsets are west-positive
        }
        guard let standardName = name(), let standardOffset = offset() else { return (nil, nil) }
        let standard = (standardName, standardOffset)
        guard !scalars.isEmpty, scalars.first != ",", let daylightName = name() else { return (standard, nil) }
        let daylightOffset = (scalars.first == "," || scalars.isEmpty) ? standardOffset + 3600 : (offset() ?? standardOffset + 3600)
        return (standard, (daylightName, daylightOffset))
    }
}
