import Foundation
import ObjectGraph

/// How a model maps onto Core Data's SQLite layout: entity numbers (`Z_ENT`), one table per inheritance root,
/// `Z`-prefixed columns, to-one foreign keys, join tables for many-to-many and inverse-less to-many
/// relationships, and `Z_FOK_` order columns for ordered relationships.
///
/// Entity numbers come from the file's `Z_PRIMARYKEY` when it has them; new entities are numbered as Core Data
/// numbers them: roots sorted by name, each followed depth-first by its sub-entities sorted by name.
final class SQLiteSchema {
    /// The mapping of every entity, by name.
    private(set) var entities: [String: EntityMapping] = [:]
    /// The tables, by name.
    private(set) var tables: [String: TableMapping] = [:]
    /// The join tables, by name.
    private(set) var joinTables: [String: JoinTableMapping] = [:]
    /// Entity names by number.
    private(set) var entityNames: [Int64: String] = [:]
    /// The tables the file has (upper-cased names); `nil` before the file was read.
    var existingTables: Set<String>?
    /// The root entities the store holds (its configuration's entities and their whole hierarchies).
    let heldRoots: [EntityDescription]

    /// Builds the mapping. `numbers` are the entity numbers already in the file (empty for a new file).
    init(model: ManagedObjectModel, configurationName: String?, numbers: [String: Int64]) {
        let held = model.entities(forConfigurationName: configurationName) ?? model.entities
        var roots: [EntityDescription] = []
        for entity in held where !roots.contains(where: { $0 === entity.rootEntity }) {
            roots.append(entity.rootEntity)
        }
        heldRoots = roots.sorted { $0.name < $1.name }
        var assigned = numbers
        var next = (numbers.values.max() ?? 0) + 1
        func number(_ entity: EntityDescription) {
            if assigned[entity.name] == nil {
                assigned[entity.name] = next
                next += 1
            }
            for sub in entity.subentities.sorted(by: { $0.name < $1.name }) { number(sub) }
        }
        let allRoots = model.entities.filter { $0.superentity == nil }.sorted { $0.name < $1.name }
        for root in allRoots { number(root) }
        for root in allRoots {
            let table = TableMapping(name: Self.tableName(root), root: root)
            tables[table.name] = table
            for entity in root.selfAndDescendants {
                let mapping = EntityMapping(entity: entity, number: assigned[entity.name]!, table: table)
                entities[entity.name] = mapping
                entityNames[mapping.number] = entity.name
                table.entityNumbers.append(mapping.number)
            }
        }
        for root in allRoots { mapColumns(root) }
        for root in allRoots {
            for entity in root.selfAndDescendants { mapToMany(entity) }
        }
    }

    /// `Z` and the upper-cased entity name.
    static func tableName(_ root: EntityDescription) -> String { "Z" + root.name.uppercased() }

    /// The mapping of an entity; the model is the schema's, so every entity has one.
    func mapping(_ entity: EntityDescription) -> EntityMapping { entities[entity.name]! }

    /// The entity numbers of an entity and its descendants.
    func numbers(ofKind entity: EntityDescription) -> [Int64] {
        entity.selfAndDescendants.compactMap { entities[$0.name]?.number }
    }

    /// Whether the file has a table (always true before the file was read).
    func hasTable(_ name: String) -> Bool {
        guard let existingTables else { return true }
        return existingTables.contains(name) || existingTables.contains(name.uppercased())
    }

    /// The tables the store creates: those of its held roots.
    var heldTables: [TableMapping] { heldRoots.map { tables[Self.tableName($0)]! } }

    // MARK: Columns

    private func mapColumns(_ root: EntityDescription) {
        let table = tables[Self.tableName(root)]!
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        func unique(_ base: String) -> String {
            var name = base
            var suffix = 1
            while used.contains(name) {
                name = base + String(suffix)
                suffix += 1
            }
            used.insert(name)
            return name
        }
        for entity in root.selfAndDescendants {
            let mapping = entities[entity.name]!
            if let parent = entity.superentity {
                let inherited = entities[parent.name]!
                mapping.attributes = inherited.attributes
                mapping.toOnes = inherited.toOnes
            }
            for property in entity.properties where !property.isTransient {
                switch property {
                case let attribute as AttributeDescription:
                    let column = AttributeColumn(name: unique("Z" + attribute.name.uppercased()), attribute: attribute)
                    mapping.attributes.append(column)
                    table.addColumn(column.name, type: column.kind.declaredType)
                case let relationship as RelationshipDescription where !relationship.isToMany:
                    let name = unique("Z" + relationship.name.uppercased())
                    table.addColumn(name, type: "INTEGER")
                    var entityColumn: String?
                    if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                        let number = entities[destination.name]!.number
                        entityColumn = unique("Z\(number)_" + relationship.name.uppercased())
                        table.addColumn(entityColumn!, type: "INTEGER")
                    }
                    var orderColumn: String?
                    if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                        orderColumn = unique("Z_FOK_" + relationship.name.uppercased())
                        table.addColumn(orderColumn!, type: "INTEGER")
                    }
                    mapping.toOnes.append(ToOneColumn(name: name, entityColumn: entityColumn, orderColumn: orderColumn,
                                                      relationship: relationship))
                    table.indexedColumns.append(name)
                default:
                    continue
                }
            }
        }
    }

    // MARK: To-many relationships

    private func mapToMany(_ entity: EntityDescription) {
        let mapping = entities[entity.name]!
        if let parent = entity.superentity { mapping.toManys = entities[parent.name]!.toManys }
        for case let relationship as RelationshipDescription in entity.properties
        where relationship.isToMany && !relationship.isTransient {
            guard let destination = relationship.destinationEntity else { continue }
            let destinationMapping = entities[destination.name]!
            if let inverse = relationship.inverseRelationship, !inverse.isToMany {
                guard let column = destinationMapping.toOnes.first(where: { $0.relationship === inverse }) else {
                    continue
                }
                mapping.toManys.append(ToManyMapping(
                    relationship: relationship, link: .foreignKey(table: destinationMapping.table, column: column)))
                continue
            }
            let join = joinTable(for: relationship, source: mapping, destination: destinationMapping)
            let isOwner = join.ownerRelationship === relationship
            mapping.toManys.append(ToManyMapping(relationship: relationship,
                                                 link: .join(join, isOwner: isOwner)))
        }
    }

    private func joinTable(for relationship: RelationshipDescription, source: EntityMapping,
                           destination: EntityMapping) -> JoinTableMapping {
        let inverse = relationship.inverseRelationship
        let owner: RelationshipDescription
        if let inverse {
            if relationship.isOrdered != inverse.isOrdered {
                owner = relationship.isOrdered ? relationship : inverse
            } else {
                let mine = (source.number, relationship.name)
                let theirs = (destination.number, inverse.name)
                owner = mine <= theirs ? relationship : inverse
            }
        } else {
            owner = relationship
        }
        let ownerMapping = owner === relationship ? source : destination
        let otherMapping = owner === relationship ? destination : source
        let name = "Z_\(ownerMapping.number)" + owner.name.uppercased()
        if let existing = joinTables[name] { return existing }
        let ownerInverseName = owner.inverseRelationship?.name.uppercased() ?? "SOURCE"
        let ownerColumn = "Z_\(ownerMapping.number)" + ownerInverseName
        var otherColumn = "Z_\(otherMapping.number)" + owner.name.uppercased()
        if otherColumn == ownerColumn { otherColumn += "1" }
        let join = JoinTableMapping(name: name, ownerRelationship: owner, ownerTable: ownerMapping.table,
                                    ownerColumn: ownerColumn, otherTable: otherMapping.table, otherColumn: otherColumn,
                                    orderColumn: owner.isOrdered ? "Z_FOK_" + otherColumn.dropFirst(2) : nil)
        joinTables[name] = join
        return join
    }
}
