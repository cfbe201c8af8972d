import Foundation

/// A constant inside a predicate: a literal from the format string, a `%@` argument, or a
/// substituted variable. Sendable and Hashable so predicates can be cached and compared.
public enum PredicateValue: Sendable, Hashable {
    /// `nil`, `NULL` or `NSNull`.
    case null
    /// `TRUE`/`YES` or `FALSE`/`NO`.
    case bool(Bool)
    /// Any integer that fits in 64 bits (`UInt64` values above `Int64.max` become ``decimal(_:)``).
    case integer(Int64)
    /// A floating-point number (`Double` or `Float` arguments, literals with a `.` or exponent).
    case double(Double)
    /// A `Decimal` argument; printed as `CAST("1.25", "NSDecimalNumber")`.
    case decimal(Decimal)
    /// A string literal or `String`/`Substring`/`NSString` argument.
    case string(String)
    /// A `Date`; printed as `CAST(626614800.000000, "NSDate")` (seconds since 2001-01-01 UTC).
    case date(Date)
    /// A `Data` argument; printed as `CAST("<base64>", "NSData")`.
    case data(Data)
    /// A `UUID` argument; printed as `CAST("<uuid>", "NSUUID")`.
    case uuid(UUID)
    /// A `URL` argument; printed as `CAST("<absolute string>", "NSURL")`.
    case url(URL)
    /// An array, set or aggregate literal whose elements are all constants (sets are sorted by their printed form).
    case array([PredicateValue])
    /// The identity of an object (its ``PredicateEvaluable/predicateIdentity``, for example a managed object ID).
    case identity(PredicateIdentity)
}

/// A type-erased, Hashable and Sendable box around an object identity such as a managed object ID.
///
/// Two identities are equal when they hold equal values (compared as `AnyHashable`).
public struct PredicateIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The wrapped identity value (for identities made from a plain `Hashable` argument, a private box).
    public let base: any Hashable & Sendable

    /// Wraps an identity value.
    /// - Parameter base: The identity, for example a `ManagedObjectID`.
    public init(_ base: any Hashable & Sendable) { self.base = base }

    /// Wraps a `Hashable` value whose sendability cannot be checked at run time (a `%@` argument).
    init(unchecked value: AnyHashable) { self.base = UncheckedIdentity(value: value) }

    /// The identity as an `AnyHashable`, seeing through the private box.
    var hashable: AnyHashable {
        if let box = base as? UncheckedIdentity { return box.value }
        return AnyHashable(base)
    }

    /// The wrapped value, unboxed.
    public var value: Any { hashable.base }

    /// True when both hold equal values.
    public static func == (lhs: PredicateIdentity, rhs: PredicateIdentity) -> Bool { lhs.hashable == rhs.hashable }

    /// Hashes the wrapped value.
    public func hash(into hasher: inout Hasher) { hashable.hash(into: &hasher) }

    /// The wrapped value's description.
    public var description: String { String(describing: hashable.base) }

    /// True when `other` is a `Hashable` value equal to the wrapped one.
    func matches(_ other: Any) -> Bool { (other as? AnyHashable) == hashable }
}

/// Holds a `Hashable` `%@` argument as an identity. Unchecked because Swift cannot test `Sendable` at
/// run time; identities are immutable values such as object IDs by contract.
struct UncheckedIdentity: Hashable, @unchecked Sendable {
    let value: AnyHashable
}
