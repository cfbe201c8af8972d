import Foundation
import ObjectGraph
import Schedules
import Testing

@testable import AlmanacDaemon

/// A store that is no atomic store but knows its size: its fetches fail, so a count by query would show.
private final class CountedStore: IncrementalStore, StoreObjectCounting, @unchecked Sendable {  // immutable
    override class var storeType: PersistentStoreType { "Counted" }
    var objectCount: Int { 42 }
}

/// The daemon reaches stores through their protocols only: any store adopting them is served alike.
@Suite("Stores behind their protocols")
struct StoreProtocolTests {
    @Test func objectCountComesFromAnyStoreThatKeepsOne() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let model = fixture.core.library.coordinator.managedObjectModel
        let store = try CountedStore(model: model, configurationName: "Schedule", url: nil, options: [:])
        #expect(fixture.core.engine.objectCount(in: store) == 42)
    }

    @Test func scheduleEntriesTakeDocumentAndCountThroughTheProtocols() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let entries = fixture.core.library.entriesByPath
        #expect(entries.count == 3)
        for entry in entries {
            let store = try #require(entry.store as? any ScheduleDocumentProviding)
            let document = try #require(store.document)
            #expect(entry.document?.conference.name == document.conference.name)
            #expect(entry.conference == document.conference.name)
            #expect(entry.objectCount == (store as? any StoreObjectCounting)?.objectCount)
            #expect(entry.objectCount > document.sessions.count)
        }
    }
}
