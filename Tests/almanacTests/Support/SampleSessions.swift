import AlmanacWire
import Foundation

@testable import almanac

/// A small fixed schedule: 38C3 on Sat 28 Dec 2024, Europe/Berlin (CET, UTC+1).
enum SampleSessions {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func object(
        _ id: Int,
        guid: String,
        title: String,
        start: String,
        end: String,
        room: String,
        track: String = "Security",
        status: String = "confirmed",
        abstract: String? = nil
    ) -> WireObject {
        var values: JSONObject = [
            "guid": .string(guid), "title": .string(title), "start": .string(start), "end": .string(end),
            "room.name": .string(room), "track.name": .string(track), "conference.acronym": "38c3",
            "conference.timeZone": "Europe/Berlin", "status": .string(status), "day.date": "2024-12-28",
        ]
        if let abstract { values["abstract"] = .string(abstract) }
        return WireObject(uri: "x-almanac://38c3/Session/p\(id)", entity: "Session", store: "38c3.xml", values: values)
    }

    static let objects: [WireObject] = [
        object(1, guid: "g-opening", title: "Opening Ceremony", start: "2024-12-28T10:00:00+01:00",
               end: "2024-12-28T10:30:00+01:00", room: "Saal 1", track: "Ceremonies"),
        object(2, guid: "g-rust", title: "Memory safety in practice: a long title that will not fit in a box",
               start: "2024-12-28T10:00:00+01:00", end: "2024-12-28T11:00:00+01:00", room: "Saal 2",
               abstract: "Why, how; and \\ what\nnext?"),
        object(3, guid: "g-cancel", title: "Cancelled talk", start: "2024-12-28T10:30:00+01:00",
               end: "2024-12-28T11:30:00+01:00", room: "Saal 1", status: "cancelled"),
        object(4, guid: "g-lightning", title: "Lightning", start: "2024-12-28T11:00:00+01:00",
               end: "2024-12-28T11:15:00+01:00", room: "Saal G", track: "Community"),
        object(5, guid: "g-grüße", title: "Grüße aus Köln 😀", start: "2024-12-28T10:15:00+01:00",
               end: "2024-12-28T11:00:00+01:00", room: "Saal G", track: "Community"),
    ]

    static var sessions: [SessionSummary] { objects.map(SessionSummary.init) }

    static let favorites: Set<String> = ["g-opening", "g-rust"]

    /// 10:40 CET.
    static let now = WireDate.date(from: "2024-12-28T10:40:00+01:00")!
}
