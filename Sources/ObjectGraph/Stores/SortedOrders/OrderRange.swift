import Foundation

/// The positions of a sorted order that can hold matches of a predicate, found by binary search on the order's
/// first sort key rather than by testing every record: a walk then starts at the first position that can match
/// and stops after the last.
///
/// Bounds come from the predicate's top-level conjunction, when the first sort key is an ascending plain attribute
/// whose values are all dates, all numbers or all strings in canonical composition (NFC: orders sort strings by the
/// scalars of their composition, while a predicate compares them with Swift's `<`, which is that order on composed
/// strings only and no strict weak order on others):
/// - comparisons of that key with constants (`start >= $FROM AND start < $TO`) bound it directly;
/// - a prefix (`title BEGINSWITH 'Open'`) bounds a string key from the prefix up to the first string past every
///   string that begins with it;
/// - a lower bound on another attribute of the same kind (`end > $NOW`) bounds the sort key too, through the
///   largest difference between the two over the order's records (their longest span, measured once per order):
///   `end > c` and `end - start <= span` give `start > c - span`. So `start <= $NOW AND end > $NOW`, the sessions
///   under way at a moment, walks only the sessions that started within one longest session before it.
///
/// Records whose sort value is missing come first in an ascending order, and fail every comparison of the key with
/// a constant; the second kind of bound is used only beside such a comparison, so those records are never matches.
/// Anything else (other operators, `OR`, key paths, modifiers, options, mixed value types) leaves the whole order.
enum OrderRange {
    /// Of the orders by the attributes `predicate` bounds (`order` finds or makes each, nil when it cannot), the
    /// one whose range that can match is narrowest, if any is narrower than its whole order: what a count walks.
    /// The attributes are tried in turn until one leaves less than a sixteenth of its order, so a second order is
    /// made only when the first does not narrow much.
    static func narrowest<Order: KeptOrder>(for predicate: ObjectPredicate, order: (SortKey) -> Order?) -> Order? {
        var best: (order: Order, size: Int)?
        for key in boundedKeys(of: predicate) {
            guard let candidate = order(SortKey(key)) else { continue }
            let size = candidate.positions(matching: predicate).count
            if size < (best?.size ?? candidate.views.count) { best = (candidate, size) }
            if size < candidate.views.count / 16 { break }
        }
        return best?.order
    }

    /// The positions of `count` records (sort values `prepared`, `width` per record) that can match `predicate`.
    static func positions(
        matching predicate: ObjectPredicate?, keys: [SortKey], prepared: [SortValue], width: Int, count: Int,
        columns: RowColumns
    ) -> Range<Int> {
        let whole = 0..<count
        guard let predicate, count > 0, width > 0, let first = keys.first, first.ascending,
            PredicateCompiler.isPlainKey(first.keyPath)
        else { return whole }
        let key = first.keyPath
        var conjuncts: [ObjectPredicate.Node] = []
        collect(predicate.node, into: &conjuncts)
        var lower: (value: SortValue, inclusive: Bool)?
        var upper: (value: SortValue, inclusive: Bool)?
        var otherLowerBounds: [(key: String, value: SortValue)] = []
        var comparesKey = false
        for conjunct in conjuncts {
            guard let (other, op, constant) = comparison(conjunct) else { continue }
            if other == key {
                comparesKey = true
                switch op {
                case .beginsWith:
                    guard case .string(let prefix, _) = constant else { break }
                    lower = tighter(lower, (constant, true), .orderedDescending)
                    if let past = prefixEnd(prefix) {
                        upper = tighter(upper, (.string(past), false), .orderedAscending)
                    }
                case .lessThan, .lessThanOrEqualTo:
                    upper = tighter(upper, (constant, op == .lessThanOrEqualTo), .orderedAscending)
                case .greaterThan, .greaterThanOrEqualTo:
                    lower = tighter(lower, (constant, op == .greaterThanOrEqualTo), .orderedDescending)
                case .equalTo:
                    upper = tighter(upper, (constant, true), .orderedAscending)
                    lower = tighter(lower, (constant, true), .orderedDescending)
                default: break
                }
            } else if op == .greaterThan || op == .greaterThanOrEqualTo {
                otherLowerBounds.append((other, constant))
            }
        }
        guard comparesKey,
            let kind = columns.rangeKind(of: key, make: { uniformKind(prepared, width: width, count: count) })
        else { return whole }
        // Strings ordered by another comparison (folded for case) are in another order than the predicate's.
        if kind == .string, first.comparison != .compare { return whole }
        // Bounds of another kind than the key's values (a number against dates) are not used.
        if let bound = lower, bound.value.rangeKind != kind { lower = nil }
        if let bound = upper, bound.value.rangeKind != kind { upper = nil }
        for (other, constant) in otherLowerBounds {
            guard constant.rangeKind == kind, let value = constant.spanNumber,
                let span = columns.longestSpan(
                    from: key, to: other,
                    make: {
                        longestSpan(to: other, kind: kind, views: columns.orderViews, prepared: prepared, width: width)
                    })
            else { continue }
            // A margin well above the rounding of one subtraction, so the bound never excludes a match.
            let bound = value - span - (abs(value) + abs(span)) * 1e-12 - 1e-9
            let derived =
                kind == .date
                ? SortValue.date(Date(timeIntervalSinceReferenceDate: bound)) : SortValue.number(.double(bound))
            lower = tighter(lower, (derived, true), .orderedDescending)
        }
        let start =
            lower.map { bound in
                partitionPoint(count) { index in
                    let order = prepared[index * width].compare(to: bound.value)
                    return bound.inclusive ? order != .orderedAscending : order == .orderedDescending
                }
            } ?? 0
        let end =
            upper.map { bound in
                partitionPoint(count) { index in
                    let order = prepared[index * width].compare(to: bound.value)
                    return bound.inclusive ? order == .orderedDescending : order != .orderedAscending
                }
            } ?? count
        return start..<max(start, end)
    }

    /// The plain attributes the predicate's top-level conjunction compares with a date, a number or a string (`<`,
    /// `<=`, `>`, `>=`, `==`, and `BEGINSWITH` a string): the sort keys of the orders a count can walk a range of.
    static func boundedKeys(of predicate: ObjectPredicate) -> [String] {
        var conjuncts: [ObjectPredicate.Node] = []
        collect(predicate.node, into: &conjuncts)
        var keys: [String] = []
        for conjunct in conjuncts {
            guard let (key, op, constant) = comparison(conjunct), !keys.contains(key) else { continue }
            switch op {
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo: keys.append(key)
            case .beginsWith: if case .string = constant { keys.append(key) }
            default: break
            }
        }
        return keys
    }

    /// The least string greater than every string that begins with `prefix` (as Swift orders strings: by their
    /// scalars in canonical composition), or nil when there is none to give: for the empty prefix, or when the
    /// string with the last scalar moved up would compose into other scalars (then only the lower bound is used).
    /// A string that begins with the prefix (character by character, as `BEGINSWITH` tests) has the prefix's
    /// composed scalars as its first scalars, so it orders before the prefix with its last scalar moved up.
    static func prefixEnd(_ prefix: String) -> String? {
        var scalars = Array(prefix.precomposedStringWithCanonicalMapping.unicodeScalars)
        while let last = scalars.popLast() {
            // The next scalar, past the surrogates; the largest scalar has none and carries to the one before.
            let value = last.value == 0xD7FF ? 0xE000 : last.value + 1
            guard let next = Unicode.Scalar(value) else { continue }
            scalars.append(next)
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            let end = String(view)
            return isComposed(end) ? end : nil
        }
        return nil
    }

    /// Whether a string is in canonical composition (NFC), the form whose Swift order is its scalars' order: at
    /// once for strings of ASCII and of the scalars of ``composesWithNothing(_:)``, else by composing it (about
    /// 2-3 µs a string, once per sort value).
    static func isComposed(_ string: String) -> Bool {
        StringOrder.isComposedAtOnce(string)
            || string.unicodeScalars.elementsEqual(string.precomposedStringWithCanonicalMapping.unicodeScalars)
    }

    /// Scalars of the common scripts of titles that are in canonical composition alone, are starters, and are
    /// never the second of two scalars that compose: a string of them only is composed. Latin below the combining
    /// marks, Greek, Cyrillic, Hebrew and Arabic letters without their marks, CJK punctuation and ideographs, kana
    /// without the separate voicing marks, Hangul syllables, fullwidth forms, pictographs and emoji (checked scalar
    /// by scalar against Foundation's composition and every scalar's decomposition in OrderRangeTests).
    static func composesWithNothing(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0..<0x300, 0x386, 0x388...0x3CE, 0x400...0x482, 0x48A...0x4FF, 0x5D0...0x5EA, 0x621...0x64A,
            0x3000...0x3029, 0x3041...0x3096, 0x309B...0x309F, 0x30A1...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xAC00...0xD7A3, 0xFF01...0xFF5E, 0x1F300...0x1FAFF:
            true
        default: false
        }
    }

    /// The kind of every present value of the first sort key (nil when they differ, none is a date, number or
    /// string, or a string is not composed).
    private static func uniformKind(_ prepared: [SortValue], width: Int, count: Int) -> RangeKind? {
        var kind: RangeKind?
        for index in 0..<count {
            let value = prepared[index * width]
            if case .null = value { continue }
            if case .string(_, .recomposed) = value { return nil }
            guard let found = value.rangeKind, kind == nil || kind == found else { return nil }
            kind = found
        }
        return kind
    }

    /// The largest `other - key` over the records where both are present (the key's values being `prepared`'s
    /// first); nil when a present value of `other` is not of `kind`, or no record has both.
    private static func longestSpan(
        to other: String, kind: RangeKind, views: [RecordView], prepared: [SortValue], width: Int
    ) -> Double? {
        var longest: Double?
        for (index, view) in views.enumerated() {
            guard let raw = view.record[other] else { continue }
            let value = SortValue(raw, .compare)
            guard value.rangeKind == kind, let end = value.spanNumber else { return nil }
            guard let start = prepared[index * width].spanNumber else { continue }
            longest = max(longest ?? -.infinity, end - start)
        }
        return longest
    }

    /// The conjuncts of nested `AND`s.
    private static func collect(_ node: ObjectPredicate.Node, into conjuncts: inout [ObjectPredicate.Node]) {
        if case .and(let operands) = node {
            for operand in operands { collect(operand, into: &conjuncts) }
        } else {
            conjuncts.append(node)
        }
    }

    /// A plain attribute compared directly, without options, with an expression that folds to a date, a number or a
    /// string.
    private static func comparison(_ node: ObjectPredicate.Node) -> (String, ComparisonOperator, SortValue)? {
        guard case .comparison(.keyPath(let key), let op, let right, .direct, let options) = node, options.isEmpty,
            PredicateCompiler.isPlainKey(key)
        else { return nil }
        var compiler = PredicateCompiler(substitutions: [:])
        guard case .constant(let constant)? = try? compiler.compile(right, depth: 1), let constant else { return nil }
        let value = SortValue(constant, .compare)
        guard value.rangeKind != nil else { return nil }
        if case .string(_, .recomposed) = value { return nil }
        return (key, op, value)
    }

    /// The first index in `0..<count` where `isAtOrPast` holds, for a test that holds from some index on.
    private static func partitionPoint(_ count: Int, _ isAtOrPast: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = low + (high - low) / 2
            if isAtOrPast(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The tighter of two bounds of the same kind: the larger lower bound (`tighter` `.orderedDescending`) or the
    /// smaller upper bound (`.orderedAscending`); an exclusive bound wins a tie. A bound of another kind than
    /// `current` is dropped.
    private static func tighter(
        _ current: (value: SortValue, inclusive: Bool)?, _ new: (value: SortValue, inclusive: Bool),
        _ tighter: ComparisonResult
    ) -> (value: SortValue, inclusive: Bool) {
        guard let current, current.value.rangeKind == new.value.rangeKind else { return current ?? new }
        switch new.value.compare(to: current.value) {
        case .orderedSame: return (new.value, new.inclusive && current.inclusive)
        case tighter: return new
        default: return current
        }
    }
}

/// The kinds of values a range over a sorted order handles: ordered totally; dates and numbers have a difference
/// (spans are measured between them).
enum RangeKind {
    case date
    case number
    case string
}

extension SortValue {
    /// The value's kind for ``OrderRange``; nil for data and missing values, and for NaN (which orders with
    /// nothing). Strings folded for another comparison are strings too: ``OrderRange`` checks the order's comparison.
    var rangeKind: RangeKind? {
        switch self {
        case .date: return .date
        case .number: return spanNumber == nil ? nil : .number
        case .string: return .string
        default: return nil
        }
    }

    /// A date as seconds since the reference date, a number as a `Double`: what spans are measured in.
    var spanNumber: Double? {
        switch self {
        case .date(let date): return date.timeIntervalSinceReferenceDate
        case .number(.int(let number)): return Double(number)
        case .number(.double(let number)): return number.isNaN ? nil : number
        default: return nil
        }
    }
}

/// A sorted order kept between fetches (a store's own, or the coordinator's merge of several): its records, their
/// prepared sort values (`keys.count` per record) and its columns, which ``OrderRange`` searches.
protocol KeptOrder: AnyObject {
    var views: [RecordView] { get }
    var keys: [SortKey] { get }
    var prepared: [SortValue] { get }
    var columns: RowColumns { get }
}

extension KeptOrder {
    /// The positions that can match `predicate` (see ``OrderRange``).
    func positions(matching predicate: ObjectPredicate?) -> Range<Int> {
        OrderRange.positions(
            matching: predicate, keys: keys, prepared: prepared, width: keys.count,
            count: views.count, columns: columns)
    }
}
