import Foundation

/// One object of a fetched results controller with what orders it, as read when the object was last placed: its
/// rows stay sorted by these values, so an object is found again by binary search even after its values changed.
final class ResultRow<Result: ManagedObject> {
    let object: Result
    /// The sort keys' values, prepared.
    var values: [SortValue]
    /// The section the object is in ("" without a section key path).
    var sectionName: String
    /// The position of the object's store among the coordinator's stores (`Int.max` for a new object), the first
    /// tie-breaker after the sort keys, as in fetches.
    var storeIndex: Int
    /// The object's ID when placed: the last tie-breaker (temporary IDs after permanent ones).
    var objectID: ManagedObjectID

    init(object: Result, values: [SortValue], sectionName: String, storeIndex: Int, objectID: ManagedObjectID) {
        self.object = object
        self.values = values
        self.sectionName = sectionName
        self.storeIndex = storeIndex
        self.objectID = objectID
    }

    /// Whether this row's place differs from a row made now for the same object (`other`).
    func hasSamePlace(as other: ResultRow) -> Bool {
        storeIndex == other.storeIndex && objectID == other.objectID && sectionName == other.sectionName
            && values.elementsEqual(other.values) { $0.compare(to: $1) == .orderedSame }
    }
}

/// The order of rows: the sort keys, then store order, saved objects before new ones, then object IDs (the order
/// of ``ManagedObjectContext/fetch(_:)-(FetchRequest)``), so it is total and every row has one place.
struct ResultOrder {
    let keys: [SortKey]

    func precedes<Result>(_ lhs: ResultRow<Result>, _ rhs: ResultRow<Result>) -> Bool {
        for (index, key) in keys.enumerated() {
            let order = lhs.values[index].compare(to: rhs.values[index])
            if order != .orderedSame { return key.ascending == (order == .orderedAscending) }
        }
        if lhs.storeIndex != rhs.storeIndex { return lhs.storeIndex < rhs.storeIndex }
        if lhs.objectID.isTemporaryID != rhs.objectID.isTemporaryID { return !lhs.objectID.isTemporaryID }
        return lhs.objectID < rhs.objectID
    }

    /// The first position in `rows` whose row does not precede `row`.
    func insertionIndex<Result>(of row: ResultRow<Result>, in rows: ContiguousArray<ResultRow<Result>>) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(rows[middle], row) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position of `row` in `rows` (which hold it, sorted).
    func index<Result>(of row: ResultRow<Result>, in rows: ContiguousArray<ResultRow<Result>>) -> Int? {
        let index = insertionIndex(of: row, in: rows)
        if index < rows.count, rows[index] === row { return index }
        // Not where its values put it (the order was not total for it): look for it.
        return rows.firstIndex { $0 === row }
    }
}
