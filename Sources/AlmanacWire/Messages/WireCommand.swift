/// A decoded request: the operation with its typed body.
///
/// ```swift
/// switch try WireCommand(request) {
/// case .fetch(let fetch): …
/// case .ping: return [:]
/// …
/// }
/// ```
public enum WireCommand: Sendable, Hashable {
    case hello(WireRequest.Hello)
    case ping
    case model
    case stores
    case fetch(WireRequest.Fetch)
    case count(WireRequest.Fetch)
    case template(WireRequest.Template)
    case get(WireRequest.Get)
    case insert(WireRequest.Insert)
    case update(WireRequest.Update)
    case delete(WireRequest.Delete)
    case changes(WireRequest.Changes)
    case history(WireRequest.History)
    case subscribe(WireRequest.Subscribe = WireRequest.Subscribe())
    case stats

    /// Decodes the request's body for its operation.
    ///
    /// - Throws: `unknown_op` when the operation is not known; `bad_request` naming a field that is missing or of
    ///   the wrong type.
    public init(_ request: WireRequest) throws(WireError) {
        guard let operation = request.operation else { throw WireError.unknownOp(request.op) }
        let fields = request.fields
        switch operation {
        case .hello: self = .hello(try .init(json: fields))
        case .ping: self = .ping
        case .model: self = .model
        case .stores: self = .stores
        case .fetch: self = .fetch(try .init(json: fields))
        case .count: self = .count(try .init(json: fields))
        case .template: self = .template(try .init(json: fields))
        case .get: self = .get(try .init(json: fields))
        case .insert: self = .insert(try .init(json: fields))
        case .update: self = .update(try .init(json: fields))
        case .delete: self = .delete(try .init(json: fields))
        case .changes: self = .changes(try .init(json: fields))
        case .history: self = .history(try .init(json: fields))
        case .subscribe: self = .subscribe(try .init(json: fields))
        case .stats: self = .stats
        }
    }

    /// The operation of this command.
    public var operation: WireOperation {
        switch self {
        case .hello: return .hello
        case .ping: return .ping
        case .model: return .model
        case .stores: return .stores
        case .fetch: return .fetch
        case .count: return .count
        case .template: return .template
        case .get: return .get
        case .insert: return .insert
        case .update: return .update
        case .delete: return .delete
        case .changes: return .changes
        case .history: return .history
        case .subscribe: return .subscribe
        case .stats: return .stats
        }
    }

    /// The request envelope for this command.
    public func request(id: JSONValue) -> WireRequest {
        let fields: JSONObject
        switch self {
        case .hello(let body): fields = body.json
        case .fetch(let body), .count(let body): fields = body.json
        case .template(let body): fields = body.json
        case .get(let body): fields = body.json
        case .insert(let body): fields = body.json
        case .update(let body): fields = body.json
        case .delete(let body): fields = body.json
        case .changes(let body): fields = body.json
        case .history(let body): fields = body.json
        case .subscribe(let body): fields = body.json
        case .ping, .model, .stores, .stats: fields = [:]
        }
        return WireRequest(id: id, operation: operation, fields: fields)
    }
}
