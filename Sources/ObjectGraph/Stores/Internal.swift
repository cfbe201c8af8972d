import Foundation

/// The error for a key that an object's entity lacks, as predicate evaluation expects it.
func unknownKeyError(_ key: String, entityName: String) -> any Error {
    ObjectPredicateError.unknownKey(key, in: entityName)
}
