/// Constants of the Almanac wire protocol.
///
/// One message is one line of compact JSON ending in `\n`. A client sends requests
/// `{"id": <any JSON value>, "op": "<operation>", …}`; the server answers each with one line, in order:
/// `{"id": …, "ok": true, …}` or `{"id": …, "ok": false, "error": {"code": "…", "message": "…", …}}`.
/// After `subscribe`, the server also writes event lines `{"event": "…", …}` on that connection.
public enum WireProtocol {
    /// The protocol version reported by `hello`.
    public static let version = 1
    /// The longest request line a server accepts by default (1 MiB), newline excluded.
    public static let defaultMaxLineLength = 1 << 20
}
