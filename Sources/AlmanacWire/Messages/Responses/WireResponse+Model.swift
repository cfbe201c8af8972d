extension WireResponse {
    /// The answer to `model`: the served model's entities, configurations and fetch request templates.
    ///
    /// `{"entities": [{"name", "parent", "abstract", "attributes": [{"name", "type", "optional", "transient"}],
    /// "relationships": [{"name", "destination", "toMany", "inverse", "deleteRule"}]}], "configurations":
    /// {"name": ["Entity", …]}, "templates": {"name": {"entity", "predicate", "variables"}}}`.
    public struct Model: WireMessageBody, WireReplyBody {
        /// An attribute of an entity.
        public struct Attribute: Sendable, Hashable {
            public var name: String
            /// The attribute type's name, e.g. `string`, `date`, `integer64`.
            public var type: String
            public var isOptional: Bool
            public var isTransient: Bool

            public init(name: String, type: String, isOptional: Bool, isTransient: Bool) {
                self.name = name
                self.type = type
                self.isOptional = isOptional
                self.isTransient = isTransient
            }
        }

        /// A relationship of an entity.
        public struct Relationship: Sendable, Hashable {
            public var name: String
            /// The destination entity's name.
            public var destination: String
            public var isToMany: Bool
            /// The inverse relationship's name, if it has one.
            public var inverse: String?
            /// `nullify`, `cascade`, `deny` or `noAction`.
            public var deleteRule: String

            public init(name: String, destination: String, isToMany: Bool, inverse: String?, deleteRule: String) {
                self.name = name
                self.destination = destination
                self.isToMany = isToMany
                self.inverse = inverse
                self.deleteRule = deleteRule
            }
        }

        /// An entity, with its inherited properties.
        public struct Entity: Sendable, Hashable {
            public var name: String
            /// The superentity's name.
            public var parent: String?
            public var isAbstract: Bool
            public var attributes: [Attribute]
            public var relationships: [Relationship]

            public init(
                name: String, parent: String?, isAbstract: Bool, attributes: [Attribute],
                relationships: [Relationship]
            ) {
                self.name = name
                self.parent = parent
                self.isAbstract = isAbstract
                self.attributes = attributes
                self.relationships = relationships
            }
        }

        /// A named configuration and the entities it holds.
        public struct Configuration: Sendable, Hashable {
            public var name: String
            public var entities: [String]

            public init(name: String, entities: [String]) {
                self.name = name
                self.entities = entities
            }
        }

        /// A fetch request template, for the `template` operation.
        public struct Template: Sendable, Hashable {
            public var name: String
            /// The entity it fetches.
            public var entity: String
            /// Its predicate's format, with `$VARIABLES`.
            public var predicate: String?
            /// The variables its predicate needs, sorted.
            public var variables: [String]

            public init(name: String, entity: String, predicate: String?, variables: [String]) {
                self.name = name
                self.entity = entity
                self.predicate = predicate
                self.variables = variables
            }
        }

        public var entities: [Entity]
        /// In the model's order.
        public var configurations: [Configuration]
        /// Sorted by name.
        public var templates: [Template]

        public init(entities: [Entity], configurations: [Configuration] = [], templates: [Template] = []) {
            self.entities = entities
            self.configurations = configurations
            self.templates = templates
        }

        public init(json: JSONObject) throws(WireError) {
            entities = try json.objects("entities") { (entity: JSONObject) throws(WireError) in
                Entity(
                    name: try entity.requiredString("name"),
                    parent: try entity.optionalString("parent"),
                    isAbstract: try entity.optionalBool("abstract") ?? false,
                    attributes: try entity.objects("attributes") { (attribute: JSONObject) throws(WireError) in
                        Attribute(
                            name: try attribute.requiredString("name"), type: try attribute.requiredString("type"),
                            isOptional: try attribute.optionalBool("optional") ?? true,
                            isTransient: try attribute.optionalBool("transient") ?? false)
                    },
                    relationships: try entity.objects("relationships") { (relationship: JSONObject) throws(WireError) in
                        Relationship(
                            name: try relationship.requiredString("name"),
                            destination: try relationship.requiredString("destination"),
                            isToMany: try relationship.optionalBool("toMany") ?? false,
                            inverse: try relationship.optionalString("inverse"),
                            deleteRule: try relationship.optionalString("deleteRule") ?? "nullify")
                    })
            }
            configurations = []
            for (name, value) in try json.optionalObject("configurations") ?? [:] {
                guard let names = value.arrayValue?.compactMap(\.stringValue) else {
                    throw .badRequest("configuration \"\(name)\" must list entity names", field: "configurations")
                }
                configurations.append(Configuration(name: name, entities: names))
            }
            templates = []
            for (name, value) in try json.optionalObject("templates") ?? [:] {
                guard let template = value.objectValue else {
                    throw .badRequest("template \"\(name)\" must be an object", field: "templates")
                }
                templates.append(
                    Template(
                        name: name, entity: try template.requiredString("entity"),
                        predicate: try template.optionalString("predicate"),
                        variables: try template.optionalStringArray("variables") ?? []))
            }
        }

        public var json: JSONObject {
            let entities: [JSONValue] = entities.map { entity in
                let attributes: [JSONValue] = entity.attributes.map {
                    [
                        "name": .string($0.name), "type": .string($0.type), "optional": .bool($0.isOptional),
                        "transient": .bool($0.isTransient),
                    ]
                }
                let relationships: [JSONValue] = entity.relationships.map {
                    [
                        "name": .string($0.name), "destination": .string($0.destination), "toMany": .bool($0.isToMany),
                        "inverse": $0.inverse.map(JSONValue.string) ?? .null, "deleteRule": .string($0.deleteRule),
                    ]
                }
                return [
                    "name": .string(entity.name), "parent": entity.parent.map(JSONValue.string) ?? .null,
                    "abstract": .bool(entity.isAbstract), "attributes": .array(attributes),
                    "relationships": .array(relationships),
                ]
            }
            let configurations = JSONObject(
                self.configurations.map {
                    ($0.name, JSONValue.array($0.entities.map(JSONValue.string)))
                })
            let templates = JSONObject(
                self.templates.map {
                    (
                        $0.name,
                        JSONValue.object([
                            "entity": .string($0.entity), "predicate": $0.predicate.map(JSONValue.string) ?? .null,
                            "variables": .array($0.variables.map(JSONValue.string)),
                        ])
                    )
                })
            return [
                "entities": .array(entities), "configurations": .object(configurations),
                "templates": .object(templates),
            ]
        }
    }
}
