import Foundation

extension Parser {
    mutating func parseAdditive() throws -> Parsed {
        try parseBinary(
            operators: { symbol in
                switch symbol {
                case .plus: .add
                case .minus: .subtract
                default: nil
                }
            }, operand: { try $0.parseMultiplicative() })
    }

    mutating func parseMultiplicative() throws -> Parsed {
        try parseBinary(
            operators: { symbol in
                switch symbol {
                case .star: .multiply
                case .slash: .divide
                case .modulus: .modulus
                default: nil
                }
            }, operand: { try $0.parseUnary() })
    }

    /// A left-associative chain of binary operators.
    private mutating func parseBinary(
        operators: (Symbol) -> ObjectExpression.ArithmeticOperator?, operand: (inout Parser) throws -> Parsed
    ) throws -> Parsed {
        let start = token.offset
        var result = try operand(&self)
        while let symbol = token.symbol, let op = operators(symbol) {
            let lhs = try requireExpression(result, at: start)
            try advance()
            let rightStart = token.offset
            let right = try operand(&self)
            let rhs = try requireExpression(right, at: rightStart)
            result = .expression(.arithmetic(op, lhs, rhs), try checkHeight(max(result.height, right.height) + 1))
        }
        return result
    }

    mutating func parseUnary() throws -> Parsed {
        guard isSymbol(.minus) else { return try parsePower() }
        try advance()
        // `-(` is one nesting level: the parenthesis counts it. The canonical form writes a negated operand that is
        // not an atom as `-(…)`, so counting both would make it nest twice as deep as `--…-x` or `-2 ** -2 ** …`.
        let entersLevel = !isSymbol(.leftParen)
        if entersLevel { try enter() }
        defer { if entersLevel { leave() } }
        // `-5` is a literal, unless `**` follows (then `-5 ** 2` is `-(5 ** 2)`).
        var lookahead = lexer
        let following = try? lookahead.next()
        let powerFollows = following.map { $0.kind == .symbol(.power) } ?? false
        if !powerFollows {
            switch token.kind {
            case .integer(let magnitude):
                try advance()
                if magnitude <= UInt64(Int64.max) { return .expression(.constant(.integer(-Int64(magnitude))), 1) }
                if magnitude == UInt64(Int64.max) + 1 { return .expression(.constant(.integer(.min)), 1) }
                return .expression(.constant(.double(-Double(magnitude))), 1)
            case .double(let value):
                try advance()
                return .expression(.constant(.double(-value)), 1)
            default: break
            }
        }
        let start = token.offset
        let operand = try parseUnary()
        return .expression(
            .negate(try requireExpression(operand, at: start)), try checkHeight(operand.height + 1))
    }

    mutating func parsePower() throws -> Parsed {
        let start = token.offset
        let base = try parsePostfix()
        guard isSymbol(.power) else { return base }
        let lhs = try requireExpression(base, at: start)
        try enter()
        defer { leave() }
        try advance()
        let rightStart = token.offset
        let exponent = try parseUnary()
        let rhs = try requireExpression(exponent, at: rightStart)
        return .expression(.arithmetic(.power, lhs, rhs), try checkHeight(max(base.height, exponent.height) + 1))
    }

    mutating func parsePostfix() throws -> Parsed {
        let start = token.offset
        var result = try parsePrimary()
        while true {
            if isSymbol(.dot) {
                let base = try requireExpression(result, at: start)
                try advance()
                let component: String
                switch token.kind {
                case .identifier(let name) where !name.utf8.contains(UInt8(ascii: ":")): component = name
                case .escapedIdentifier(let name): component = name
                case .collectionOperator(let name): component = name
                default: throw unexpected(expected: "a key after '.'")
                }
                try advance()
                result = .expression(Self.appending(component, to: base), max(result.height, 1))
            } else if isSymbol(.leftBracket) {
                let base = try requireExpression(result, at: start)
                try enter()
                defer { leave() }
                try advance()
                let index: ObjectExpression.Index
                var indexHeight = 0
                switch token.kind {
                case .keyword(.first): index = .first
                case .keyword(.last): index = .last
                case .keyword(.size): index = .size
                default:
                    let indexStart = token.offset
                    let parsed = try parseAdditive()
                    index = .position(try requireExpression(parsed, at: indexStart))
                    indexHeight = parsed.height
                }
                if case .position = index {} else { try advance() }
                try expect(.rightBracket)
                result = .expression(.index(base, index), try checkHeight(max(result.height, indexHeight) + 1))
            } else {
                return result
            }
        }
    }

    static func appending(_ component: String, to base: ObjectExpression) -> ObjectExpression {
        switch base {
        case .keyPath(let path): .keyPath(path + "." + component)
        case .evaluatedObject: .keyPath(component)
        case .member(let inner, let path): .member(of: inner, keyPath: path + "." + component)
        default: .member(of: base, keyPath: component)
        }
    }

    mutating func parsePrimary() throws -> Parsed {
        let kind = token.kind
        switch kind {
        case .symbol(.leftParen):
            try enter()
            defer { leave() }
            try advance()
            let inner = try parseOr()
            try expect(.rightParen)
            return inner
        case .keyword(.truePredicate): return try constantPredicate(.true)
        case .keyword(.falsePredicate): return try constantPredicate(.false)
        case .string(let s): return try constant(.string(s))
        case .integer(let magnitude):
            return try constant(
                magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .double(Double(magnitude)))
        case .double(let value): return try constant(.double(value))
        case .keyword(.true), .keyword(.yes): return try constant(.bool(true))
        case .keyword(.false), .keyword(.no): return try constant(.bool(false))
        case .keyword(.null), .keyword(.nil): return try constant(.null)
        case .argumentValue(let index): return try constant(lexer.argumentValues[index])
        case .argumentKeyPath(let path):
            try advance()
            return .expression(path == "SELF" ? .evaluatedObject : .keyPath(path), 1)
        case .variable(let name):
            try advance()
            return .expression(.variable(name), 1)
        case .keyword(.self):
            try advance()
            return .expression(.evaluatedObject, 1)
        case .escapedIdentifier(let name), .collectionOperator(let name):
            try advance()
            return .expression(.keyPath(name), 1)
        case .identifier(let name):
            let offset = token.offset
            try advance()
            if isSymbol(.leftParen) { return try parseFunctionCall(name, at: offset) }
            guard !name.utf8.contains(UInt8(ascii: ":")) else {
                throw unexpected(expected: "'(' after the function name")
            }
            return .expression(.keyPath(name), 1)
        case .keyword(.function) where allowsSelectorCalls:
            let offset = token.offset
            try advance()
            guard isSymbol(.leftParen) else { throw unexpected(expected: "'(' after FUNCTION") }
            return try parseSelectorCall(at: offset)
        case .symbol(.leftBrace): return try parseAggregate()
        case .keyword(.subquery): return try parseSubquery()
        case .keyword(.cast): return try parseCast()
        default:
            throw unexpected(expected: "an expression")
        }
    }

    private mutating func constant(_ value: PredicateValue) throws -> Parsed {
        try advance()
        return .expression(.constant(value), 1)
    }

    private mutating func constantPredicate(_ node: ObjectPredicate.Node) throws -> Parsed {
        try advance()
        return .predicate(node, 1)
    }

    /// Parses `( expression, … )` up to and including the closing symbol.
    private mutating func parseList(closing: Symbol) throws -> (items: [ObjectExpression], height: Int) {
        var items: [ObjectExpression] = []
        var height = 0
        if isSymbol(closing) {
            try advance()
            return (items, height)
        }
        while true {
            let start = token.offset
            let parsed = try parseAdditive()
            items.append(try requireExpression(parsed, at: start))
            height = max(height, parsed.height)
            if isSymbol(.comma) {
                try advance()
                continue
            }
            guard isSymbol(closing) else { throw unexpected(expected: "',' or '\(closing.rawValue)'") }
            try advance()
            return (items, height)
        }
    }

    private mutating func parseFunctionCall(_ name: String, at offset: Int) throws -> Parsed {
        guard let resolution = FunctionTable.resolve(name) else {
            throw ObjectPredicateError(.unknownFunction, "unknown function '\(name)'", offset: offset)
        }
        try enter()
        defer { leave() }
        try advance()
        let (arguments, height) = try parseList(closing: .rightParen)
        let resultHeight = try checkHeight(height + 1)
        switch resolution {
        case .arithmetic(let op):
            guard arguments.count == 2 else {
                throw ObjectPredicateError(.syntaxError, "'\(name)' takes 2 arguments", offset: offset)
            }
            return .expression(.arithmetic(op, arguments[0], arguments[1]), resultHeight)
        case .function(let canonical, let arity):
            guard arity.contains(arguments.count) else {
                throw ObjectPredicateError(
                    .syntaxError, "'\(canonical)' takes \(FunctionTable.describe(arity)) argument(s)", offset: offset)
            }
            return .expression(.function(canonical, arguments), resultHeight)
        }
    }

    /// `FUNCTION(receiver, "selector:", arguments…)`: a method call, kept as the function `FUNCTION` whose first
    /// argument is the receiver and second the selector's name. Predicates cannot evaluate it; migrations can.
    private mutating func parseSelectorCall(at offset: Int) throws -> Parsed {
        try enter()
        defer { leave() }
        try advance()
        let (arguments, height) = try parseList(closing: .rightParen)
        guard arguments.count >= 2, case .constant(.string) = arguments[1] else {
            throw ObjectPredicateError(
                .syntaxError, "FUNCTION takes a receiver, a selector string and the selector's arguments",
                offset: offset)
        }
        return .expression(.function("FUNCTION", arguments), try checkHeight(height + 1))
    }

    private mutating func parseAggregate() throws -> Parsed {
        try enter()
        defer { leave() }
        try advance()
        let (items, height) = try parseList(closing: .rightBrace)
        let resultHeight = try checkHeight(height + 1)
        var constants: [PredicateValue] = []
        constants.reserveCapacity(items.count)
        for item in items {
            guard case .constant(let value) = item else { return .expression(.aggregate(items), resultHeight) }
            constants.append(value)
        }
        return .expression(.constant(.array(constants)), resultHeight)
    }

    private mutating func parseSubquery() throws -> Parsed {
        try enter()
        defer { leave() }
        try advance()
        try expect(.leftParen)
        let collectionStart = token.offset
        let collection = try parseAdditive()
        let collectionExpression = try requireExpression(collection, at: collectionStart)
        try expect(.comma)
        guard case .variable(let variable) = token.kind else {
            throw unexpected(expected: "a $variable naming the SUBQUERY element")
        }
        try advance()
        try expect(.comma)
        let predicate = try parseOr()
        let node = try requirePredicate(predicate)
        try expect(.rightParen)
        return .expression(
            .subquery(collection: collectionExpression, variable: variable, predicate: node),
            try checkHeight(max(collection.height, predicate.height) + 1))
    }

    private mutating func parseCast() throws -> Parsed {
        try enter()
        defer { leave() }
        try advance()
        try expect(.leftParen)
        let start = token.offset
        let operand = try parseAdditive()
        let expression = try requireExpression(operand, at: start)
        try expect(.comma)
        let typeOffset = token.offset
        let typeName: String
        switch token.kind {
        case .string(let name): typeName = name
        case .argumentValue(let index):
            guard case .string(let name) = lexer.argumentValues[index] else { fallthrough }
            typeName = name
        default: throw unexpected(expected: "a type name string such as \"NSDate\"")
        }
        guard let type = ObjectExpression.CastType(rawValue: typeName) else {
            throw ObjectPredicateError(
                .invalidCast,
                "unsupported CAST type; use NSDate, NSNumber, NSDecimalNumber, NSString, NSData, "
                    + "NSUUID or NSURL", offset: typeOffset)
        }
        try advance()
        try expect(.rightParen)
        if case .constant(let value) = expression {
            do {
                return .expression(.constant(try CastConversion.fold(value, to: type)), 1)
            } catch var error as ObjectPredicateError {
                error.offset = start
                throw error
            }
        }
        return .expression(.cast(expression, type), try checkHeight(operand.height + 1))
    }
}
