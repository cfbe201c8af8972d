import Foundation
import ObjectGraph

/// The schedule model: what the daemon stores and clients query. Entity and property names are fixed.
///
/// The model's source of truth is the Xcode model file beside this one, `Schedule.xcdatamodeld` (Xcode edits it, and
/// the ObjectGraphCodegen plugin generates the personal entities' classes from it); this is its compiled-in copy,
/// and a test checks that the two agree.
/// Version 2 (issue #23) added links, room order and guids, track colours, person ids, feedback URLs, do-not-record,
/// the conference's subtitle, URL and zone source, and the favourite's snapshot of its session; stores of version 1
/// open through lightweight migration (the personal store) or as they are (read-only Core Data schedule files,
/// whose new attributes read as nil). The model file keeps both versions.
/// Configurations: `Schedule` (the schedule entities, one store per schedule file) and `Personal` (favourites,
/// reminders, notes, runs and personal sessions, in the daemon's own store).
public enum ScheduleModel {
    /// Builds a new (unfrozen) copy of the model.
    public static func make() -> ManagedObjectModel {
        registerClasses()
        // `acronym` holds the conference's name (ConferenceInfo.name): its acronym, else a slug of its title or file.
        let conference = entity("Conference", [
            string("acronym", optional: false), string("title"), string("subtitle"), string("url"), string("timeZone"),
            string("timeZoneSource"), date("start"), date("end"), string("version"), string("source"),
            toMany("days", "Day", inverse: "conference", rule: .cascade, ordered: true),
            toMany("sessions", "Session", inverse: "conference", rule: .cascade),
        ])
        let day = entity("Day", [
            int("index", .integer16), string("date"), date("start"), date("end"),
            toOne("conference", "Conference", inverse: "days"),
            toMany("sessions", "Session", inverse: "day"),
        ])
        let room = entity("Room", [
            string("name", optional: false), string("guid"), int("position", .integer32),
            toMany("sessions", "Session", inverse: "room"),
        ])
        let track = entity("Track", [
            string("name", optional: false), string("color"), toMany("sessions", "Session", inverse: "track"),
        ])
        let person = entity("Person", [
            string("name", optional: false), string("guid"), string("id"),
            toMany("sessions", "Session", inverse: "persons"),
        ])
        let duration = int("duration", .integer32)
        duration.minimumValue = 0
        let status = string("status", defaultValue: "confirmed")
        status.regularExpression = "confirmed|cancelled"
        let session = entity("Session", [
            string("guid", optional: false), string("code"), string("eventID"), string("title", optional: false),
            string("subtitle"), string("abstract"), string("details"), date("start"), date("end"), duration,
            string("language"), string("type"), string("url"), status, string("slug"), string("feedbackURL"),
            AttributeDescription(name: "doNotRecord", type: .boolean, isOptional: true, defaultValue: false),
            toOne("conference", "Conference", inverse: "sessions"),
            toOne("day", "Day", inverse: "sessions"),
            toOne("room", "Room", inverse: "sessions"),
            toOne("track", "Track", inverse: "sessions"),
            toMany("persons", "Person", inverse: "sessions", ordered: true),
            toMany("links", "Link", inverse: "session", rule: .cascade, ordered: true),
        ])
        let link = entity("Link", [
            string("title"), string("url", optional: false), toOne("session", "Session", inverse: "links"),
        ])
        for name in ["guid", "start", "title"] { session.attributesByName[name]?.isIndexed = true }
        let favorite = entity("Favorite", [
            string("conferenceAcronym", optional: false), string("sessionGUID", optional: false),
            date("createdAt"), string("note"), string("sessionTitle"), date("sessionStart"),
        ], className: "Favorite")
        // A session is a favourite once: a second insert for it fails with a constraint conflict.
        favorite.uniquenessConstraints = [["conferenceAcronym", "sessionGUID"]]
        let minutes = int("minutesBefore", .integer32, defaultValue: 10)
        minutes.minimumValue = 0
        let reminder = entity("Reminder", [
            string("conferenceAcronym", optional: false), string("sessionGUID", optional: false), minutes,
        ], className: "Reminder")
        let note = entity("Note", [
            string("conferenceAcronym"), string("sessionGUID"), string("text", optional: false), date("createdAt"),
        ], className: "Note")
        let processID = int("processID", .integer32, optional: false, defaultValue: -1)
        processID.minimumValue = 0
        processID.usesScalarValueType = true
        // `note` records one-time work a start did, such as migrating favourites to today's conference names.
        let run = entity("Run", [date("date", optional: false), processID, string("note")], className: "Run")

        let model = ManagedObjectModel(entities: [conference, day, room, track, person, session, link, favorite,
                                                  reminder, note, run])
        model.setEntities([conference, day, room, track, person, session, link], forConfigurationName: "Schedule")
        model.setEntities([favorite, reminder, note, run, session], forConfigurationName: "Personal")
        model.localizationDictionary = [
            "Property/processID/Entity/Run": "Process ID",
            "Property/date/Entity/Run": "Date",
            "Property/sessionGUID": "Session",
            "Property/conferenceAcronym": "Conference",
            "Property/minutesBefore/Entity/Reminder": "Minutes before",
        ]
        model.versionIdentifiers = ["2"]
        for (name, template) in templates() { model.setFetchRequestTemplate(template, forName: name) }
        return model
    }

    /// The fetch request templates by name.
    static func templates() -> [(String, FetchRequestTemplate)] {
        let sessionsByStart = [SortKey("start"), SortKey("room.name", comparison: .localizedStandard)]
        let search = ["title", "subtitle", "abstract", "details", "track.name", "room.name"]
            .map { "\($0) CONTAINS[cd] $TEXT" }.joined(separator: " OR ") + " OR ANY persons.name CONTAINS[cd] $TEXT"
        let definitions: [(String, String, String, [SortKey])] = [
            ("SessionsOnDay", "Session", "day.date == $DAY", sessionsByStart),
            ("SessionsInRoom", "Session", "room.name == $ROOM", [SortKey("start")]),
            ("SessionsAt", "Session", "start <= $NOW AND end > $NOW", sessionsByStart),
            ("SessionsBetween", "Session", "start < $END AND end > $START", sessionsByStart),
            ("FavoritesOfConference", "Favorite", "conferenceAcronym == $ACRONYM", [SortKey("createdAt")]),
            ("SearchSessions", "Session", search, sessionsByStart),
        ]
        return definitions.map { name, entity, format, sort in
            let predicate: ObjectPredicate
            do {
                predicate = try ObjectPredicate(format: format, argumentArray: [])
            } catch {
                preconditionFailure("the schedule model's template \(name) does not parse: \(error)")
            }
            return (name, FetchRequestTemplate(entityName: entity, predicate: predicate, sortKeys: sort))
        }
    }

    /// Registers the classes of the personal entities (idempotent): ``Favorite``, ``Note``, ``Run`` and
    /// ``Reminder``, as the code generated from the model file does.
    public static func registerClasses() {
        ManagedObjectClassRegistry.registerScheduleClasses()
    }

    // MARK: Builders

    private static func entity(_ name: String, _ properties: [PropertyDescription],
                               className: String = "ManagedObject") -> EntityDescription {
        EntityDescription(name: name, properties: properties, managedObjectClassName: className)
    }

    private static func string(_ name: String, optional: Bool = true, defaultValue: String? = nil)
        -> AttributeDescription
    {
        AttributeDescription(name: name, type: .string, isOptional: optional, defaultValue: defaultValue)
    }

    private static func date(_ name: String, optional: Bool = true) -> AttributeDescription {
        AttributeDescription(name: name, type: .date, isOptional: optional)
    }

    private static func int(_ name: String, _ type: AttributeType, optional: Bool = true, defaultValue: Int? = nil)
        -> AttributeDescription
    {
        AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: defaultValue)
    }

    private static func toOne(_ name: String, _ destination: String, inverse: String) -> RelationshipDescription {
        RelationshipDescription(name: name, destination: destination, inverse: inverse)
    }

    private static func toMany(_ name: String, _ destination: String, inverse: String,
                               rule: RelationshipDescription.DeleteRule = .nullify, ordered: Bool = false)
        -> RelationshipDescription
    {
        RelationshipDescription(name: name, destination: destination, inverse: inverse, toMany: true, deleteRule: rule,
                                isOrdered: ordered)
    }
}
