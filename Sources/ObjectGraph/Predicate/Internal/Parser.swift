/// A recursive-descent parser for the predicate format language.
///
/// Predicates and expressions share one precedence ladder (OR < AND < NOT < comparison < additive
/// < multiplicative < unary minus < power < postfix < primary), so a parenthesis can hold either and
/// no backtracking is needed. Recursion and tree height are both bounded by
/// ``ObjectPredicate/maximumNestingDepth``.
struct Parser {
    /// A parse result: a predicate or an expression, with the height of its tree.
    struct Parsed {
        enum Kind {
            case predicate(ObjectPredicate.Node)
            case expression(ObjectExpression)
        }

        var kind: Kind
        var height: Int

        static func predicate(_ node: ObjectPredicate.Node, _ height: Int) -> Parsed {
            Parsed(kind: .predicate(node), height: height)
        }

        static func expression(_ expression: ObjectExpression, _ height: Int) -> Parsed {
            Parsed(kind: .expression(expression), height: height)
        }
    }

    var lexer: Lexer
    var token: Token
    var depth = 0
    /// Whether `FUNCTION(receiver, "selector", …)` parses: in standalone expressions (mapping models), not in
    /// predicates, which could not evaluate it.
    var allowsSelectorCalls = false
    let inputLength: Int

    private init(bytes: [UInt8], arguments: [Any?]) throws {
        lexer = Lexer(bytes: bytes, arguments: arguments)
        inputLength = bytes.count
        token = try lexer.next()
    }

    /// Parses a whole predicate.
    /// - Throws: ``ObjectPredicateError`` with offset, line and column filled in for syntax errors.
    static func parsePredicate(_ format: String, arguments: [Any?]) throws -> ObjectPredicate.Node {
        let bytes = Array(format.utf8)
        do {
            guard bytes.count <= ObjectPredicate.maximumFormatLength else {
                throw ObjectPredicateError(
                    .inputTooLong,
                    "format is \(bytes.count) bytes; the limit is \(ObjectPredicate.maximumFormatLength)",
                    offset: ObjectPredicate.maximumFormatLength)
            }
            var parser = try Parser(bytes: bytes, arguments: arguments)
            let result = try parser.parseOr()
            let node = try parser.requirePredicate(result)
            guard case .end = parser.token.kind else {
                throw parser.unexpected(expected: "AND, OR or end of input")
            }
            guard parser.lexer.usedAllArguments else {
                throw ObjectPredicateError(
                    .extraArgument, "more arguments were passed than the format has specifiers",
                    offset: bytes.count)
            }
            return node
        } catch let error as ObjectPredicateError {
            throw error.locating(in: bytes)
        }
    }

    /// Parses a whole expression (NSExpression's format: `$source.name`, `FUNCTION($manager, "sel:", arg)`).
    /// - Throws: ``ObjectPredicateError`` as ``parsePredicate(_:arguments:)`` does.
    static func parseExpression(_ format: String, arguments: [Any?]) throws -> ObjectExpression {
        let bytes = Array(format.utf8)
        do {
            guard bytes.count <= ObjectPredicate.maximumFormatLength else {
                throw ObjectPredicateError(
                    .inputTooLong,
                    "format is \(bytes.count) bytes; the limit is \(ObjectPredicate.maximumFormatLength)",
                    offset: ObjectPredicate.maximumFormatLength)
            }
            var parser = try Parser(bytes: bytes, arguments: arguments)
            parser.allowsSelectorCalls = true
            let result = try parser.parseAdditive()
            let expression = try parser.requireExpression(result, at: 0)
            guard case .end = parser.token.kind else { throw parser.unexpected(expected: "end of input") }
            guard parser.lexer.usedAllArguments else {
                throw ObjectPredicateError(
                    .extraArgument, "more arguments were passed than the format has specifiers",
                    offset: bytes.count)
            }
            return expression
        } catch let error as ObjectPredicateError {
            throw error.locating(in: bytes)
        }
    }

    // MARK: - Helpers

    mutating func advance() throws { token = try lexer.next() }

    /// Guards recursion; call ``leave()`` on the way out.
    mutating func enter() throws {
        depth += 1
        guard depth <= ObjectPredicate.maximumNestingDepth else {
            throw ObjectPredicateError(
                .nestingTooDeep, "nesting deeper than \(ObjectPredicate.maximumNestingDepth) levels",
                offset: token.offset)
        }
    }

    mutating func leave() { depth -= 1 }

    func checkHeight(_ height: Int) throws -> Int {
        guard height <= ObjectPredicate.maximumNestingDepth else {
            throw ObjectPredicateError(
                .nestingTooDeep, "expression tree deeper than \(ObjectPredicate.maximumNestingDepth) levels",
                offset: token.offset)
        }
        return height
    }

    func unexpected(expected: String) -> ObjectPredicateError {
        ObjectPredicateError(
            .unexpectedToken, "unexpected \(Self.describe(token.kind))", offset: token.offset, expected: expected)
    }

    static func describe(_ kind: Token.Kind) -> String {
        switch kind {
        case .identifier(let name): "key '\(name)'"
        case .escapedIdentifier(let name): "key '#\(name)'"
        case .keyword(let keyword): "'\(keyword.rawValue)'"
        case .string: "string literal"
        case .integer, .double: "number"
        case .variable(let name): "variable '$\(name)'"
        case .collectionOperator(let name): "'\(name)'"
        case .argumentValue: "argument value"
        case .argumentKeyPath: "%K key path"
        case .symbol(let symbol): "'\(symbol.rawValue)'"
        case .end: "end of input"
        }
    }

    @inline(__always)
    func isSymbol(_ symbol: Symbol) -> Bool { token.symbol == symbol }

    @inline(__always)
    func isKeyword(_ keyword: Keyword) -> Bool { token.keyword == keyword }

    mutating func expect(_ symbol: Symbol) throws {
        guard isSymbol(symbol) else { throw unexpected(expected: "'\(symbol.rawValue)'") }
        try advance()
    }

    func requirePredicate(_ parsed: Parsed) throws -> ObjectPredicate.Node {
        switch parsed.kind {
        case .predicate(let node): return node
        case .expression: throw unexpected(expected: "a comparison operator")
        }
    }

    func requireExpression(_ parsed: Parsed, at offset: Int) throws -> ObjectExpression {
        switch parsed.kind {
        case .expression(let expression): return expression
        case .predicate:
            throw ObjectPredicateError(
                .syntaxError, "a predicate cannot be used as a value here", offset: offset, expected: "an expression")
        }
    }

    // MARK: - Predicates

    mutating func parseOr() throws -> Parsed {
        let first = try parseAnd()
        guard isKeyword(.or) || isSymbol(.pipes) else { return first }
        var operands = [try requirePredicate(first)]
        var height = first.height
        while isKeyword(.or) || isSymbol(.pipes) {
            try advance()
            let next = try parseAnd()
            operands.append(try requirePredicate(next))
            height = max(height, next.height)
        }
        return .predicate(.or(operands), try checkHeight(height + 1))
    }

    mutating func parseAnd() throws -> Parsed {
        let first = try parseNot()
        guard isKeyword(.and) || isSymbol(.ampersands) else { return first }
        var operands = [try requirePredicate(first)]
        var height = first.height
        while isKeyword(.and) || isSymbol(.ampersands) {
            try advance()
            let next = try parseNot()
            operands.append(try requirePredicate(next))
            height = max(height, next.height)
        }
        return .predicate(.and(operands), try checkHeight(height + 1))
    }

    mutating func parseNot() throws -> Parsed {
        guard isKeyword(.not) || isSymbol(.bang) else { return try parseComparison() }
        try enter()
        defer { leave() }
        try advance()
        let operand = try parseNot()
        return .predicate(.not(try requirePredicate(operand)), try checkHeight(operand.height + 1))
    }

    mutating func parseComparison() throws -> Parsed {
        var modifier = ComparisonModifier.direct
        let start = token.offset
        if let keyword = token.keyword {
            switch keyword {
            case .any, .some: modifier = .any
            case .all: modifier = .all
            case .none: modifier = .noneOf
            default: break
            }
            if modifier != .direct { try advance() }
        }
        let left = try parseAdditive()
        guard let op = comparisonOperator() else {
            if modifier != .direct { throw unexpected(expected: "a comparison operator after ANY, ALL or NONE") }
            return left
        }
        let lhs = try requireExpression(left, at: start)
        try advance()
        let options = try parseOptions()
        let rightStart = token.offset
        let right = try parseAdditive()
        let rhs = try requireExpression(right, at: rightStart)
        if op == .matches, case .constant(.string(let pattern)) = rhs {
            do {
                _ = try RegexCache.regex(for: pattern, caseInsensitive: options.contains(.caseInsensitive))
            } catch var error as ObjectPredicateError {
                error.offset = rightStart
                throw error
            }
        }
        let node = ObjectPredicate.Node.comparison(
            left: lhs, operator: op, right: rhs, modifier: modifier, options: options)
        return .predicate(node, try checkHeight(max(left.height, right.height) + 1))
    }

    private func comparisonOperator() -> ComparisonOperator? {
        if let symbol = token.symbol {
            switch symbol {
            case .equal: return .equalTo
            case .notEqual: return .notEqualTo
            case .less: return .lessThan
            case .lessOrEqual: return .lessThanOrEqualTo
            case .greater: return .greaterThan
            case .greaterOrEqual: return .greaterThanOrEqualTo
            default: return nil
            }
        }
        if let keyword = token.keyword {
            switch keyword {
            case .like: return .like
            case .matches: return .matches
            case .contains: return .contains
            case .beginsWith: return .beginsWith
            case .endsWith: return .endsWith
            case .in: return .in
            case .between: return .between
            default: return nil
            }
        }
        return nil
    }

    private mutating func parseOptions() throws -> ComparisonOptions {
        guard isSymbol(.leftBracket) else { return [] }
        try advance()
        guard case .identifier(let letters) = token.kind else {
            throw unexpected(expected: "comparison options such as c, d, cd or n")
        }
        var options: ComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default:
                throw ObjectPredicateError(
                    .syntaxError, "unknown comparison option '\(letter)'", offset: token.offset,
                    expected: "c, d or n")
            }
        }
        try advance()
        try expect(.rightBracket)
        return options
    }
}
