/// One section of a ``FetchedResultsController``'s results: the objects sharing one value of its section key path
/// (Core Data's `NSFetchedResultsSectionInfo`).
public struct FetchedResultsSectionInfo<Result: ManagedObject> {
    /// The section key path's value, as text ("" for `nil`, and for the one section of a controller without a
    /// section key path).
    public let name: String
    /// The section's title in an index: the first letter of ``name``, upper-cased; `nil` for an empty name.
    public let indexTitle: String?
    /// The objects of the section, in order.
    public let objects: [Result]?

    /// How many objects the section holds.
    public var numberOfObjects: Int { objects?.count ?? 0 }

    init(name: String, objects: [Result]) {
        self.name = name
        self.indexTitle = Self.indexTitle(forSectionName: name)
        self.objects = objects
    }

    /// Core Data's default index title: the name's first character, capitalised.
    static func indexTitle(forSectionName name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }
}
