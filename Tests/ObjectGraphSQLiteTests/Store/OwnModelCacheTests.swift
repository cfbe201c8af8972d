import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// The model ObjectGraph keeps in the metadata of the SQLite stores it writes, read back by
/// `ManagedObjectModel(contentsOfStoreAt:)`.
@Suite("Model kept in ObjectGraph's own store files")
struct OwnModelCacheTests {
    /// A model with what a store file must give back: camel-case names, inheritance from an abstract entity, an
    /// ordered to-many, a many-to-many pair, delete rules and counts, a derived attribute, user info, a
    /// transformable attribute and a required one.
    static func model(extraAttribute: Bool = false) throws -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [AttributeDescription(name: "createdAt", type: .date)])
        item.isAbstract = true
        item.userInfo = ["origin": "schedule import"]
        let title = AttributeDescription(name: "sessionTitle", type: .string, isOptional: false)
        title.userInfo = ["maxLength": "200"]
        let searchTitle = DerivedAttributeDescription(
            name: "searchTitle", type: .string,
            derivationExpression: try ObjectExpression(format: "canonical:(sessionTitle)"))
        let tags = AttributeDescription(name: "tagList", type: .transformable)
        tags.valueTransformerName = "NSSecureUnarchiveFromData"
        let start = AttributeDescription(
            name: "startsAt", type: .date, defaultValue: Date(timeIntervalSinceReferenceDate: 789_000_000))
        start.isIndexed = true
        var sessionProperties: [PropertyDescription] = [
            title, searchTitle, tags, start,
            AttributeDescription(name: "durationMinutes", type: .integer32, defaultValue: 30),
            AttributeDescription(name: "rating", type: .double, defaultValue: 2.5),
            AttributeDescription(name: "isKeynote", type: .boolean, defaultValue: true),
            AttributeDescription(name: "language", type: .string, defaultValue: "en"),
            AttributeDescription(name: "slides", type: .binaryData, defaultValue: Data([1, 2, 3])),
            RelationshipDescription(name: "conference", destination: "Conference", inverse: "sessions"),
            RelationshipDescription(name: "speakers", destination: "Speaker", inverse: "sessions", toMany: true),
        ]
        if extraAttribute { sessionProperties.append(AttributeDescription(name: "roomName", type: .string)) }
        let session = EntityDescription(name: "Session", properties: sessionProperties)
        session.managedObjectClassName = "SessionMO"
        session.indexes = [
            FetchIndexDescription(
                name: "byTitleAndStart", propertyNames: ["sessionTitle", "startsAt"], descending: ["startsAt"])
        ]
        item.subentities = [session]
        let sessions = RelationshipDescription(
            name: "sessions", destination: "Session", inverse: "conference",
            toMany: true, deleteRule: .cascade)
        sessions.isOrdered = true
        sessions.maxCount = 500
        let conference = EntityDescription(
            name: "Conference",
            properties: [
                AttributeDescription(name: "displayName", type: .string), sessions,
            ])
        let speaker = EntityDescription(
            name: "Speaker",
            properties: [
                AttributeDescription(name: "fullName", type: .string),
                RelationshipDescription(
                    name: "sessions", destination: "Session", inverse: "speakers", toMany: true,
                    deleteRule: .deny),
            ])
        return ManagedObjectModel(entities: [item, session, conference, speaker])
    }

    /// Writes a conference with two sessions in order (the second first) and a speaker of both.
    static func writeStore(at url: URL, model: ManagedObjectModel) throws {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let conference = context.insertNewObject(forEntityName: "Conference")
        conference.setValue("FOSDEM", forKey: "displayName")
        let speaker = context.insertNewObject(forEntityName: "Speaker")
        speaker.setValue("Ada", forKey: "fullName")
        var sessions: [ManagedObject] = []
        for (title, minutes) in [("Zürich keynote", 50), ("Äpfel und Birnen", 25)] {
            let session = context.insertNewObject(forEntityName: "Session")
            session.setValue(title, forKey: "sessionTitle")
            session.setValue(minutes, forKey: "durationMinutes")
            session.setValue([speaker], forKey: "speakers")
            sessions.append(session)
        }
        conference.setValue(Array(sessions.reversed()), forKey: "sessions")
        try context.save()
    }

    @Test func aStoreObjectGraphWroteGivesBackItsModel() throws {
        let folder = TemporaryFolder()
        let url = folder.file("conference.sqlite")
        let written = try Self.model()
        try Self.writeStore(at: url, model: written)

        let read = try ManagedObjectModel(contentsOfStoreAt: url)
        #expect(Set(read.entitiesByName.keys) == ["Item", "Session", "Conference", "Speaker"])
        // The version hashes cover names, types, optionality, inheritance, relationships and derivations.
        #expect(read.entityVersionHashesByName == written.entityVersionHashesByName)
        let item = try #require(read.entitiesByName["Item"])
        let session = try #require(read.entitiesByName["Session"])
        #expect(item.isAbstract && session.superentity === item)
        #expect(item.userInfo == ["origin": "schedule import"])
        #expect(session.managedObjectClassName == "SessionMO")
        let title = try #require(session.attributesByName["sessionTitle"])
        #expect(title.attributeType == .string && !title.isOptional && title.userInfo == ["maxLength": "200"])
        #expect(session.attributesByName["createdAt"]?.attributeType == .date)
        #expect(session.attributesByName["durationMinutes"]?.attributeType == .integer32)
        #expect(session.attributesByName["tagList"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        let defaults = session.attributesByName
        #expect(defaults["durationMinutes"]?.defaultValue as? Int == 30)
        #expect(defaults["rating"]?.defaultValue as? Double == 2.5)
        #expect(defaults["isKeynote"]?.defaultValue as? Bool == true)
        #expect(defaults["language"]?.defaultValue as? String == "en")
        #expect(defaults["slides"]?.defaultValue as? Data == Data([1, 2, 3]))
        #expect(defaults["startsAt"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 789_000_000))
        #expect(defaults["startsAt"]?.isIndexed == true && defaults["rating"]?.isIndexed == false)
        #expect(defaults["sessionTitle"]?.defaultValue == nil)
        #expect(session.indexes == written.entitiesByName["Session"]?.indexes)
        #expect(session.indexes.first?.descending == ["startsAt"])
        let derived = try #require(session.attributesByName["searchTitle"] as? DerivedAttributeDescription)
        #expect(derived.derivationFormat == "canonical:(sessionTitle)")
        let sessions = try #require(read.entitiesByName["Conference"]?.relationshipsByName["sessions"])
        #expect(sessions.isToMany && sessions.isOrdered && sessions.deleteRule == .cascade)
        #expect(sessions.maxCount == 500 && sessions.inverseName == "conference")
        let speakers = try #require(read.entitiesByName["Speaker"]?.relationshipsByName["sessions"])
        #expect(speakers.deleteRule == .deny && speakers.inverseRelationship?.isToMany == true)
        #expect(read.entities.allSatisfy { $0.userInfo["ObjectGraphInferred"] == nil })

        // The hashes match, so the store opens with the model read from it as with its own, version check included.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: read)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [.readOnly: true])
        let context = ManagedObjectContext(coordinator: coordinator)
        let conference = try #require(try context.all("Conference").first)
        #expect(
            conference.objects(forKey: "sessions").map { $0.value(forKey: "sessionTitle") as? String }
                == ["Äpfel und Birnen", "Zürich keynote"])
        let loaded = try context.all("Session")
        #expect(
            Set(loaded.compactMap { $0.value(forKey: "searchTitle") as? String }) == [
                "zurich keynote", "apfel und birnen",
            ])
        #expect(
            loaded.allSatisfy {
                $0.objects(forKey: "speakers").map { $0.value(forKey: "fullName") as? String } == ["Ada"]
            })
    }

    @Test func aMigratedStoreGivesBackTheNewModel() throws {
        let folder = TemporaryFolder()
        let url = folder.file("conference.sqlite")
        try Self.writeStore(at: url, model: try Self.model())
        let newer = try Self.model(extraAttribute: true)
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: newer)
            try coordinator.addPersistentStore(
                type: .sqlite, at: url,
                options: [
                    .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
                ])
        }
        let read = try ManagedObjectModel(contentsOfStoreAt: url)
        #expect(read.entitiesByName["Session"]?.attributesByName["roomName"]?.attributeType == .string)
        #expect(read.entityVersionHashesByName == newer.entityVersionHashesByName)
    }

    /// A store whose metadata hashes are no longer those of the kept model (Core Data migrated it and kept the
    /// key, say) is read as a store without a cache: from its tables, marked as inferred.
    @Test func aKeptModelWhoseHashesNoLongerMatchIsNotTrusted() throws {
        let folder = TemporaryFolder()
        let url = folder.file("conference.sqlite")
        try Self.writeStore(at: url, model: try Self.model())
        let connection = try SQLiteConnection(path: url.path, configuration: SQLiteConnection.Configuration())
        let select = try connection.makeStatement("SELECT Z_PLIST FROM Z_METADATA")
        #expect(try select.step() == .row)
        let stored = try #require(select.data(at: 0))
        var plist = try #require(
            try PropertyListSerialization.propertyList(from: stored, format: nil) as? [String: Any])
        #expect(plist[ModelCacheEncoder.metadataKey] is Data)
        plist[StoreMetadata.modelVersionHashesKey] = ["Session": Data(repeating: 7, count: 32)]
        let changed = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let update = try connection.makeStatement("UPDATE Z_METADATA SET Z_PLIST = ?")
        try update.bind([.blob(changed)])
        try update.run()
        connection.close()

        let read = try ManagedObjectModel(contentsOfStoreAt: url)
        #expect(read.entitiesByName["Session"] != nil)
        #expect(read.entitiesByName["Session"]?.attributesByName["sessionTitle"] == nil)
        #expect(read.entitiesByName["Session"]?.userInfo["ObjectGraphInferred"] == "YES")
    }
}
