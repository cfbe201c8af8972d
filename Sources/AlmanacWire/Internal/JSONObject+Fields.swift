/// Field readers that throw `bad_request` naming the field. `null` counts as absent for optional fields.
extension JSONObject {
    private func typeError(_ key: String, expected: String, got value: JSONValue) -> WireError {
        .badRequest("field \"\(key)\" must be \(expected), not \(value.typeName)", field: key)
    }

    func requiredString(_ key: String) throws(WireError) -> String {
        guard let value = self[key], !value.isNull else { throw .badRequest("missing field \"\(key)\"", field: key) }
        guard let string = value.stringValue else { throw typeError(key, expected: "a string", got: value) }
        guard !string.isEmpty else { throw .badRequest("field \"\(key)\" must not be empty", field: key) }
        return string
    }

    func optionalString(_ key: String) throws(WireError) -> String? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw typeError(key, expected: "a string", got: value) }
        return string
    }

    func optionalBool(_ key: String) throws(WireError) -> Bool? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw typeError(key, expected: "true or false", got: value) }
        return bool
    }

    func optionalInt(_ key: String) throws(WireError) -> Int? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let int = value.intValue, let result = Int(exactly: int) else {
            throw typeError(key, expected: "an integer", got: value)
        }
        return result
    }

    func optionalCount(_ key: String) throws(WireError) -> Int? {
        guard let int = try optionalInt(key) else { return nil }
        guard int >= 0 else { throw .badRequest("field \"\(key)\" must not be negative", field: key) }
        return int
    }

    func requiredInt(_ key: String) throws(WireError) -> Int {
        guard let int = try optionalInt(key) else { throw .badRequest("missing field \"\(key)\"", field: key) }
        return int
    }

    func requiredDouble(_ key: String) throws(WireError) -> Double {
        guard let value = self[key], !value.isNull else { throw .badRequest("missing field \"\(key)\"", field: key) }
        guard let double = value.doubleValue else { throw typeError(key, expected: "a number", got: value) }
        return double
    }

    func requiredBool(_ key: String) throws(WireError) -> Bool {
        guard let bool = try optionalBool(key) else { throw .badRequest("missing field \"\(key)\"", field: key) }
        return bool
    }

    func optionalObject(_ key: String) throws(WireError) -> JSONObject? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let object = value.objectValue else { throw typeError(key, expected: "an object", got: value) }
        return object
    }

    func requiredObject(_ key: String) throws(WireError) -> JSONObject {
        guard let object = try optionalObject(key) else { throw .badRequest("missing field \"\(key)\"", field: key) }
        return object
    }

    func optionalArray(_ key: String) throws(WireError) -> [JSONValue]? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let array = value.arrayValue else { throw typeError(key, expected: "an array", got: value) }
        return array
    }

    func requiredArray(_ key: String) throws(WireError) -> [JSONValue] {
        guard let array = try optionalArray(key) else { throw .badRequest("missing field \"\(key)\"", field: key) }
        return array
    }

    func optionalStringArray(_ key: String) throws(WireError) -> [String]? {
        guard let array = try optionalArray(key) else { return nil }
        var strings: [String] = []
        for (position, element) in array.enumerated() {
            guard let string = element.stringValue else {
                throw .badRequest("\"\(key)\"[\(position)] must be a string, not \(element.typeName)", field: key)
            }
            strings.append(string)
        }
        return strings
    }

    func objects<T>(
        _ key: String,
        _ decode: (JSONObject) throws(WireError) -> T
    ) throws(WireError) -> [T] {
        var result: [T] = []
        for (position, element) in try requiredArray(key).enumerated() {
            guard let object = element.objectValue else {
                throw .badRequest("\"\(key)\"[\(position)] must be an object, not \(element.typeName)", field: key)
            }
            result.append(try decode(object))
        }
        return result
    }

    func optionalDate(_ key: String) throws(WireError) -> Date? {
        guard let string = try optionalString(key) else { return nil }
        guard let date = WireDate.date(from: string) else {
            throw .badRequest("field \"\(key)\" must be an ISO 8601 date with an offset", field: key)
        }
        return date
    }

    /// Sets `key` only when `value` is not nil.
    mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }
}

import struct Foundation.Date
