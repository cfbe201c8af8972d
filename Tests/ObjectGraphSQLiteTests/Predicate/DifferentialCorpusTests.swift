import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Runs every people row of the predicate corpus against the same graph in an in-memory store and in an SQLite
/// store: the matches (or the failure) must be the same, whether the SQLite store compiled the predicate to SQL
/// or evaluated it in memory.
@Suite("Differential predicate corpus")
struct DifferentialCorpusTests {
    enum Outcome: Equatable {
        case names(Set<String>)
        case failure
    }

    static func fetchNames(_ predicate: ObjectPredicate, in coordinator: PersistentStoreCoordinator,
                           sortedBy keys: [SortKey] = []) -> Outcome {
        let request = FetchRequest(entityName: "Person")
        request.predicate = predicate
        request.sortKeys = keys
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
        let sqlite = try PeopleModel.populatedCoordinator(type: .sqlite, url: folder.file("people.sqlite"))
        let store = try #require(sqlite.persistentStores.first as? SQLiteStore)
        var compiled = 0
        var fellBack = 0
        var erroring = 0
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
            let expected = Self.fetchNames(predicate, in: memory)
            let actual = Self.fetchNames(predicate, in: sqlite)
            let entity = sqlite.managedObjectModel.entitiesByName["Person"]!
            if store.translatesToSQL(predicate, entity: entity) { compiled += 1 } else { fellBack += 1 }
            if expected == .failure { erroring += 1 }
            if expected != actual { mismatches.append("\(row.format): memory \(expected), sqlite \(actual)") }
            let count = try? ManagedObjectContext(coordinator: sqlite).count(for: {
                let request = FetchRequest(entityName: "Person")
                request.predicate = predicate
                return request
            }())
            if case .names(let names) = expected, count != names.count {
                mismatches.append("count of \(row.format): \(String(describing: count)) vs \(names.count)")
            }
        }
        print("Differential corpus: \(compiled + fellBack) rows, \(compiled) compiled fully to SQL, "
            + "\(fellBack) evaluated in memory (\(erroring) of the rows fail in both stores)")
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(compiled > fellBack)
    }

    /// The in-memory store tests whole scans by column (`key OP constant` predicates); every such row of the corpus
    /// must match what evaluating the predicate on each object gives.
    @Test func columnTestsOfTheInMemoryStoreMatchEvaluatingEachObject() throws {
        let memory = try PeopleModel.populatedCoordinator(type: .inMemory, url: nil)
        let context = ManagedObjectContext(coordinator: memory)
        let everyone = try context.fetch(FetchRequest(entityName: "Person"))
        var byColumn = 0
        var mismatches: [String] = []
        for row in PredicateCorpus.all {
            guard case .people = row.target else { continue }
            if case .parseError = row.expectation { continue }
            guard row.variables.isEmpty else { continue }
            let predicate = try ObjectPredicate(format: row.format, argumentArray: row.argumentArray)
            if predicate.rowKeys != nil { byColumn += 1 }
            let fetched = Self.fetchNames(predicate, in: memory)
            let evaluated: Outcome
            do {
                evaluated = .names(Set(try everyone.filter { try predicate.evaluate(with: $0) }.map {
                    $0.value(forKey: "name") as? String ?? "?"
                }))
            } catch {
                evaluated = .failure
            }
            if fetched != evaluated { mismatches.append("\(row.format): fetched \(fetched), evaluated \(evaluated)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(byColumn > 50, "only \(byColumn) rows are tested by column")
        withExtendedLifetime(context) {}
    }

    @Test(arguments: [
        [SortKey("name")], [SortKey("name", ascending: false)], [SortKey("nickname")],
        [SortKey("name", comparison: .caseInsensitive)], [SortKey("room", comparison: .localizedStandard)],
        [SortKey("address.city"), SortKey("age", ascending: false)], [SortKey("pets.@count"), SortKey("score")],
        [SortKey("birthday"), SortKey("isActive")],
    ])
    func sortedFetchesMatchTheInMemoryStore(keys: [SortKey]) throws {
        let folder = TemporaryFolder()
        let memory = try PeopleModel.populatedCoordinator(type: .inMemory, url: nil)
        let sqlite = try PeopleModel.populatedCoordinator(type: .sqlite, url: folder.file("people.sqlite"))
        for limit in [0, 2] {
            let request = FetchRequest(entityName: "Person")
            request.sortKeys = keys
            request.fetchLimit = limit
            let expected = try ManagedObjectContext(coordinator: memory).fetch(request).map { $0.value(forKey: "name") as? String }
            let actual = try ManagedObjectContext(coordinator: sqlite).fetch(request).map { $0.value(forKey: "name") as? String }
            #expect(expected == actual)
        }
    }
}
