/// How one property of a destination object gets its value in a migration (Core Data's `NSPropertyMapping`).
///
/// The value expression is evaluated for each destination object with `$source` bound to the source object,
/// `$manager` to the ``MigrationManager``, `$entityMapping` to the entity mapping and `$entityPolicy` to its
/// policy, for example `$source.firstName` or
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "UserToUser", $source.friends)`.
/// A mapping without an expression leaves the property at its default value.
public final class PropertyMapping: @unchecked Sendable {  // configured before a migration, then only read
    /// The name of the destination property.
    public var name: String
    /// The expression that computes the value; `nil` leaves the default value.
    public var valueExpression: ObjectExpression?
    /// Free-form information, from the mapping model file or for a custom policy.
    public var userInfo: [String: any Sendable]

    /// Creates a property mapping.
    public init(name: String, valueExpression: ObjectExpression? = nil, userInfo: [String: any Sendable] = [:]) {
        self.name = name
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }

    /// Creates an empty mapping (no name, no expression), to be set up as Core Data's `NSPropertyMapping()` is.
    public convenience init() {
        self.init(name: "")
    }

    /// Creates a property mapping whose expression is given in `NSExpression` format.
    /// - Throws: ``ObjectPredicateError`` when the format does not parse.
    public convenience init(name: String, valueExpressionFormat format: String) throws {
        self.init(name: name, valueExpression: try ObjectExpression(format: format))
    }
}
