/// What ``ClassGenerator`` generates, as the `ObjectGraphCodegen` plugin's configuration file
/// (`objectgraph-codegen.json` in the target's folder) sets it:
///
/// ```json
/// {"entities": "all", "accessLevel": "internal"}
/// ```
public struct CodegenOptions: Codable, Equatable, Sendable {
    /// Which entities get generated code.
    public enum Entities: String, Codable, Sendable {
        /// The entities whose Codegen setting in the model file is Class Definition or Category/Extension (Xcode's
        /// behaviour; the default).
        case marked
        /// Every entity: those set to Manual/None get a class definition too.
        case all
    }

    /// The access level of the generated declarations.
    public enum AccessLevel: String, Codable, Sendable {
        case `public`, `package`, `internal`
    }

    /// Which entities get generated code; ``Entities/marked`` by default.
    public var entities: Entities
    /// The access level of the generated declarations; `public` by default, as Xcode generates them.
    public var accessLevel: AccessLevel

    /// Options with the defaults, or the values given.
    public init(entities: Entities = .marked, accessLevel: AccessLevel = .public) {
        self.entities = entities
        self.accessLevel = accessLevel
    }

    /// Reads a configuration file; absent keys keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entities = try container.decodeIfPresent(Entities.self, forKey: .entities) ?? .marked
        accessLevel = try container.decodeIfPresent(AccessLevel.self, forKey: .accessLevel) ?? .public
    }
}
