import AlmanacWire
import Foundation
import ObjectGraph
import ObjectGraphPostgres

extension WireError {
    /// The wire error for an error of the framework: codes map to the protocol's, messages are kept.
    static func from(_ error: any Error) -> WireError {
        switch error {
        case let error as WireError:
            return error
        case let error as ObjectPredicateError:
            if error.code == .unboundVariable {
                var details: JSONObject = [:]
                if let name = error.variableName { details["variable"] = .string(name) }
                return WireError(code: .missingVariable, message: error.message, details: details)
            }
            if error.code == .unknownKey || error.code == .toManyKeyPathWithoutAggregate || error.code == .typeMismatch {
                return WireError(code: .badRequest, message: error.message)
            }
            return .parseError(error.message, offset: error.offset ?? 0)
        case let error as ModelError:
            switch error.code {
            case .unknownEntity: return WireError(code: .unknownEntity, message: error.message)
            case .unknownTemplate: return WireError(code: .unknownTemplate, message: error.message)
            case .missingVariable:
                return WireError(code: .missingVariable, message: error.message,
                                 details: ["variables": .array(error.variableNames.map { .string($0) })])
            default: return WireError(code: .badRequest, message: error.message)
            }
        case let error as ValidationError:
            let problems = error.allErrors.map { problem -> JSONValue in
                var object: JSONObject = ["code": .string(problem.code.description),
                                          "message": .string(problem.message)]
                if let key = problem.context.key { object["key"] = .string(key) }
                return .object(object)
            }
            return WireError(code: .badRequest, message: error.message, details: ["validation": .array(problems)])
        case let error as StoreError:
            switch error.code {
            case .readOnlyStore: return WireError(code: .notWritable, message: error.message)
            case .ambiguousStore: return .ambiguousStore(error.message, candidates: error.candidates)
            case .objectNotFound, .storeNotFound, .invalidURI, .invalidObjectID:
                return WireError(code: .notFound, message: error.message)
            case .noStoreForEntity, .entityNotInConfiguration:
                return WireError(code: .notWritable, message: error.message)
            case .mergeConflict: return WireError(code: .busy, message: error.message)
            case .storageFull, .io:
                return storageError(error)
            case .invalidFetchRequest: return WireError(code: .badRequest, message: error.message)
            case .persistentHistoryTokenExpired: return WireError(code: .historyExpired, message: error.message)
            case .unavailable:
                var details: JSONObject = [:]
                if let store = error.context.storeURL.flatMap(PostgresStoreLocation.init(url:)) {
                    details["store"] = .string(store.displayString)
                }
                return WireError(code: .unavailable, message: error.message, details: details, cause: error)
            case .constraintConflict:
                let conflicts = error.constraintConflicts.map { conflict -> JSONValue in
                    .object(["entity": .string(conflict.entityName),
                             "keys": .array(conflict.constraint.map { .string($0) }),
                             "values": .array(conflict.values.map { .string($0) })])
                }
                // The framework's advice (merge policies) is not the client's to follow: say what collides.
                let what = error.constraintConflicts.prefix(3).map { conflict in
                    "'\(conflict.entityName)' with " + zip(conflict.constraint, conflict.values)
                        .map { "\($0) = \($1)" }.joined(separator: ", ")
                }.joined(separator: "; ")
                return WireError(code: .badRequest,
                                 message: "An object like this exists already (one per unique values): \(what).",
                                 details: ["conflicts": .array(conflicts)])
            default: return WireError(code: .internal, message: error.message)
            }
        default:
            return WireError(code: .internal, message: "\(error)")
        }
    }

    /// `storage_full` or `io_error` for a store whose file could not be read or written, naming the file.
    private static func storageError(_ error: StoreError) -> WireError {
        var details: JSONObject = [:]
        let file = error.context.storeURL?.path
        if let file { details["store"] = .string(file) }
        let store = file.map { " (\($0))" } ?? ""
        if error.code == .storageFull {
            return WireError(
                code: .storageFull,
                message: "The disk holding the store\(store) is full: nothing was written, and the store is as it "
                    + "was. Free space on it and try again; reads go on meanwhile.",
                details: details, cause: error)
        }
        return WireError(
            code: .ioError,
            message: "Reading or writing the store\(store) failed in the operating system; nothing was changed. "
                + "Detail: \(error.message)",
            details: details, cause: error)
    }
}
