import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// Migration when a store is added: automatic (heavyweight, for atomic stores too) and staged.
struct AutomaticMigrationTests {
    static let fileKinds: [StoreKind] = {
        _ = StoreKind.all; return [.binary, .xml, .sqlite]
    }()

    @Test(arguments: fileKinds)
    func addingAStoreMigratesItWithAFoundMapping(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = folder.file("people.\(kind.fileExtension)")
        try PeopleModels.writeSource(type: kind.type, at: url)
        let v1 = PeopleModels.v1()
        let context = try PeopleModels.open(
            type: kind.type, at: url, model: PeopleModels.v2(),
            options: [
                .migratePersistentStoresAutomatically: true, .migrationSourceModels: [v1],
                .migrationMappingModels: [try PeopleModels.explicitMapping()],
            ])
        let people = try context.all("Person", sortedBy: "firstName")
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Mathison Turing", "Hopper"])
        #expect(people[0].objects(forKey: "animals").count == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { $0.contains("migrating") }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: fileKinds)
    func atomicAndSQLiteStoresMigrateWithAnInferredMapping(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = folder.file("people.\(kind.fileExtension)")
        try PeopleModels.writeSource(type: kind.type, at: url)
        let context = try PeopleModels.open(
            type: kind.type, at: url, model: PeopleModels.v1b(),
            options: [
                .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
                .migrationSourceModels: [PeopleModels.v1()],
            ])
        #expect(
            try context.all("Person", sortedBy: "fullName").map { $0.value(forKey: "town") as? String }
                == ["London", nil, nil])
    }

    @Test(arguments: fileKinds)
    func withoutAMappingTheStoreIsRefusedAndUnchanged(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = folder.file("people.\(kind.fileExtension)")
        try PeopleModels.writeSource(type: kind.type, at: url)
        let before = PeopleModels.snapshot(folder.url)
        #expect(throws: MigrationError(code: .missingMappingModel, message: "")) {
            try PeopleModels.open(
                type: kind.type, at: url, model: PeopleModels.v2(),
                options: [
                    .migratePersistentStoresAutomatically: true,
                    .migrationSourceModels: [PeopleModels.v1()],
                ])
        }
        // Inference fails too: v2's lastName is new, mandatory and has no default (the SQLite store's own
        // lightweight migration says so first).
        let inferring: PersistentStoreOptions = [
            .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
            .migrationSourceModels: [PeopleModels.v1()],
        ]
        if kind.type == .sqlite {
            #expect(throws: StoreError(code: .incompatibleModel, message: "")) {
                try PeopleModels.open(type: kind.type, at: url, model: PeopleModels.v2(), options: inferring)
            }
        } else {
            #expect(throws: MigrationError(code: .invalidMappingModel, message: "")) {
                try PeopleModels.open(type: kind.type, at: url, model: PeopleModels.v2(), options: inferring)
            }
        }
        #expect(throws: MigrationError(code: .missingSourceModel, message: "")) {
            try PeopleModels.open(
                type: kind.type, at: url, model: PeopleModels.v2(),
                options: [
                    .migratePersistentStoresAutomatically: true,
                    .migrationSourceModels: [PeopleModels.v1b()],
                ])
        }
        #expect(throws: StoreError(code: .incompatibleModel, message: "")) {
            try PeopleModels.open(type: kind.type, at: url, model: PeopleModels.v2())
        }
        #expect(PeopleModels.unchanged(folder.url, since: before))
        #expect(
            try PeopleModels.open(type: kind.type, at: url, model: PeopleModels.v1())
                .count(for: FetchRequest(entityName: "Person")) == 3)
    }

    /// v1 → v1b (lightweight) → v3 (custom: first and last names added, filled from fullName after the step)
    /// → v2 without the old attributes is not inferable, so the chain ends at v3.
    @Test(arguments: fileKinds)
    func aStagedMigrationWalksTheChainAndRunsItsHandlers(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = folder.file("people.\(kind.fileExtension)")
        try PeopleModels.writeSource(type: kind.type, at: url)
        let v1 = PeopleModels.v1()
        let v1b = PeopleModels.v1b()
        let v3 = PeopleModels.v3()
        let counts = LockedCounts()
        let staged = StagedMigrationManager([
            .lightweight([v1, v1b]),
            .custom(
                from: v1b, to: v3,
                willMigrate: { context in
                    counts.add("will", try context.count(for: FetchRequest(entityName: "Person")))
                },
                didMigrate: { context in
                    for person in try context.all("Person") {
                        let words = (person.value(forKey: "fullName") as? String ?? "")
                            .split(separator: " ", maxSplits: 1)
                        person.setValue(words.first.map(String.init), forKey: "firstName")
                        person.setValue(words.dropFirst().first.map(String.init), forKey: "lastName")
                    }
                    counts.add("did", 1)
                }),
        ])
        let context = try PeopleModels.open(
            type: kind.type, at: url, model: PeopleModels.v3(),
            options: [.stagedMigrationManager: staged])
        let people = try context.all("Person", sortedBy: "fullName")
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Mathison Turing", "Hopper"])
        #expect(people.map { $0.value(forKey: "town") as? String } == ["London", nil, nil])
        #expect(counts.values == ["will": 3, "did": 1])

        // A store already at the last version opens without running anything again.
        _ = try PeopleModels.open(
            type: kind.type, at: url, model: PeopleModels.v3(),
            options: [.stagedMigrationManager: staged])
        #expect(counts.values == ["will": 3, "did": 1])
    }

    @Test func aStagedMigrationThatDoesNotEndAtTheModelIsRefused() throws {
        _ = StoreKind.all
        let folder = TemporaryFolder()
        let url = folder.file("people.xml")
        try PeopleModels.writeSource(type: .xml, at: url)
        let before = PeopleModels.snapshot(folder.url)
        let staged = StagedMigrationManager([.lightweight([PeopleModels.v1(), PeopleModels.v1b()])])
        #expect(throws: MigrationError(code: .invalidMappingModel, message: "")) {
            try PeopleModels.open(
                type: .xml, at: url, model: PeopleModels.v3(),
                options: [.stagedMigrationManager: staged])
        }
        #expect(PeopleModels.snapshot(folder.url) == before)
    }
}

/// Counts from migration handlers, which are `@Sendable`.
final class LockedCounts: Sendable {
    private let counts = LockedValue<[String: Int]>([:])

    func add(_ key: String, _ value: Int) {
        counts.withLock { $0[key, default: 0] += value }
    }

    var values: [String: Int] { counts.withLock { $0 } }
}

extension PeopleModels {
    /// Version 1b with optional `firstName` and `lastName` beside `fullName`.
    static func v3() -> ManagedObjectModel {
        let model = v1b()
        let person = model.entitiesByName["Person"]!
        person.properties += [
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string),
        ]
        return model
    }
}
