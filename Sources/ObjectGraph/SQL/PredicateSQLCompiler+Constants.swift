import Foundation

/// How a constant meets a column of some kind.
package enum ConstantMatch {
    /// The value to bind: the constant is of the column's kind.
    case value(SQLValue)
    /// Another kind: `==` is false, `!=` true, ordering false.
    case mismatch
    /// Not translatable (NaN, identities, collections).
    case unsupported
}

extension PredicateSQLCompiler {
    /// How a constant compares with values of a column kind, with `[c]`/`[d]` folding applied to strings.
    package static func match(_ value: PredicateValue, kind: ColumnKind, options: ComparisonOptions) -> ConstantMatch {
        switch value {
        case .bool(let bool):
            return kind.isNumeric ? .value(.integer(bool ? 1 : 0)) : .mismatch
        case .integer(let int):
            return kind.isNumeric ? .value(.integer(int)) : .mismatch
        case .double(let double):
            if double.isNaN { return .unsupported }
            return kind.isNumeric ? .value(.real(double)) : .mismatch
        case .decimal(let decimal):
            guard kind.isNumeric else { return .mismatch }
            if let int = Int64(exactly: NSDecimalNumber(decimal: decimal).doubleValue),
                Decimal(int) == decimal
            {
                return .value(.integer(int))
            }
            let double = NSDecimalNumber(decimal: decimal).doubleValue
            return Decimal(double) == decimal ? .value(.real(double)) : .unsupported
        case .string(let string):
            guard kind == .string else { return .mismatch }
            return .value(.text(fold(string, options)))
        case .date(let date):
            return kind == .date ? .value(.real(date.timeIntervalSinceReferenceDate)) : .mismatch
        case .data(let data):
            // Data that may be stored outside the store is compared in memory, by its bytes.
            if kind == .externalData { return .unsupported }
            return kind == .data ? .value(.blob(data)) : .mismatch
        case .uuid(let uuid):
            return kind == .uuid ? .value(.blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })) : .mismatch
        case .url(let url):
            return kind == .url ? .value(.text(url.absoluteString)) : .mismatch
        case .null, .array, .identity:
            return .unsupported
        }
    }

    /// A string folded for the options (`[c]`, `[d]`), in NFC.
    package static func fold(_ string: String, _ options: ComparisonOptions) -> String {
        SQLFolding.fold(
            string, caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// The column expression, folded by the dialect for `[c]`/`[d]` string comparisons; `nil` when the dialect
    /// cannot fold as the framework does (the comparison is then evaluated in memory).
    func folded(_ expression: String, kind: ColumnKind, options: ComparisonOptions) -> String? {
        guard kind == .string else { return expression }
        let flags = (options.contains(.caseInsensitive) ? 1 : 0) + (options.contains(.diacriticInsensitive) ? 2 : 0)
        return flags == 0 ? expression : dialect.folded(expression, flags: flags)
    }

    /// The constant's binding, or `unsupported` when the dialect cannot bind it (PostgreSQL's text holds no NUL).
    private func bindable(_ match: ConstantMatch) -> ConstantMatch {
        if case .value(.text(let text)) = match, !dialect.canBind(text) { return .unsupported }
        return match
    }

    /// A scalar operand (column, aggregate) compared with a constant.
    package func compareWithConstant(
        _ operand: SQLOperand, _ op: ComparisonOperator, _ value: PredicateValue,
        options: ComparisonOptions
    ) -> SQLFragment? {
        switch operand {
        case .column(let expression, let kind):
            guard kind.isComparableInSQL else { return nil }
            return compareScalar(expression, kind: kind, nullable: true, op, value, options: options)
        case .aggregate(let expression, let kind, let nullable):
            return compareScalar(expression, kind: kind, nullable: nullable, op, value, options: options)
        case .foreignKey(let expression, let destination):
            return compareReference(expression, destination: destination, op, value)
        case .object(let alias, let mapping):
            return compareReference("\(alias).Z_PK", destination: mapping.entity, op, value, isSelf: true)
        case .constant, .toMany:
            return nil
        }
    }

    private func compareScalar(
        _ expression: String, kind: ColumnKind, nullable: Bool, _ op: ComparisonOperator,
        _ value: PredicateValue, options: ComparisonOptions
    ) -> SQLFragment? {
        guard let column = folded(expression, kind: kind, options: options) else { return nil }
        switch op {
        case .equalTo, .notEqualTo:
            let equal = op == .equalTo
            if case .null = value { return SQLFragment("\(expression) IS \(equal ? "" : "NOT ")NULL") }
            switch bindable(Self.match(value, kind: kind, options: options)) {
            case .value(let bound): return SQLFragment(dialect.isEqual(column, "?", equal), [bound])
            case .mismatch: return equal ? alwaysFalse : alwaysTrue
            case .unsupported: return nil
            }
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if case .null = value { return alwaysFalse }
            switch bindable(Self.match(value, kind: kind, options: options)) {
            case .value(let bound): return SQLFragment("\(column) \(op.rawValue) ?", [bound], mayBeNull: nullable)
            case .mismatch: return alwaysFalse
            case .unsupported: return nil
            }
        case .between:
            guard case .array(let bounds) = value, bounds.count == 2 else { return nil }
            var bindings: [SQLValue] = []
            for bound in bounds {
                if case .null = bound { return alwaysFalse }
                switch bindable(Self.match(bound, kind: kind, options: options)) {
                case .value(let v): bindings.append(v)
                case .mismatch: return alwaysFalse
                case .unsupported: return nil
                }
            }
            return SQLFragment("\(column) >= ? AND \(column) <= ?", bindings, mayBeNull: nullable)
        case .in:
            return operandIn(expression, column: column, kind: kind, value, options: options)
        case .contains:
            guard kind == .string else { return nil }
            if case .null = value { return alwaysFalse }
            guard case .string(let needle) = value, dialect.canBind(needle) else { return nil }
            return SQLFragment(
                dialect.contains(column), [dialect.substring(Self.fold(needle, options))],
                mayBeNull: nullable)
        case .beginsWith, .endsWith, .like, .matches:
            guard kind == .string else { return nil }
            if case .null = value { return alwaysFalse }
            guard case .string(let pattern) = value else { return nil }
            return stringTest(expression, op, pattern: pattern, options: options)
        }
    }

    /// `operand IN constant`: an element test for a collection, a substring test for a string.
    private func operandIn(
        _ expression: String, column: String, kind: ColumnKind, _ value: PredicateValue,
        options: ComparisonOptions
    ) -> SQLFragment? {
        switch value {
        case .null:
            return alwaysFalse
        case .array(let elements):
            var bindings: [SQLValue] = []
            var includesNull = false
            for element in elements {
                switch element {
                case .null: includesNull = true
                case .array: continue
                default:
                    switch bindable(Self.match(element, kind: kind, options: options)) {
                    case .value(let bound): bindings.append(bound)
                    case .mismatch: continue
                    case .unsupported: return nil
                    }
                }
            }
            var parts: [SQLFragment] = []
            if !bindings.isEmpty {
                let marks = Array(repeating: "?", count: bindings.count).joined(separator: ", ")
                parts.append(SQLFragment("\(column) IN (\(marks))", bindings, mayBeNull: true))
            }
            if includesNull { parts.append(SQLFragment("\(expression) IS NULL")) }
            return parts.isEmpty ? alwaysFalse : SQLFragment.join(parts, with: "OR")
        case .string(let haystack):
            guard kind == .string, dialect.canBind(haystack) else { return nil }
            return SQLFragment(
                dialect.isContained(column), [dialect.substring(Self.fold(haystack, options))],
                mayBeNull: true)
        default:
            return nil
        }
    }

    /// A to-one relationship (or `SELF`) compared with a constant: nil, or an object ID of this store.
    private func compareReference(
        _ expression: String, destination: EntityDescription, _ op: ComparisonOperator,
        _ value: PredicateValue, isSelf: Bool = false
    ) -> SQLFragment? {
        guard op == .equalTo || op == .notEqualTo else { return nil }
        let equal = op == .equalTo
        switch value {
        case .null:
            return isSelf
                ? (equal ? alwaysFalse : alwaysTrue)
                : SQLFragment("\(expression) IS \(equal ? "" : "NOT ")NULL")
        case .identity(let identity):
            guard let id = identity.value as? ManagedObjectID else { return nil }
            guard id.storeIdentifier == storeIdentifier, let entity = schema.entities[id.entityName]?.entity,
                entity.isKind(of: destination)
            else { return equal ? alwaysFalse : alwaysTrue }
            // Keys are unique per table, and the table's rows are all of the destination's kind.
            return SQLFragment(dialect.isEqual(expression, "?", equal), [.integer(id.referenceKey)])
        case .string, .integer, .double, .bool, .date, .data, .uuid, .url, .decimal:
            return equal ? alwaysFalse : alwaysTrue
        case .array:
            return nil
        }
    }

    /// `constant IN operand`: a substring test when the operand is a string.
    package func constantInOperand(_ value: PredicateValue, _ operand: SQLOperand, options: ComparisonOptions)
        -> SQLFragment?
    {
        guard case .column(let expression, let kind) = operand, kind == .string else { return nil }
        switch value {
        case .null: return alwaysFalse
        case .string(let needle):
            guard let column = folded(expression, kind: kind, options: options), dialect.canBind(needle) else {
                return nil
            }
            return SQLFragment(
                dialect.contains(column), [dialect.substring(Self.fold(needle, options))],
                mayBeNull: true)
        default: return nil
        }
    }

    /// `constant CONTAINS operand`: an element test for a collection constant, a substring test for a string.
    package func constantContainsOperand(
        _ value: PredicateValue, _ operand: SQLOperand,
        options: ComparisonOptions
    ) -> SQLFragment? {
        switch value {
        case .array:
            return compareWithConstant(operand, .in, value, options: options)
        case .string(let haystack):
            guard case .column(let expression, let kind) = operand, kind == .string,
                let column = folded(expression, kind: kind, options: options), dialect.canBind(haystack)
            else { return nil }
            return SQLFragment(
                dialect.isContained(column), [dialect.substring(Self.fold(haystack, options))],
                mayBeNull: true)
        default:
            return nil
        }
    }

    /// Two non-constant scalar operands (columns and aggregates).
    package func compareOperands(
        _ lhs: SQLOperand, _ op: ComparisonOperator, _ rhs: SQLOperand,
        options: ComparisonOptions
    ) -> SQLFragment? {
        func scalar(_ operand: SQLOperand) -> (String, ColumnKind, Bool)? {
            switch operand {
            case .column(let expression, let kind): kind.isComparableInSQL ? (expression, kind, true) : nil
            case .aggregate(let expression, let kind, let nullable): (expression, kind, nullable)
            default: nil
            }
        }
        guard let (left, leftKind, leftNullable) = scalar(lhs), let (right, rightKind, rightNullable) = scalar(rhs)
        else {
            return nil
        }
        let sameFamily = leftKind == rightKind || (leftKind.isNumeric && rightKind.isNumeric)
        guard let l = folded(left, kind: leftKind, options: options),
            let r = folded(right, kind: rightKind, options: options)
        else { return nil }
        switch op {
        case .equalTo:
            return sameFamily
                ? SQLFragment(dialect.isEqual(l, r, true)) : SQLFragment("\(left) IS NULL AND \(right) IS NULL")
        case .notEqualTo:
            return sameFamily
                ? SQLFragment(dialect.isEqual(l, r, false))
                : SQLFragment("NOT (\(left) IS NULL AND \(right) IS NULL)")
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return sameFamily
                ? SQLFragment("\(l) \(op.rawValue) \(r)", mayBeNull: leftNullable || rightNullable) : alwaysFalse
        default:
            return nil
        }
    }
}
