import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// Merge policies with Core Data's semantics, run over every store type (part of the conformance suite): two
/// contexts read session "a" (title "T0", code "ABC-0"); the first changes a property and saves; the second changes
/// the same property or another one and saves under each policy.
extension StoreConformanceTests {
    private struct Conflict {
        let fixture: Fixture
        let first: ManagedObjectContext
        let second: ManagedObjectContext
        let mine: ManagedObject

        /// The first context changes `theirs` ("title" or "code") and saves; the second changes `ours`.
        init(_ kind: StoreKind, theirs: String, ours: String, policy: MergePolicy) throws {
            fixture = Fixture(kind)
            try fixture.addStore()
            let setup = fixture.context()
            setup.makeSession("a", title: "T0").setValue("ABC-0", forKey: "code")
            try setup.save()
            first = fixture.context()
            second = fixture.context()
            second.mergePolicy = policy
            let theirObject = try first.all("Session")[0]
            mine = try second.all("Session")[0]
            _ = mine.value(forKey: "title")
            theirObject.setValue(theirs == "title" ? "T1" : "ABC-1", forKey: theirs)
            try first.save()
            mine.setValue(ours == "title" ? "T2" : "ABC-2", forKey: ours)
        }

        /// Title and code as the store holds them.
        func stored() throws -> [String?] {
            let object = try fixture.context().all("Session")[0]
            return [object.value(forKey: "title") as? String, object.value(forKey: "code") as? String]
        }

        func inMemory() -> [String?] {
            [mine.value(forKey: "title") as? String, mine.value(forKey: "code") as? String]
        }
    }

    @Test(arguments: StoreKind.all)
    func errorPolicyFailsWithTheConflictsAndChangesNothing(kind: StoreKind) throws {
        for ours in ["title", "code"] {
            let conflict = try Conflict(kind, theirs: "title", ours: ours, policy: .error)
            let error = try #require(throws: StoreError.self) { try conflict.second.save() }
            #expect(error.code == .mergeConflict)
            let details = try #require(error.mergeConflicts.first)
            #expect(error.mergeConflicts.count == 1)
            #expect(details.sourceObjectID == conflict.mine.objectID)
            #expect(details.cachedSnapshot["title"] as? String == "T0")
            #expect(details.persistedSnapshot?["title"] as? String == "T1")
            #expect(details.objectSnapshot[ours] as? String == (ours == "title" ? "T2" : "ABC-2"))
            #expect(details.objectSnapshot["persons"] == nil)
            #expect(details.newVersionNumber == details.oldVersionNumber + 1)
            // Nothing changed: the store holds the first context's save, the second keeps its change.
            #expect(try conflict.stored() == ["T1", "ABC-0"])
            #expect(conflict.mine.isUpdated)
            #expect(conflict.second.hasChanges)
        }
    }

    @Test(arguments: StoreKind.all)
    func mergeByPropertyStoreTrumpKeepsBothChangesAndTheStoresValueOnTheSameProperty(kind: StoreKind) throws {
        let different = try Conflict(kind, theirs: "title", ours: "code", policy: .mergeByPropertyStoreTrump)
        try different.second.save()
        #expect(try different.stored() == ["T1", "ABC-2"])
        #expect(different.inMemory() == ["T1", "ABC-2"])
        #expect(!different.second.hasChanges)

        let same = try Conflict(kind, theirs: "title", ours: "title", policy: .mergeByPropertyStoreTrump)
        try same.second.save()
        #expect(try same.stored() == ["T1", "ABC-0"])
        #expect(same.inMemory() == ["T1", "ABC-0"])
    }

    @Test(arguments: StoreKind.all)
    func mergeByPropertyObjectTrumpKeepsBothChangesAndTheContextsValueOnTheSameProperty(kind: StoreKind) throws {
        let different = try Conflict(kind, theirs: "title", ours: "code", policy: .mergeByPropertyObjectTrump)
        try different.second.save()
        #expect(try different.stored() == ["T1", "ABC-2"])
        #expect(different.inMemory() == ["T1", "ABC-2"])

        let same = try Conflict(kind, theirs: "title", ours: "title", policy: .mergeByPropertyObjectTrump)
        try same.second.save()
        #expect(try same.stored() == ["T2", "ABC-0"])
        #expect(same.inMemory() == ["T2", "ABC-0"])
    }

    @Test(arguments: StoreKind.all)
    func overwriteWritesTheWholeObjectOfTheContext(kind: StoreKind) throws {
        let different = try Conflict(kind, theirs: "title", ours: "code", policy: .overwrite)
        try different.second.save()
        #expect(try different.stored() == ["T0", "ABC-2"])  // the first context's title is lost

        let same = try Conflict(kind, theirs: "title", ours: "title", policy: .overwrite)
        try same.second.save()
        #expect(try same.stored() == ["T2", "ABC-0"])
    }

    @Test(arguments: StoreKind.all)
    func rollbackDropsTheContextsChangesToConflictingObjects(kind: StoreKind) throws {
        let different = try Conflict(kind, theirs: "title", ours: "code", policy: .rollback)
        let other = different.second.makeSession("b")
        try different.second.save()
        #expect(try different.stored() == ["T1", "ABC-0"])
        #expect(different.inMemory() == ["T1", "ABC-0"])
        #expect(!other.objectID.isTemporaryID)  // the rest of the save went through

        let same = try Conflict(kind, theirs: "title", ours: "title", policy: .rollback)
        try same.second.save()
        #expect(try same.stored() == ["T1", "ABC-0"])
    }

    /// An object changed in one context and deleted in the store by another: the by-property store-trump policy
    /// lets it go, the object-trump policy inserts it again.
    @Test(arguments: StoreKind.all)
    func objectsDeletedInTheStoreFollowThePolicy(kind: StoreKind) throws {
        for policy in [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump] {
            let fixture = Fixture(kind)
            try fixture.addStore()
            let setup = fixture.context()
            setup.makeSession("a", title: "T0")
            try setup.save()
            let first = fixture.context(), second = fixture.context()
            second.mergePolicy = policy
            let mine = try second.all("Session")[0]
            _ = mine.value(forKey: "title")  // read before the other context deletes it
            first.delete(try first.all("Session")[0])
            try first.save()
            mine.setValue("T2", forKey: "title")
            try second.save()
            let left = try fixture.context().all("Session").compactMap { $0.value(forKey: "title") as? String }
            #expect(left == (policy == .mergeByPropertyStoreTrump ? [] : ["T2"]))
        }
    }
}
