import AlmanacWire

/// An error the client reports on stderr in one line and turns into an exit code.
enum ClientError: Error, CustomStringConvertible {
    /// The daemon answered with an error.
    case daemon(WireError)
    /// The socket could not be reached.
    case cannotConnect(path: String, reason: String)
    /// The connection broke or the daemon sent something unreadable.
    case protocolFailure(String)
    /// Something the user named does not exist (checked by the client).
    case notFound(String)
    /// The arguments are wrong in a way only known after talking to the daemon.
    case usage(String)
    /// `--conference` (or `changes NAME`) names no served conference; `known` lists the names that are served.
    case unknownConference(String, known: [String])
    /// `--room`, `--track` or `--language` matches nothing the schedules hold; `known` lists what they hold.
    case unknownValue(option: String, value: String, known: [String])
    /// Text that names several sessions where one is needed; the command has printed them.
    case ambiguous(String)

    /// The process exit codes, as documented in `almanac --help`.
    enum ExitStatus: Int32 {
        case ok = 0
        case daemonError = 1
        case usage = 2
        case cannotConnect = 3
        case notFound = 4
    }

    var exitStatus: ExitStatus {
        switch self {
        case .daemon(let error):
            return error.code == .notFound || error.code == .unknownConference ? .notFound : .daemonError
        case .cannotConnect: return .cannotConnect
        case .protocolFailure, .ambiguous: return .daemonError
        case .notFound, .unknownConference, .unknownValue: return .notFound
        case .usage: return .usage
        }
    }

    /// The code shown first on the error line.
    var code: String {
        switch self {
        case .daemon(let error): return error.code.rawValue
        case .cannotConnect: return "cannot_connect"
        case .protocolFailure: return "protocol_error"
        case .notFound: return "not_found"
        case .usage: return "usage"
        case .unknownConference: return WireError.Code.unknownConference.rawValue
        case .unknownValue(let option, _, _): return "unknown_\(option)"
        case .ambiguous: return "ambiguous"
        }
    }

    var message: String {
        switch self {
        case .daemon(let error):
            var text = error.message
            if let candidates = error.candidates { text += " (candidates: \(candidates.joined(separator: ", ")))" }
            if let offset = error.offset, error.code == .parseError { text += " (at offset \(offset))" }
            if let known = error.conferences, !known.allSatisfy(text.contains) {
                text += " (known: " + (known.isEmpty ? "none" : known.joined(separator: ", ")) + ")"
            }
            return text
        case .cannotConnect(let path, let reason):
            return "cannot connect to \(path): \(reason) (is almanacd running? see --socket)"
        case .protocolFailure(let text), .notFound(let text), .usage(let text), .ambiguous(let text):
            return text
        case .unknownValue(let option, let value, let known):
            let shown = known.prefix(40).joined(separator: ", ")
            let more = known.count > 40 ? " and \(known.count - 40) more" : ""
            return "no \(option) matches \"\(value)\"; known: " + (known.isEmpty ? "none" : shown + more)
        case .unknownConference(let name, let known):
            return WireError.unknownConference(name, known: known).message
        }
    }

    /// The single stderr line.
    var description: String { "almanac: \(code): \(message)" }
}
