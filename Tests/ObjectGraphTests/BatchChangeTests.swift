import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// `BatchDeleteRequest` and `BatchUpdateRequest`: many objects changed in one save, without the caller's context.
@Suite("Batch deletes and updates")
struct BatchChangeTests {
    /// A conference (cascading to its sessions) in a room (nullifying) and a track (denying), with three sessions.
    private static func schedule(_ fixture: Fixture) throws {
        let context = fixture.context()
        let conference = context.insertNewObject(forEntityName: "Conference")
        conference.setValue("SSD", forKey: "acronym")
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Hall A", forKey: "name")
        for guid in ["g1", "g2", "g3"] {
            let session = context.makeSession(guid)
            session.setValue(conference, forKey: "conference")
            session.setValue(room, forKey: "room")
        }
        let track = context.insertNewObject(forEntityName: "Track")
        track.setValue("Server", forKey: "name")
        try context.all("Session").first { $0.value(forKey: "guid") as? String == "g3" }?
            .setValue(track, forKey: "track")
        try context.save()
    }

    private static func guids(_ fixture: Fixture) throws -> [String] {
        try fixture.context().all("Session", sortedBy: "guid").compactMap { $0.value(forKey: "guid") as? String }
    }

    // MARK: Deletes

    @Test(arguments: StoreKind.all)
    func deletesTheMatchedObjectsWithTheirDeleteRules(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        try Self.schedule(fixture)
        let holder = fixture.context()
        let held = try #require(try holder.all("Session", sortedBy: "guid").first)

        let sessions = FetchRequest(entityName: "Session")
        sessions.predicate = try ObjectPredicate(format: "guid IN %@", ["g1", "g2"])
        let request = BatchDeleteRequest(fetchRequest: sessions)
        request.resultType = .objectIDs
        let result = try holder.execute(request)
        #expect(result.count == 2 && result.objectIDs?.count == 2)
        #expect(result.objectIDs?.contains(held.objectID) == true)
        #expect(try Self.guids(fixture) == ["g3"])
        // Nullify: the room lost the deleted sessions; the caller's context was not changed.
        let reader = fixture.context()
        let room = try #require(try reader.all("Room").first)
        #expect(room.objects(forKey: "sessions").count == 1)
        #expect(!holder.hasChanges)

        // Cascade: deleting the conference deletes its last session; deny: a track with sessions is not deleted.
        let track = BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Track"))
        let denied = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(track) }
        #expect(denied.code == .relationshipDeniedDelete)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Track")) == 1)
        _ = try fixture.coordinator.execute(BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Conference")))
        #expect(try Self.guids(fixture).isEmpty)
        _ = try fixture.coordinator.execute(track)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Track")) == 0)
    }

    @Test func deletesByIDAndRefusesUnknownIDs() throws {
        let fixture = Fixture(.sqlite)
        try fixture.addStore()
        try Self.schedule(fixture)
        let ids = try fixture.context().fetchObjectIDs(FetchRequest(entityName: "Session"))
        let result = try fixture.coordinator.execute(BatchDeleteRequest(objectIDs: [ids[0]]))
        #expect(result.count == 1 && result.objectIDs == nil)
        #expect(try Self.guids(fixture).count == 2)
        // An ID of an object that is gone: an error, and nothing else is deleted.
        let error = try #require(throws: StoreError.self) {
            try fixture.coordinator.execute(BatchDeleteRequest(objectIDs: [ids[1], ids[0]]))
        }
        #expect(error.code == .objectNotFound)
        #expect(try Self.guids(fixture).count == 2)
    }

    // MARK: Updates

    @Test(arguments: StoreKind.all)
    func updatesTheMatchedObjectsAttributes(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        try Self.schedule(fixture)
        let request = BatchUpdateRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "guid != 'g2'")
        request.propertiesToUpdate = [
            "code": "ABC-1",
            "duration": Int32(45),  // converted as setValue converts
            "start": nil,
        ]
        request.resultType = .objectIDs
        let result = try fixture.context().execute(request)
        #expect(result.count == 2 && result.objectIDs?.count == 2)
        let reader = fixture.context()
        let sessions = try reader.all("Session", sortedBy: "guid")
        #expect(sessions.map { $0.value(forKey: "code") as? String } == ["ABC-1", nil, "ABC-1"])
        #expect(sessions.map { $0.value(forKey: "duration") as? Int } == [45, 30, 45])
        // Relationships are untouched.
        #expect(sessions.allSatisfy { $0.value(forKey: "room") != nil })

        // An expression is evaluated against each object.
        let longer = BatchUpdateRequest(entityName: "Session")
        longer.propertiesToUpdate = ["duration": ObjectExpression.arithmetic(.add, .keyPath("duration"),
                                                                             try .value(15))]
        #expect(try fixture.coordinator.execute(longer).count == 3)
        #expect(try fixture.context().all("Session", sortedBy: "guid").map { $0.value(forKey: "duration") as? Int }
            == [60, 45, 60])
    }

    @Test func badUpdatesFailAndWriteNothing() throws {
        let fixture = Fixture(.sqlite)
        try fixture.addStore()
        try Self.schedule(fixture)
        func failure(_ values: [String: (any Sendable)?]) -> (any Error)? {
            let request = BatchUpdateRequest(entityName: "Session")
            request.propertiesToUpdate = values
            do {
                _ = try fixture.coordinator.execute(request)
                return nil
            } catch {
                return error
            }
        }
        #expect((failure(["title": 42]) as? ValidationError)?.code == .wrongType)
        #expect((failure(["nonsense": 1]) as? ValidationError)?.code == .unknownKey)
        #expect((failure(["scratch": "x"]) as? ValidationError)?.code == .unknownKey)  // transient
        #expect((failure(["room": nil]) as? StoreError)?.code == .unsupportedRequest)
        // The model's rules apply to every object: a pattern, a required attribute.
        #expect((failure(["code": "bad"]) as? ValidationError)?.allErrors.map(\.code)
            == Array(repeating: .stringPatternMismatch, count: 3))
        #expect((failure(["code": "ABC-1", "title": nil]) as? ValidationError)?.code == .multipleErrors)
        #expect((failure(["code": "ABC-1", "title": nil]) as? ValidationError)?.allErrors.first?.code
            == .missingMandatoryProperty)
        #expect(try fixture.context().all("Session").allSatisfy { $0.value(forKey: "code") == nil })
        #expect(failure(["code": "ABC-2"]) == nil)
        let unknown = BatchUpdateRequest(entityName: "Nope")
        #expect(throws: ModelError.self) { try fixture.coordinator.execute(unknown) }
    }
}
