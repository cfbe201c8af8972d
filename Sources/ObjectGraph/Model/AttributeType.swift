import Foundation

/// The type of an attribute's values, as Core Data names them.
///
/// Each type has one canonical Swift representation that ``ManagedObject/value(forKey:)`` returns:
/// integers are `Int` (range-checked against the width), `decimal` is `Decimal`, `double` is `Double`,
/// `float` is `Float`, `string` is `String`, `boolean` is `Bool`, `date` is `Date`, `binaryData` is `Data`,
/// `uuid` is `UUID`, `uri` is `URL` and `transformable` is any `Sendable` value.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binaryData = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    case transformable = "Transformable"
    /// An attribute whose values are computed or derived; stored as any `Sendable` value.
    case undefined = "Undefined"
    /// An object ID reference.
    case objectID = "ObjectID"
    /// A dictionary of named element values (``CompositeAttributeDescription``; Core Data's `compositeAttributeType`,
    /// 2100).
    case composite = "Composite"

    /// Whether values are numbers (integers, decimal, double, float).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }

    /// Whether values are whole numbers.
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// The range of an integer type; `nil` for other types.
    public var integerRange: ClosedRange<Int>? {
        switch self {
        case .integer16: Int(Int16.min)...Int(Int16.max)
        case .integer32: Int(Int32.min)...Int(Int32.max)
        case .integer64: Int.min...Int.max
        default: nil
        }
    }

    /// Converts a value to this type's canonical representation, or returns `nil` when it cannot be converted
    /// without loss (a string for an integer attribute, 3.5 for an integer, 70000 for `integer16`).
    public func coerce(_ value: Any) -> (any Sendable)? {
        if isCanonical(value) { return assumeSendable(value) }  // already converted: no casts
        switch self {
        case .integer16, .integer32, .integer64:
            guard let int = Self.integer(from: value), let range = integerRange, range.contains(int) else { return nil }
            return int
        case .double:
            return Self.double(from: value)
        case .float:
            if let float = value as? Float { return float }
            return Self.double(from: value).map { Float($0) }
        case .decimal:
            if let decimal = value as? Decimal { return decimal }
            if let int = Self.integer(from: value) { return Decimal(int) }
            if let double = Self.double(from: value) { return Decimal(double) }
            return nil
        case .string:
            if let string = value as? String { return string }
            if let substring = value as? Substring { return String(substring) }
            return nil
        case .boolean:
            if let bool = value as? Bool { return bool }
            if let int = Self.integer(from: value), int == 0 || int == 1 { return int == 1 }
            return nil
        case .date:
            return value as? Date
        case .binaryData:
            if let data = value as? Data { return data }
            if let bytes = value as? [UInt8] { return Data(bytes) }
            return nil
        case .uuid:
            if let uuid = value as? UUID { return uuid }
            if let string = value as? String { return UUID(uuidString: string) }
            return nil
        case .uri:
            if let url = value as? URL { return url }
            if let string = value as? String { return URL(string: string) }
            return nil
        case .objectID:
            return value as? ManagedObjectID
        case .transformable, .undefined:
            return assumeSendable(value)
        case .composite:
            // The type alone: the description converts the elements (CompositeAttributeDescription.coerce).
            if let dictionary = value as? [String: any Sendable] { return dictionary }
            if let dictionary = value as? [String: Any] { return dictionary.mapValues { assumeSendable($0) } }
            return nil
        }
    }

    /// Whether a value already has this type's canonical representation (what ``coerce(_:)`` returns): compares the
    /// value's dynamic type, so it costs no cast. A `false` says nothing; ``coerce(_:)`` decides then.
    func isCanonical(_ value: Any) -> Bool {
        switch self {
        case .integer16, .integer32:
            guard Self.typeIdentifier(of: value) == ObjectIdentifier(Int.self), let range = integerRange else {
                return false
            }
            return range.contains(value as? Int ?? 0)
        case .transformable, .undefined: return true
        default: return Self.typeIdentifier(of: value) == canonicalTypeIdentifier
        }
    }

    /// ``isCanonical(_:)`` for the value at `index` of a ``SlotView``, read in place.
    func isCanonical(at index: Int, in view: SlotView) -> Bool {
        switch self {
        case .integer16, .integer32:
            guard view.typeIdentifier(at: index) == ObjectIdentifier(Int.self), let range = integerRange else {
                return false
            }
            return range.contains(view.value(at: index, as: Int.self))
        case .transformable, .undefined: return true
        default: return view.typeIdentifier(at: index) == canonicalTypeIdentifier
        }
    }

    /// The type of the value in an existential, read from the existential itself (which `type(of:)` asks the
    /// runtime for): an existential passed here is opened, and `T` is the type of its value.
    @inline(__always)
    static func typeIdentifier<T>(of value: T) -> ObjectIdentifier { ObjectIdentifier(T.self) }

    /// The type of the canonical values of this type when the type alone makes a value canonical (not for
    /// integers narrower than 64 bits, which need a range check, nor for types that take any value).
    var canonicalTypeIdentifier: ObjectIdentifier? {
        switch self {
        case .integer64: ObjectIdentifier(Int.self)
        case .double: ObjectIdentifier(Double.self)
        case .float: ObjectIdentifier(Float.self)
        case .decimal: ObjectIdentifier(Decimal.self)
        case .string: ObjectIdentifier(String.self)
        case .boolean: ObjectIdentifier(Bool.self)
        case .date: ObjectIdentifier(Date.self)
        case .binaryData: ObjectIdentifier(Data.self)
        case .uuid: ObjectIdentifier(UUID.self)
        case .uri: ObjectIdentifier(URL.self)
        case .objectID: ObjectIdentifier(ManagedObjectID.self)
        // A composite is converted element by element, whatever its dictionary's type.
        case .integer16, .integer32, .transformable, .undefined, .composite: nil
        }
    }

    static func integer(from value: Any) -> Int? {
        switch value {
        case let v as Int: return v
        case let v as Int64: return Int(exactly: v)
        case let v as Int32: return Int(v)
        case let v as Int16: return Int(v)
        case let v as Int8: return Int(v)
        case let v as UInt: return Int(exactly: v)
        case let v as UInt64: return Int(exactly: v)
        case let v as UInt32: return Int(v)
        case let v as UInt16: return Int(v)
        case let v as UInt8: return Int(v)
        case let v as Double: return v.rounded() == v ? Int(exactly: v) : nil
        case let v as Float: return v.rounded() == v ? Int(exactly: v) : nil
        case let v as Decimal:
            var copy = v
            var rounded = Decimal()
            NSDecimalRound(&rounded, &copy, 0, .plain)
            return rounded == v ? Int(exactly: NSDecimalNumber(decimal: v).int64Value) : nil
        case let v as Bool: return v ? 1 : 0
        default: return nil
        }
    }

    static func double(from value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        case let v as Bool: return v ? 1 : 0
        default: return integer(from: value).map(Double.init)
        }
    }
}

/// Treats a value as `Sendable`. Attribute values are immutable values of the canonical types (or, for
/// transformable attributes, values the caller promises are `Sendable`); `Sendable` is a marker protocol, so the
/// two existentials share one layout.
func assumeSendable(_ value: Any) -> any Sendable {
    withUnsafePointer(to: value) { pointer in
        pointer.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee }
    }
}

/// A record's row as an object's slots, sharing its buffer. `Sendable` is a marker protocol with no run-time
/// representation (SE-0302), so `[(any Sendable)?]` and `[Any?]` are one array type at run time, and the checked
/// cast between them hands over the same buffer (`as` converts each element into a new array: a fault of an entity
/// with attributes only spent most of its firing so). The cast is checked: it traps if the two ever differ
/// (`SlotRowSharingTests` checks them on the running toolchain).
@inline(__always)
func sharedSlots(of row: [(any Sendable)?]) -> [Any?] {
    checkedCast(row, to: [Any?].self)
}

/// An object's slots as a record's row, sharing their buffer (see ``sharedSlots(of:)``): for slots that hold
/// attribute values only, which are `Sendable` (see ``assumeSendable(_:)``).
@inline(__always)
func sharedRow(of slots: [Any?]) -> [(any Sendable)?] {
    checkedCast(slots, to: [(any Sendable)?].self)
}

/// `value as! U`, written generically: the compiler, knowing the cast between the two array types above always
/// succeeds, warns on the direct spelling; specialized, this is one run-time check of the array's type.
@inline(__always)
private func checkedCast<T, U>(_ value: T, to type: U.Type) -> U {
    value as! U
}

extension AttributeType {
    /// Core Data's `NSAttributeType` codes, both ways.
    package static let coreDataCodes: [(code: Int64, type: AttributeType)] = [
        (100, .integer16), (200, .integer32), (300, .integer64), (400, .decimal), (500, .double), (600, .float),
        (700, .string), (800, .boolean), (900, .date), (1000, .binaryData), (1100, .uuid), (1200, .uri),
        (1800, .transformable), (2000, .objectID), (2100, .composite), (0, .undefined),
    ]

    /// The type's `NSAttributeType` code.
    package var coreDataCode: Int64 {
        Self.coreDataCodes.first { $0.type == self }?.code ?? 0
    }

    /// The type of a Core Data `NSAttributeType` code (`.undefined` for one it does not know).
    package init(coreDataCode code: Int64) {
        self = Self.coreDataCodes.first { $0.code == code }?.type ?? .undefined
    }
}
