/// The operations of protocol version 1, by their `op` string.
public enum WireOperation: String, Sendable, Hashable, CaseIterable {
    case hello, ping, model, stores, fetch, count, template, get, insert, update, delete, changes, history, subscribe
    case stats

    /// Whether the operation changes data (and so needs write permission).
    public var isWrite: Bool {
        switch self {
        case .insert, .update, .delete: return true
        default: return false
        }
    }
}
