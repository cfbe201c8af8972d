import Foundation

extension ObjectExpression {
    /// Decodes an `NSExpression` archived by `NSKeyedArchiver` (a binary property list), as Xcode keeps the custom
    /// value expressions of mapping models (`valueexpressiondata`).
    ///
    /// Reads constant, key-path, variable, evaluated-object, aggregate and function expressions; a function whose
    /// selector the predicate language knows (`sum:`, `add:to:`) becomes that function, `valueForKeyPath:` a key
    /// path, and any other selector a method call `FUNCTION(receiver, "selector", …)`.
    /// - Throws: ``MigrationError/Code/invalidMappingFile`` when the data is not such an archive.
    public init(archivedData data: Data) throws {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw MigrationError(
                code: .invalidMappingFile,
                message: "An archived expression is not a keyed archive: \(error)", cause: error)
        }
        var decoder = ExpressionDecoder(archive: archive)
        self = try decoder.expression(archive.rootUID)
    }

    /// Decodes an `NSExpression` that is one object of a larger archive (a derived attribute's
    /// `NSDerivationExpression` in a compiled model), read as ``init(archivedData:)`` reads a whole archive.
    /// - Throws: ``MigrationError/Code/invalidMappingFile`` when the object is no expression this reader knows.
    package init(archivedObject uid: Int, in archive: KeyedArchive) throws {
        var decoder = ExpressionDecoder(archive: archive)
        self = try decoder.expression(uid)
    }
}

/// Turns archived `NSExpression` objects into expressions.
private struct ExpressionDecoder {
    let archive: KeyedArchive
    var depth = 0

    mutating func expression(_ uid: Int) throws -> ObjectExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth < 128, let object = archive.object(uid) else { throw invalid("a missing or nested too deep") }
        let className = object.className ?? ""
        switch className {
        case "NSConstantValueExpression":
            return .constant(try constant(archive.resolve(object.values["NSConstantValue"])))
        case "NSKeyPathExpression" where object.values["NSSelectorName"] != nil:
            return try function(object)  // a subclass of NSFunctionExpression: valueForKeyPath: on its operand
        case "NSKeyPathExpression", "NSKeyPathSpecifierExpression":
            if let path = archive.string(object, "NSKeyPath") { return .keyPath(path) }
            if let operand = archive.object(object, "NSOperand") { return try expression(operand.uid) }
            throw invalid(className)
        case "NSVariableExpression":
            guard let name = archive.string(object, "NSVariable") else { throw invalid(className) }
            return .variable(name)
        case "NSSelfExpression":
            return .evaluatedObject
        case "NSAggregateExpression":
            let collection = archive.object(object, "NSCollection")
            return .aggregate(try archive.elementUIDs(of: collection).map { try expression($0) })
        case "NSFunctionExpression":
            return try function(object)
        default:
            throw invalid(className.isEmpty ? "an object without class" : className)
        }
    }

    private mutating func function(_ object: KeyedArchive.Object) throws -> ObjectExpression {
        guard let selector = archive.string(object, "NSSelectorName") else { throw invalid("NSFunctionExpression") }
        let arguments = try archive.elementUIDs(of: archive.object(object, "NSArguments")).map { try expression($0) }
        let receiver = try archive.object(object, "NSOperand").map { try expression($0.uid) } ?? .evaluatedObject
        if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1,
            case .keyPath(let path) = arguments[0]
        {
            switch receiver {
            case .evaluatedObject: return .keyPath(path)
            case .keyPath(let base): return .keyPath(base + "." + path)
            case .member(let base, let prefix): return .member(of: base, keyPath: prefix + "." + path)
            default: return .member(of: receiver, keyPath: path)
            }
        }
        if case .constant = receiver, let known = Self.knownFunction(selector, arguments) { return known }
        return .selectorCall(receiver, selector, arguments)
    }

    private static func knownFunction(_ selector: String, _ arguments: [ObjectExpression]) -> ObjectExpression? {
        let arithmetic: [String: ObjectExpression.ArithmeticOperator] = [
            "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
            "modulus:by:": .modulus, "raise:toPower:": .power,
        ]
        if let op = arithmetic[selector], arguments.count == 2 { return .arithmetic(op, arguments[0], arguments[1]) }
        let functions = [
            "sum:": "sum", "average:": "average", "count:": "count", "min:": "min", "max:": "max",
            "lowercase:": "lowercase", "uppercase:": "uppercase", "canonical:": "canonical", "abs:": "abs",
            "sqrt:": "sqrt", "floor:": "floor", "ceiling:": "ceiling", "trunc:": "trunc", "now": "now",
        ]
        return functions[selector].map { .function($0, arguments) }
    }

    private func constant(_ value: PropertyListValue?) throws -> PredicateValue {
        switch value {
        case nil, .null?: return .null
        case .bool(let bool)?: return .bool(bool)
        case .integer(let int)?: return .integer(int)
        case .real(let real)?: return .double(real)
        case .string(let string)?: return .string(string)
        case .date(let date)?: return try PredicateValue(argument: date)
        case .data(let data)?: return try PredicateValue(argument: data)
        case .dictionary(let object)?:
            if let string = archive.string(value) { return .string(string) }
            if let seconds = archive.resolve(object["NS.time"]), case .real(let time) = seconds {
                return try PredicateValue(argument: Date(timeIntervalSinceReferenceDate: time))
            }
            if let bytes = archive.resolve(object["NS.bytes"]), case .data(let data) = bytes {
                return try PredicateValue(argument: data)
            }
            throw invalid("a constant of an unknown class")
        default:
            throw invalid("a constant of an unknown kind")
        }
    }

    private func invalid(_ what: String) -> MigrationError {
        MigrationError(
            code: .invalidMappingFile,
            message: "An archived expression holds \(what), which cannot be read as an expression.")
    }
}
