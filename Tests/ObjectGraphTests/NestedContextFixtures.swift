import ObjectGraph
@testable import ObjectGraphTestSupport

extension Fixture {
    /// A fixture of `kind` with sessions "a" and "b" saved (titles "A" and "B"), both in room "R1": the starting
    /// point of the nested-context suites.
    static func twoSessionsInOneRoom(_ kind: StoreKind = .inMemory) throws -> Fixture {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let setup = fixture.context()
        let room = setup.insertNewObject(forEntityName: "Room")
        room.setValue("R1", forKey: "name")
        for guid in ["a", "b"] {
            setup.makeSession(guid, title: guid.uppercased()).setValue(room, forKey: "room")
        }
        try setup.save()
        return fixture
    }
}
