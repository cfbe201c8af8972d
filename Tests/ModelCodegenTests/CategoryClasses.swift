import Foundation
import ObjectGraph

/// The class of entity Remark, whose Codegen is Category/Extension: written here, its properties generated (public,
/// as the generated members are).
public final class Remark: ManagedObject {
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "written")
    }
}

/// A class named in no model and registered nowhere: found by its module-qualified name alone.
final class LooseGadget: ManagedObject {}
