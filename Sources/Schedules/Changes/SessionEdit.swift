/// A session whose content changed, with the fields that differ.
public struct SessionEdit: Sendable, Hashable {
    /// The session in the old release.
    public var old: SessionInfo
    /// The session in the new release.
    public var new: SessionInfo
    /// The fields that differ, in ``SessionField`` declaration order.
    public var fields: [SessionField]

    /// Creates an edit.
    public init(old: SessionInfo, new: SessionInfo, fields: [SessionField]) {
        self.old = old
        self.new = new
        self.fields = fields
    }

    /// The session's identity.
    public var identity: SessionIdentity { new.identity }
}
