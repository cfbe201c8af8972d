import Foundation
import ObjectGraph
import ObjectGraphPostgres
import Testing

@testable import ObjectGraphTestSupport

/// Every people row of the predicate corpus against the same graph in an in-memory store and in a PostgreSQL
/// store: the matches (or the failure), and the counts, must be the same, whether the store compiled the
/// predicate to SQL or evaluated it in memory.
@Suite("Differential predicate corpus over PostgreSQL", needsPostgres)
struct PostgresDifferentialCorpusTests {
    enum Outcome: Equatable {
        case names(Set<String>)
        case failure
    }

    static func fetchNames(_ predicate: ObjectPredicate, in coordinator: PersistentStoreCoordinator) -> Outcome {
        let request = FetchRequest(entityName: "Person")
        request.predicate = predicate
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            return .names(Set(try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }))
        } catch {
            return .failure
        }
    }

    @Test func wholeCorpusMatchesTheInMemoryStore() throws {
        let folder = TemporaryFolder()
        let memory = try PeopleModel.populatedCoordinator(type: .inMemory, url: nil)
        let postgres = try PeopleModel.populatedCoordinator(
            type: .postgres, url: StoreKind.postgres.url("people", in: folder))
        var rows = 0
        var mismatches: [String] = []
        for row in PredicateCorpus.all {
            guard case .people = row.target else { continue }
            if case .parseError = row.expectation { continue }
            var predicate = try ObjectPredicate(format: row.format, argumentArray: row.argumentArray)
            if !row.variables.isEmpty {
                guard let substituted = try? predicate.withSubstitutionVariables(row.variableDictionary) else {
                    continue
                }
                predicate = substituted
            }
            rows += 1
            let expected = Self.fetchNames(predicate, in: memory)
            let actual = Self.fetchNames(predicate, in: postgres)
            if expected != actual { mismatches.append("\(row.format): memory \(expected), postgres \(actual)") }
            let request = FetchRequest(entityName: "Person")
            request.predicate = predicate
            let count = try? ManagedObjectContext(coordinator: postgres).count(for: request)
            if case .names(let names) = expected, count != names.count {
                mismatches.append("count of \(row.format): \(String(describing: count)) vs \(names.count)")
            }
        }
        #expect(rows > 100)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// Sorts, nil values included (Core Data puts them first ascending), agree with the in-memory store, with and
    /// without a limit.
    @Test(arguments: [
        [SortKey("name")], [SortKey("name", ascending: false)], [SortKey("nickname")],
        [SortKey("nickname", ascending: false)], [SortKey("name", comparison: .caseInsensitive)],
        [SortKey("room", comparison: .localizedStandard)], [SortKey("address.city"), SortKey("age", ascending: false)],
        [SortKey("pets.@count"), SortKey("score")], [SortKey("birthday"), SortKey("isActive")],
    ])
    func sortedFetchesMatchTheInMemoryStore(keys: [SortKey]) throws {
        let folder = TemporaryFolder()
        let memory = try PeopleModel.populatedCoordinator(type: .inMemory, url: nil)
        let postgres = try PeopleModel.populatedCoordinator(
            type: .postgres, url: StoreKind.postgres.url("people", in: folder))
        for limit in [0, 2] {
            let request = FetchRequest(entityName: "Person")
            request.sortKeys = keys
            request.fetchLimit = limit
            let expected = try ManagedObjectContext(coordinator: memory).fetch(request)
                .map { $0.value(forKey: "name") as? String }
            let actual = try ManagedObjectContext(coordinator: postgres).fetch(request)
                .map { $0.value(forKey: "name") as? String }
            #expect(expected == actual)
        }
    }
}
