import AlmanacWire
import Foundation

/// A congress whose days run past midnight, read from a file that gives only offsets (zone `+01:00`), beside
/// FOSDEM 2021 (Europe/Brussels) and one personal session without a day.
///
/// 38C3 day 1 is 2024-12-27, its window 10:00 to 06:00 the next morning (+01:00): the opening at 11:00 and a
/// late-night talk at 01:00 on the 28th. Day 2 is 2024-12-28 from 10:00: the keynote at 11:00 and a workshop at
/// 11:30 that overlaps it by 30 minutes.
enum CongressSchedule {
    static func session(
        _ id: Int,
        guid: String,
        title: String,
        start: String,
        end: String,
        room: String,
        day: String?,
        conference: String? = "38c3",
        zone: String? = "+01:00",
        store: String = "38c3.xml"
    ) -> WireObject {
        var values: JSONObject = [
            "guid": .string(guid), "title": .string(title), "start": .string(start), "end": .string(end),
            "room.name": .string(room), "status": "confirmed",
        ]
        if let conference { values["conference.acronym"] = .string(conference) }
        if let zone { values["conference.timeZone"] = .string(zone) }
        if let day { values["day.date"] = .string(day) }
        let prefix = conference ?? "personal"
        return WireObject(uri: "x-almanac://\(prefix)/Session/p\(id)", entity: "Session", store: store, values: values)
    }

    static let opening = session(
        1, guid: "c-opening", title: "Opening", start: "2024-12-27T11:00:00+01:00", end: "2024-12-27T11:30:00+01:00",
        room: "Saal 1", day: "2024-12-27")
    static let lateNight = session(
        2, guid: "c-night", title: "Late night talk", start: "2024-12-28T01:00:00+01:00",
        end: "2024-12-28T02:00:00+01:00", room: "Saal 2", day: "2024-12-27")
    static let keynote = session(
        3, guid: "c-keynote", title: "Day two keynote", start: "2024-12-28T11:00:00+01:00",
        end: "2024-12-28T12:00:00+01:00", room: "Saal 1", day: "2024-12-28")
    static let workshop = session(
        4, guid: "c-workshop", title: "Workshop", start: "2024-12-28T11:30:00+01:00", end: "2024-12-28T12:30:00+01:00",
        room: "Saal 2", day: "2024-12-28")
    static let nix = session(
        5, guid: "f-nix", title: "Nix in production", start: "2021-02-06T10:00:00+01:00",
        end: "2021-02-06T10:30:00+01:00", room: "H.2215", day: "2021-02-06", conference: "fosdem-2021",
        zone: "Europe/Brussels", store: "fosdem_2021.xml")
    /// A personal session: no conference, no day; 02:30 +01:00 on the 28th (01:30 UTC).
    static let dinner = session(
        6, guid: "p-dinner", title: "Dinner with Ana", start: "2024-12-28T02:30:00+01:00",
        end: "2024-12-28T03:30:00+01:00", room: "Kantine", day: nil, conference: nil, zone: nil, store: "personal")

    static let conferences = [
        WireObject(
            uri: "x-almanac://38c3/Conference/p1", entity: "Conference", store: "38c3.xml",
            values: [
                "acronym": "38c3", "title": "38th Chaos Communication Congress", "source": "38c3.xml",
                "timeZone": "+01:00",
            ]),
        WireObject(
            uri: "x-almanac://fosdem-2021/Conference/p1", entity: "Conference", store: "fosdem_2021.xml",
            values: [
                "acronym": "fosdem-2021", "title": "FOSDEM 2021", "source": "fosdem_2021.xml",
                "timeZone": "Europe/Brussels",
            ]),
    ]

    static func day(_ id: Int, date: String, start: String, end: String, conference: String) -> WireObject {
        WireObject(
            uri: "x-almanac://\(conference)/Day/p\(id)", entity: "Day", store: "\(conference).xml",
            values: [
                "index": .int(Int64(id)), "date": .string(date), "start": .string(start), "end": .string(end),
                "conference.acronym": .string(conference),
            ])
    }

    static let days = [
        day(
            1, date: "2024-12-27", start: "2024-12-27T10:00:00+01:00", end: "2024-12-28T06:00:00+01:00",
            conference: "38c3"),
        day(
            2, date: "2024-12-28", start: "2024-12-28T10:00:00+01:00", end: "2024-12-29T06:00:00+01:00",
            conference: "38c3"),
        day(
            3, date: "2021-02-06", start: "2021-02-06T06:00:00+01:00", end: "2021-02-07T06:00:00+01:00",
            conference: "fosdem-2021"),
    ]

    static func favorite(_ id: Int, guid: String, conference: String? = "38c3", snapshot: JSONObject = [:])
        -> WireObject
    {
        var values: JSONObject = ["sessionGUID": .string(guid)]
        if let conference { values["conferenceAcronym"] = .string(conference) }
        for (key, value) in snapshot.members { values[key] = value }
        return WireObject(
            uri: "x-almanac://favorites/Favorite/p\(id)", entity: "Favorite", store: "favorites", values: values)
    }

    static func schedule(
        sessions: [WireObject] = [opening, lateNight, keynote, workshop, nix, dinner],
        favorites: [WireObject] = [],
        changes: JSONObject = [:],
        stores: [WireResponse.StoreInfo] = []
    ) -> FakeSchedule {
        FakeSchedule(
            objects: ["Session": sessions, "Conference": conferences, "Day": days, "Favorite": favorites],
            stores: stores,
            changes: changes
        )
    }
}
