/// A speaker or other person attached to sessions.
public struct PersonInfo: Sendable, Hashable {
    /// The public name.
    public var name: String
    /// The person's guid, else the frab person id as a string (pretalx code for JSON), else nil.
    public var guid: String?

    /// Creates a person.
    public init(name: String, guid: String? = nil) {
        self.name = name
        self.guid = guid
    }
}
