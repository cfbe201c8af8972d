import Foundation

/// A computed column of a dictionary fetch: an expression with the key it appears under (Core Data's
/// `NSExpressionDescription`).
///
/// Aggregates are function calls as `NSExpression(forFunction:arguments:)` spells them, or the key-path form:
///
/// ```swift
/// let total = ExpressionDescription(
///     name: "total", expression: ObjectExpression(forFunction: "sum:", arguments: [.keyPath("duration")]),
///     resultType: .integer64)
/// let average = ExpressionDescription(name: "mean", expression: .keyPath("@avg.duration"), resultType: .double)
/// request.propertiesToFetch = ["room.name", total, average]
/// request.propertiesToGroupBy = ["room.name"]
/// ```
///
/// `sum:`, `average:`, `min:`, `max:` and `count:` (and `@sum.`, `@avg.`, `@min.`, `@max.`, `@count`) aggregate
/// over the objects of a group; any other expression is evaluated per object.
public struct ExpressionDescription: Sendable, Hashable {
    /// The key of the value in each result dictionary.
    public var name: String
    /// The expression to evaluate.
    public var expression: ObjectExpression
    /// The type of the result: numbers are converted to it (`Int` for integer types, `Double` for `.double` and
    /// `.float`, `Decimal` for `.decimal`); `.undefined` leaves them as computed.
    public var resultType: AttributeType

    /// Creates an expression description.
    public init(name: String, expression: ObjectExpression, resultType: AttributeType = .undefined) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }

    /// ``resultType`` under Core Data's name (`NSExpressionDescription.expressionResultType`).
    public var expressionResultType: AttributeType {
        get { resultType }
        set { resultType = newValue }
    }
}

/// What ``FetchRequest/propertiesToFetch`` and ``FetchRequest/propertiesToGroupBy`` accept, mixed in one array as
/// Core Data's `[Any]` allows: property names and key paths through to-one relationships (`String`), property
/// descriptions, and expression descriptions.
public protocol FetchableProperty {
    /// What the property stands for in a fetch.
    var fetchColumn: FetchColumn { get }
}

/// One entry of ``FetchRequest/propertiesToFetch`` or ``FetchRequest/propertiesToGroupBy``, resolved.
public enum FetchColumn: Sendable, Hashable {
    /// A property name or a key path through to-one relationships; the key of its value is the key path.
    case keyPath(String)
    /// An expression and the key of its value.
    case expression(ExpressionDescription)

    /// The key of the column's value in a result dictionary.
    public var name: String {
        switch self {
        case .keyPath(let path): path
        case .expression(let description): description.name
        }
    }
}

extension String: FetchableProperty {
    /// The string as a key path.
    public var fetchColumn: FetchColumn { .keyPath(self) }
}

extension ExpressionDescription: FetchableProperty {
    /// The description as an expression column.
    public var fetchColumn: FetchColumn { .expression(self) }
}

extension PropertyDescription: FetchableProperty {
    /// The property by its name.
    public var fetchColumn: FetchColumn { .keyPath(name) }
}

extension ObjectExpression {
    /// A key-path expression (`NSExpression(forKeyPath:)`), for example `room.name` or `@sum.duration`.
    public init(forKeyPath keyPath: String) {
        self = .keyPath(keyPath)
    }

    /// A function call as `NSExpression(forFunction:arguments:)` names it: `sum:`, `average:`, `min:`, `max:`,
    /// `count:`, `lowercase:`, `add:to:`, … (the names of the predicate syntax's `FUNCTION` are accepted too).
    ///
    /// An unknown name is kept as given (lowercased, without its trailing colon) and fails when evaluated.
    public init(forFunction name: String, arguments: [ObjectExpression]) {
        switch FunctionTable.resolve(name) {
        case .arithmetic(let op)? where arguments.count == 2:
            self = .arithmetic(op, arguments[0], arguments[1])
        case .function(let canonical, _)?:
            self = .function(canonical, arguments)
        default:
            var lowered = name.lowercased()
            if lowered.hasSuffix(":") { lowered.removeLast() }
            self = .function(lowered, arguments)
        }
    }
}
