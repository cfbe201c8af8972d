/// Finds the daemon's socket: `--socket`, then `$ALMANAC_SOCKET`, then the daemon's defaults
/// (`./.almanac/almanac.sock` if it exists, else `$XDG_RUNTIME_DIR/almanac/almanac.sock`, else
/// `/run/almanac/almanac.sock`).
struct SocketPathResolver {
    /// The project-local socket, relative to the working folder.
    static let localPath = ".almanac/almanac.sock"
    /// The system-wide socket.
    static let systemPath = "/run/almanac/almanac.sock"

    var environment: [String: String]
    var fileExists: (String) -> Bool

    func resolve(option: String?) -> String {
        if let option, !option.isEmpty { return option }
        if let path = environment["ALMANAC_SOCKET"], !path.isEmpty { return path }
        if fileExists(Self.localPath) { return "./" + Self.localPath }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/almanac/almanac.sock"
        }
        return Self.systemPath
    }
}
