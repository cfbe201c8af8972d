/// A link attached to a session (frab `<links><link href>`, JSON `links`, iCalendar `ATTACH`).
public struct LinkInfo: Sendable, Hashable {
    /// The link's text, as written (the URL itself when the file gives none).
    public var title: String
    /// The address.
    public var url: String

    /// Creates a link.
    public init(title: String, url: String) {
        self.title = title
        self.url = url
    }
}
