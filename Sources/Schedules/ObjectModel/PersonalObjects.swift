import Foundation
import ObjectGraph

/// A favourite session, keyed by conference acronym and session guid so that it survives schedule updates.
public final class Favorite: ManagedObject {
    /// When the favourite was made.
    public var createdAt: Date? { value(forKey: "createdAt") as? Date }

    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "createdAt")
    }
}

/// A note on a session or conference.
public final class Note: ManagedObject {
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "createdAt")
    }
}

/// One start of the daemon (Core Data's tutorial `Run`): its date set on insertion, its process ID defaulting to -1,
/// which fails validation (minimum 0) until the real ID is set.
public final class Run: ManagedObject {
    /// When the daemon started.
    public var date: Date? { value(forKey: "date") as? Date }

    /// The daemon's process ID.
    public var processID: Int {
        get { value(forKey: "processID") as? Int ?? -1 }
        set { setValue(newValue, forKey: "processID") }
    }

    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "date")
    }
}
