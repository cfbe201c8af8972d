import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// Prefetching reads the destinations of objects in either state they can be in: faults that keep their fetched
/// values (the usual case, tested with the SQLite store's statement counts) and objects already loaded, whose
/// relationships are read from their slots.
@Suite("Prefetching from loaded objects")
struct PrefetchingSourcesTests {
    @Test(arguments: StoreKind.all)
    func loadedSourcesHaveTheirToOneAndToManyDestinationsRead(kind: StoreKind) throws {
        let fixture = try Fixture.twoSessionsInOneRoom(kind)
        let context = fixture.context()
        // The room, loaded; its sessions are not registered yet.
        let room = try #require(try context.all("Room").first)
        #expect(room.value(forKey: "name") as? String == "R1")
        #expect(!room.isFault)
        let request = FetchRequest(entityName: "Room")
        request.relationshipKeyPathsForPrefetching = ["sessions"]
        #expect(try context.fetch(request).count == 1)
        // The to-many hop from the loaded room read both sessions' values, without firing them.
        let sessions = room.objects(forKey: "sessions")
        #expect(sessions.count == 2)
        for session in sessions {
            let registered = try #require(context.registeredObject(for: session.objectID))
            #expect(registered.isFault == false || registered.faultValues != nil, "\(kind)")
        }

        // The to-one hop from loaded sessions: the room, new to another context, is read with them.
        let other = fixture.context()
        let loaded = try other.all("Session", sortedBy: "guid")
        #expect(loaded.map { $0.value(forKey: "title") as? String } == ["A", "B"])
        #expect(other.registeredObject(for: room.objectID).map { $0.isFault && $0.faultValues == nil } ?? true)
        let sessionsRequest = FetchRequest(entityName: "Session")
        sessionsRequest.relationshipKeyPathsForPrefetching = ["room"]
        #expect(try other.fetch(sessionsRequest).count == 2)
        let otherRoom = try #require(other.registeredObject(for: room.objectID))
        #expect(!otherRoom.isFault || otherRoom.faultValues != nil, "\(kind)")
        #expect(otherRoom.value(forKey: "name") as? String == "R1")
    }
}
