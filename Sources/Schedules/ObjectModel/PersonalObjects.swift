import Foundation
import ObjectGraph

// The classes of the personal entities whose Codegen is Category/Extension in Schedule.xcdatamodeld: declared
// here with what happens on insertion; their typed properties, `fetchRequest()` and registration are generated
// from the model file by the ObjectGraphCodegen plugin (Reminder, Class Definition, is generated whole).

/// A favourite session, keyed by conference acronym and session guid so that it survives schedule updates.
public class Favorite: ManagedObject {
    /// Sets ``createdAt`` to now.
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "createdAt")
    }
}

/// A note on a session or conference.
public class Note: ManagedObject {
    /// Sets ``createdAt`` to now.
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "createdAt")
    }
}

/// One start of the daemon (Core Data's tutorial `Run`): its date set on insertion, its process ID defaulting to -1,
/// which fails validation (minimum 0) until the real ID is set.
public class Run: ManagedObject {
    /// Sets ``date`` to now.
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "date")
    }
}
