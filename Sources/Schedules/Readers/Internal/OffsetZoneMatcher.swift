import Foundation

/// A UTC offset written on a time in a file, with the instant it was written for.
struct OffsetSample: Hashable {
    /// Seconds since the epoch.
    var instant: Int64
    /// Seconds east of UTC.
    var offset: Int
}

/// Names the zone of the UTC offsets a file writes on its times, when the file names no zone itself.
///
/// The configured zone is preferred when it agrees with every offset at its instant; else the first of
/// ``knownZoneNames`` that does; else a fixed offset (`+01:00`). Offsets that are all zero (times written
/// in `Z` or `+00:00`) name `UTC`: such files write UTC, not their local clock.
enum OffsetZoneMatcher {
    /// The zones tried, in order, for offsets that the configured zone does not explain.
    static let knownZoneNames = [
        "Europe/Berlin", "Europe/London", "Europe/Lisbon", "Europe/Helsinki", "America/New_York", "America/Chicago",
        "America/Denver", "America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Tokyo", "Asia/Singapore",
        "Australia/Sydney", "Australia/Brisbane", "Pacific/Auckland", "UTC",
    ]

    /// The zone chosen for a set of offsets.
    struct Match {
        var converter: ZoneConverter
        /// An IANA name, `UTC`, or a fixed offset written `+HH:MM`.
        var name: String
        var warnings: [String]
    }

    /// Chooses the zone for `samples` (which must not be empty); see the type's rules.
    static func match(_ samples: [OffsetSample], configured: TimeZone?) -> Match {
        let distinct = Array(Set(samples)).sorted { ($0.instant, $0.offset) < ($1.instant, $1.offset) }
        var warnings: [String] = []
        if let configured {
            if agrees(configured, with: distinct) {
                return Match(converter: ZoneConverter(timeZone: configured), name: name(of: configured), warnings: [])
            }
            let sample = distinct.first { configured.secondsFromGMT(for: date($0.instant)) != $0.offset } ?? distinct[0]
            warnings.append(
                "the file's UTC offsets disagree with the configured zone \(name(of: configured)) (the file writes "
                    + "\(stamp(sample)), \(name(of: configured)) is \(offsetText(configured.secondsFromGMT(for: date(sample.instant))))"
                    + " then); the file's offsets are used")
        }
        if distinct.allSatisfy({ $0.offset == 0 }) {
            return Match(converter: ZoneConverter(.fixed(0)), name: "UTC", warnings: warnings)
        }
        for candidate in knownZoneNames {
            guard let zone = TimeZone(identifier: candidate), agrees(zone, with: distinct) else { continue }
            return Match(converter: ZoneConverter(timeZone: zone), name: candidate, warnings: warnings)
        }
        let offset = samples[0].offset
        let offsets = Set(distinct.map(\.offset)).sorted().map(offsetText)
        if offsets.count > 1 {
            warnings.append(
                "the file's UTC offsets (\(offsets.joined(separator: ", "))) match no known zone; times without an "
                    + "offset are read at the first one, \(offsetText(offset)); configure the file's timeZone to name its zone"
            )
        }
        return Match(converter: ZoneConverter(.fixed(offset)), name: offsetText(offset), warnings: warnings)
    }

    /// Whether the zone's offset equals every sample's at its instant.
    static func agrees(_ zone: TimeZone, with samples: [OffsetSample]) -> Bool {
        samples.allSatisfy { zone.secondsFromGMT(for: date($0.instant)) == $0.offset }
    }

    /// The name readers give a zone: its identifier, with Foundation's aliases of UTC (`GMT`, `Etc/UTC`…) as `UTC`.
    static func name(of zone: TimeZone) -> String {
        switch zone.identifier {
        case "GMT", "UTC", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Universal", "Zulu", "UCT":
            return "UTC"
        default:
            return zone.identifier
        }
    }

    /// `+HH:MM` or `-HH:MM` (seconds are dropped).
    static func offsetText(_ offset: Int) -> String {
        let magnitude = abs(offset) / 60
        let hours = magnitude / 60
        let minutes = magnitude % 60
        return (offset < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + String(hours) + ":" + (minutes < 10 ? "0" : "")
            + String(minutes)
    }

    private static func date(_ instant: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(instant)) }

    private static func stamp(_ sample: OffsetSample) -> String {
        LocalDateTime(secondsSinceEpoch: sample.instant + Int64(sample.offset)).isoString + offsetText(sample.offset)
    }
}
