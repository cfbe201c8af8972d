/// A speaker or other person attached to sessions.
public struct PersonInfo: Sendable, Hashable {
    /// The public name.
    public var name: String
    /// The person's guid as the file gives it (pretalx code for JSON), else nil.
    public var guid: String?
    /// The person's id as the file gives it (frab `<person id>`), else nil.
    public var id: String?

    /// Creates a person.
    public init(name: String, guid: String? = nil, id: String? = nil) {
        self.name = name
        self.guid = guid
        self.id = id
    }
}

extension PersonInfo {
    /// What tells persons apart within a document: the guid, else the id, else the name.
    enum Key: Hashable {
        case guid(String)
        case id(String)
        case name(String)
    }

    /// The person's ``Key``.
    var key: Key { guid.map { .guid($0) } ?? id.map { .id($0) } ?? .name(name) }
}
