import Foundation

/// Prints predicates and expressions in the canonical format that parses back to an equal tree.
enum PredicateFormatter {
    static func format(_ node: ObjectPredicate.Node) -> String {
        var output = ""
        write(node, to: &output)
        return output
    }

    static func format(_ expression: ObjectExpression) -> String {
        var output = ""
        write(expression, to: &output)
        return output
    }

    private static func isCompound(_ node: ObjectPredicate.Node) -> Bool {
        switch node {
        case .and, .or: true
        default: false
        }
    }

    private static func writeOperand(_ node: ObjectPredicate.Node, to output: inout String) {
        if isCompound(node) {
            output += "("
            write(node, to: &output)
            output += ")"
        } else {
            write(node, to: &output)
        }
    }

    static func write(_ node: ObjectPredicate.Node, to output: inout String) {
        switch node {
        case .true: output += "TRUEPREDICATE"
        case .false: output += "FALSEPREDICATE"
        case .and(let operands), .or(let operands):
            let isAnd: Bool
            if case .and = node { isAnd = true } else { isAnd = false }
            if operands.isEmpty {
                output += isAnd ? "TRUEPREDICATE" : "FALSEPREDICATE"
                return
            }
            for (index, operand) in operands.enumerated() {
                if index > 0 { output += isAnd ? " AND " : " OR " }
                if operands.count == 1 { write(operand, to: &output) } else { writeOperand(operand, to: &output) }
            }
        case .not(let operand):
            output += "NOT "
            writeOperand(operand, to: &output)
        case .comparison(let left, let op, let right, let modifier, let options):
            switch modifier {
            case .direct: break
            case .any: output += "ANY "
            case .all: output += "ALL "
            case .noneOf: output += "NONE "
            }
            write(left, to: &output)
            output += " " + op.rawValue
            if !options.isEmpty { output += "[" + options.letters + "]" }
            output += " "
            write(right, to: &output)
        }
    }

    /// Binding strength for parenthesisation: 1 additive, 2 multiplicative, 3 unary minus, 4 power, 5 atoms.
    private static func precedence(_ expression: ObjectExpression) -> Int {
        switch expression {
        case .arithmetic(let op, _, _):
            switch op {
            case .add, .subtract: return 1
            case .multiply, .divide, .modulus: return 2
            case .power: return 4
            }
        case .negate: return 3
        case .constant(.integer(let v)) where v < 0: return 3
        case .constant(.double(let v)) where v.sign == .minus: return 3
        default: return 5
        }
    }

    /// Whether the canonical text of an expression starts with an unsigned number literal (`1[0]`, `2.5.key`).
    private static func startsWithUnsignedNumber(_ expression: ObjectExpression) -> Bool {
        switch expression {
        case .constant(.integer(let value)): value >= 0
        case .constant(.double(let value)): value.isFinite && value.sign == .plus
        case .index(let base, _), .member(let base, _): precedence(base) == 5 && startsWithUnsignedNumber(base)
        default: false
        }
    }

    private static func write(_ expression: ObjectExpression, to output: inout String, parenthesized: Bool) {
        if parenthesized { output += "(" }
        write(expression, to: &output)
        if parenthesized { output += ")" }
    }

    static func write(_ expression: ObjectExpression, to output: inout String) {
        switch expression {
        case .constant(let value): value.write(to: &output)
        case .evaluatedObject: output += "SELF"
        case .keyPath(let path): writeKeyPath(path, to: &output)
        case .member(let base, let path):
            write(base, to: &output, parenthesized: precedence(base) < 5)
            output += "."
            writeKeyPath(path, to: &output)
        case .variable(let name): output += "$" + name
        case .aggregate(let items): writeList(items, open: "{", close: "}", to: &output)
        case .index(let base, let index):
            write(base, to: &output, parenthesized: precedence(base) < 5)
            switch index {
            case .first: output += "[FIRST]"
            case .last: output += "[LAST]"
            case .size: output += "[SIZE]"
            case .position(let position):
                output += "["
                write(position, to: &output)
                output += "]"
            }
        case .function(let name, let arguments):
            output += name
            writeList(arguments, open: "(", close: ")", to: &output)
        case .subquery(let collection, let variable, let predicate):
            output += "SUBQUERY("
            write(collection, to: &output)
            output += ", $" + variable + ", "
            write(predicate, to: &output)
            output += ")"
        case .arithmetic(let op, let left, let right):
            let own = precedence(expression)
            let leftPrecedence = precedence(left)
            let rightPrecedence = precedence(right)
            write(left, to: &output, parenthesized: op == .power ? leftPrecedence <= own : leftPrecedence < own)
            output += " " + op.rawValue + " "
            // An exponent is read as a unary expression: `2 ** -x`, `2 ** -1 ** 3` need no parentheses (which would
            // add a nesting level per link of a `-2 ** -2 ** …` chain).
            write(right, to: &output, parenthesized: op == .power ? rightPrecedence < 3 : rightPrecedence <= own)
        case .negate(let operand):
            output += "-"
            let bare: Bool
            switch operand {
            case .keyPath, .member, .variable, .function, .index, .evaluatedObject, .subquery, .cast, .aggregate:
                // A minus directly before a number is read as part of the literal: `-(1)[0]` must not print as
                // `-1[0]`, which is `(-1)[0]`.
                bare = !startsWithUnsignedNumber(operand)
            default: bare = false
            }
            write(operand, to: &output, parenthesized: !bare)
        case .cast(let operand, let type):
            output += "CAST("
            write(operand, to: &output)
            output += ", \"" + type.rawValue + "\")"
        }
    }

    private static func writeList(_ items: [ObjectExpression], open: String, close: String, to output: inout String) {
        output += open
        for (index, item) in items.enumerated() {
            if index > 0 { output += ", " }
            write(item, to: &output)
        }
        output += close
    }

    static func writeKeyPath(_ path: String, to output: inout String) {
        // An ASCII path is written component by component without splitting it into an array of new strings:
        // compiling a predicate writes its key paths (for the messages of its errors), and a template fetch with
        // new variables compiles each time.
        if path.utf8.allSatisfy({ $0 < 0x80 }) {
            var rest = path[...]
            while true {
                let dot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) ?? rest.endIndex
                let component = rest[..<dot]
                if component.utf8.first != UInt8(ascii: "@"), Keyword.match(component.utf8) != nil { output += "#" }
                output += component
                guard dot < rest.endIndex else { return }
                output += "."
                rest = rest[rest.utf8.index(after: dot)...]
            }
        }
        var first = true
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            if !first { output += "." }
            first = false
            if component.first != "@", Keyword.match(ArraySlice(component.utf8)) != nil { output += "#" }
            output += component
        }
    }

    static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            case "\0": output += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

extension PredicateValue {
    /// The canonical text of this constant.
    var formatted: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .null: output += "nil"
        case .bool(let v): output += v ? "TRUE" : "FALSE"
        case .integer(let v): output += String(v)
        case .double(let v):
            output += v.isFinite ? "\(v)" : "CAST(\"\(v)\", \"NSNumber\")"
        case .decimal(let v): output += "CAST(\"\(v)\", \"NSDecimalNumber\")"
        case .string(let v): PredicateFormatter.writeString(v, to: &output)
        case .date(let v):
            let seconds = v.timeIntervalSinceReferenceDate
            guard seconds.isFinite else {
                // No number literal spells an infinity: it goes through a string, as for a double.
                output += "CAST(CAST(\"\(seconds)\", \"NSNumber\"), \"NSDate\")"
                return
            }
            let fixed = String(format: "%.6f", seconds)
            output += "CAST(" + (Double(fixed) == seconds ? fixed : "\(seconds)") + ", \"NSDate\")"
        case .data(let v): output += "CAST(\"\(v.base64EncodedString())\", \"NSData\")"
        case .uuid(let v): output += "CAST(\"\(v.uuidString)\", \"NSUUID\")"
        case .url(let v):
            output += "CAST("
            PredicateFormatter.writeString(v.absoluteString, to: &output)
            output += ", \"NSURL\")"
        case .array(let values):
            output += "{"
            for (index, value) in values.enumerated() {
                if index > 0 { output += ", " }
                value.write(to: &output)
            }
            output += "}"
        case .identity(let v):
            output += "CAST("
            PredicateFormatter.writeString(v.description, to: &output)
            output += ", \"ObjectIdentity\")"
        }
    }
}
