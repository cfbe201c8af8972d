extension ObjectExpression {
    /// Parses an expression in `NSExpression`'s format: key paths, constants, `$variables`, arithmetic, functions
    /// (`sum:`, `now()`), and method calls `FUNCTION(receiver, "selector:", arguments…)` as mapping models write
    /// them (`FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "UserToUser",
    /// $source.friends)`).
    ///
    /// A `FUNCTION` call is kept as the function `FUNCTION` whose first argument is the receiver and second the
    /// selector: predicates cannot evaluate it, migrations can.
    /// - Throws: ``ObjectPredicateError`` for a syntax error, with its offset.
    public init(format: String, _ arguments: Any?...) throws {
        self = try Parser.parseExpression(format, arguments: arguments)
    }

    /// Parses an expression with its arguments passed as an array; see ``init(format:_:)``.
    public init(format: String, argumentArray: [Any?]) throws {
        self = try Parser.parseExpression(format, arguments: argumentArray)
    }

    /// For a method call `FUNCTION(receiver, "selector", arguments…)`: its parts; `nil` for any other expression.
    public var selectorCall: (receiver: ObjectExpression, selector: String, arguments: [ObjectExpression])? {
        guard case .function("FUNCTION", let parts) = self, parts.count >= 2,
            case .constant(.string(let selector)) = parts[1]
        else { return nil }
        return (parts[0], selector, Array(parts.dropFirst(2)))
    }

    /// A method call `FUNCTION(receiver, "selector", arguments…)`.
    public static func selectorCall(
        _ receiver: ObjectExpression, _ selector: String,
        _ arguments: [ObjectExpression]
    ) -> ObjectExpression {
        .function("FUNCTION", [receiver, .constant(.string(selector))] + arguments)
    }
}
