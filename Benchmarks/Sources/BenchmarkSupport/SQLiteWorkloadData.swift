import Foundation
import ObjectGraph

/// The model and rows of the SQLite workloads, shared by SQLiteBench (against the raw C API) and the GRDB
/// workloads, so both measure the same data: `Item` (8 attributes, the insert workloads) and `Row` (10 attributes
/// with an indexed `rank`, the fetch and limit-50 workloads). Values are functions of the row's index.
public enum SQLiteWorkloadData {
    public static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "i1", type: .integer64), AttributeDescription(name: "i2", type: .integer32),
            AttributeDescription(name: "d1", type: .double), AttributeDescription(name: "d2", type: .double),
            AttributeDescription(name: "s1", type: .string), AttributeDescription(name: "s2", type: .string),
            AttributeDescription(name: "date", type: .date), AttributeDescription(name: "flag", type: .boolean),
        ])
        let rank = AttributeDescription(name: "rank", type: .integer64)
        rank.isIndexed = true
        let row = EntityDescription(name: "Row", properties: [
            rank, AttributeDescription(name: "a", type: .integer64), AttributeDescription(name: "b", type: .integer32),
            AttributeDescription(name: "x", type: .double), AttributeDescription(name: "y", type: .double),
            AttributeDescription(name: "s", type: .string), AttributeDescription(name: "t", type: .string),
            AttributeDescription(name: "u", type: .string), AttributeDescription(name: "when", type: .date),
            AttributeDescription(name: "flag", type: .boolean),
        ])
        return ManagedObjectModel(entities: [item, row])
    }

    /// The values of the `n`th inserted `Item`.
    public static func itemValues(_ n: Int) -> [String: any Sendable] {
        ["i1": n, "i2": n % 1000, "d1": Double(n) * 0.5, "d2": Double(n) / 3, "s1": "name \(n)",
         "s2": "city \(n % 97)", "date": Date(timeIntervalSinceReferenceDate: Double(n)), "flag": n % 2 == 0]
    }

    /// Sets the values of the `n`th inserted `Item` in a dictionary, as a batch insert's dictionary handler fills
    /// the dictionary it is handed (the same values as `itemValues(_:)`).
    public static func fillItemValues(_ n: Int, into values: inout [String: any Sendable]) {
        values["i1"] = n
        values["i2"] = n % 1000
        values["d1"] = Double(n) * 0.5
        values["d2"] = Double(n) / 3
        values["s1"] = "name \(n)"
        values["s2"] = "city \(n % 97)"
        values["date"] = Date(timeIntervalSinceReferenceDate: Double(n))
        values["flag"] = n % 2 == 0
    }

    /// Sets the values of the `n`th inserted `Item` on a managed object, as a batch insert's managed object handler
    /// sets them on the object it is handed (the same values as `itemValues(_:)`).
    public static func setItemValues(_ n: Int, on object: ManagedObject) {
        object.setValue(n, forKey: "i1")
        object.setValue(n % 1000, forKey: "i2")
        object.setValue(Double(n) * 0.5, forKey: "d1")
        object.setValue(Double(n) / 3, forKey: "d2")
        object.setValue("name \(n)", forKey: "s1")
        object.setValue("city \(n % 97)", forKey: "s2")
        object.setValue(Date(timeIntervalSinceReferenceDate: Double(n)), forKey: "date")
        object.setValue(n % 2 == 0, forKey: "flag")
    }

    /// The `rank` of row `index` of `count`: a permutation of 0..<count when 7919 (a prime) does not divide
    /// `count`, so the rows' order by rank differs from their insertion order.
    public static func rank(_ index: Int, count: Int) -> Int { (index * 7919) % count }

    /// Deletes a database file with its WAL, shared-memory and journal files.
    public static func removeDatabase(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// The values of row `index` of `count`.
    public static func rowValues(_ index: Int, count: Int) -> [String: any Sendable] {
        ["rank": rank(index, count: count), "a": index, "b": index % 5000, "x": Double(index) * 1.25,
         "y": -Double(index), "s": "string \(index)", "t": "label \(index % 31)", "u": "u\(index)",
         "when": Date(timeIntervalSinceReferenceDate: Double(index) * 60), "flag": index % 3 == 0]
    }
}
