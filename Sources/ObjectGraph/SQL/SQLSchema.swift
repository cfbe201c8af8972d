import Foundation

/// How a model maps onto Core Data's SQLite layout: entity numbers (`Z_ENT`), one table per inheritance root,
/// `Z`-prefixed columns, to-one foreign keys, join tables for many-to-many and inverse-less to-many
/// relationships, and `Z_FOK_` order columns for ordered relationships.
///
/// Entity numbers come from the file's `Z_PRIMARYKEY` when it has them; new entities are numbered as Core Data
/// numbers them: roots sorted by name, each followed depth-first by its sub-entities sorted by name.
package final class SQLSchema {
    /// The mapping of every entity, by name.
    package private(set) var entities: [String: SQLEntityMapping] = [:]
    /// The tables, by name.
    package private(set) var tables: [String: TableMapping] = [:]
    /// The join tables, by name.
    package private(set) var joinTables: [String: JoinTableMapping] = [:]
    /// Entity names by number.
    package private(set) var entityNames: [Int64: String] = [:]
    /// The tables the file has (upper-cased names); `nil` before the file was read.
    package var existingTables: Set<String>?
    /// The root entities the store holds (its configuration's entities and their whole hierarchies).
    package let heldRoots: [EntityDescription]

    /// Builds the mapping. `numbers` are the entity numbers already in the file (empty for a new file).
    package init(model: ManagedObjectModel, configurationName: String?, numbers: [String: Int64]) {
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
                let mapping = SQLEntityMapping(entity: entity, number: assigned[entity.name]!, table: table)
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
    package static func tableName(_ root: EntityDescription) -> String { "Z" + root.name.uppercased() }

    /// The mapping of an entity; the model is the schema's, so every entity has one.
    package func mapping(_ entity: EntityDescription) -> SQLEntityMapping { entities[entity.name]! }

    /// The entity numbers of an entity and its descendants.
    package func numbers(ofKind entity: EntityDescription) -> [Int64] {
        entity.selfAndDescendants.compactMap { entities[$0.name]?.number }
    }

    /// Whether the file has a table (always true before the file was read).
    package func hasTable(_ name: String) -> Bool {
        guard let existingTables else { return true }
        return existingTables.contains(name) || existingTables.contains(name.uppercased())
    }

    /// The tables the store creates: those of its held roots.
    package var heldTables: [TableMapping] { heldRoots.map { tables[Self.tableName($0)]! } }

    /// The join tables that touch a held table.
    package var heldJoinTables: [JoinTableMapping] {
        let held = Set(heldTables.map(\.name))
        return joinTables.values.filter { held.contains($0.ownerTable.name) || held.contains($0.otherTable.name) }
            .sorted { $0.name < $1.name }
    }

    /// The `CREATE INDEX` statements of a table: foreign keys, `Z_ENT` when the table hosts several entities,
    /// indexed attributes, the entities' fetch indexes and their uniqueness constraints.
    ///
    /// With `nullsFirst`, every column is ordered with NULLs first ascending (`NULLS FIRST`, `DESC NULLS LAST`), as
    /// sorts are: PostgreSQL can then read a sorted limit from the index (its default puts NULLs last).
    package func indexStatements(for table: TableMapping, nullsFirst: Bool = false) -> [String] {
        var statements: [String] = []
        func index(_ name: String, _ columns: [String]) {
            let ordered =
                !nullsFirst
                ? columns : columns.map { $0.hasSuffix(" DESC") ? $0 + " NULLS LAST" : $0 + " NULLS FIRST" }
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(quoted(name)) ON \(quoted(table.name)) ("
                    + ordered.joined(separator: ", ") + ")")
        }
        for column in table.indexedColumns { index("\(table.name)_\(column)_INDEX", [quoted(column)]) }
        if table.entityNumbers.count > 1 { index("\(table.name)_Z_ENT_INDEX", ["Z_ENT"]) }
        for entity in table.root.selfAndDescendants {
            let mapping = self.mapping(entity)
            for property in entity.properties where property.isIndexed && !property.isTransient {
                if let column = mapping.attribute(named: property.name)?.name {
                    index("\(table.name)_\(column)_INDEX", [quoted(column)])
                }
            }
            for fetchIndex in entity.indexes {
                let columns = fetchIndex.propertyNames.compactMap { name -> String? in
                    let column = mapping.attribute(named: name)?.name ?? mapping.toOne(named: name)?.name
                    return column.map { quoted($0) + (fetchIndex.descending.contains(name) ? " DESC" : "") }
                }
                guard columns.count == fetchIndex.propertyNames.count, !columns.isEmpty else { continue }
                index("Z_\(entity.name)_\(fetchIndex.name)", columns)
            }
            // Saves look up the saved objects sharing a new object's constrained values (not a UNIQUE index: the
            // coordinator checks, and resolves conflicts by the merge policy).
            for (number, constraint) in entity.uniquenessConstraints.enumerated() {
                let columns = constraint.compactMap { mapping.attribute(named: $0).map { quoted($0.name) } }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                index("Z_\(entity.name)_UNIQUENESS_\(number)", columns)
            }
        }
        return statements
    }

    /// The `Z_PRIMARYKEY` rows of the model's entities: number, name, superentity number.
    package var primaryKeyRows: [(number: Int64, name: String, superNumber: Int64)] {
        entities.values.map { mapping in
            (mapping.number, mapping.entity.name, mapping.entity.superentity.map { self.mapping($0).number } ?? 0)
        }.sorted { $0.number < $1.number }
    }

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
                case let composite as CompositeAttributeDescription:
                    // A column per element: `Z` + the path's names joined by `_`, upper-cased (ZMAGNITUDE_RICHTER).
                    for (path, element) in composite.leafElements {
                        let name = unique("Z" + ([composite.name] + path).joined(separator: "_").uppercased())
                        let column = AttributeColumn(
                            name: name, attribute: element, composite: composite, elementPath: path)
                        mapping.attributes.append(column)
                        table.addColumn(column.name, type: column.kind.declaredType)
                    }
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
                    mapping.toOnes.append(
                        ToOneColumn(
                            name: name, entityColumn: entityColumn, orderColumn: orderColumn,
                            relationship: relationship))
                    table.indexedColumns.append(name)
                default:
                    continue
                }
            }
        }
    }

    // MARK: Composite elements in a file's own columns

    /// Takes a file's own column for each element of a composite attribute that the file names otherwise than
    /// ``mapColumns(_:)`` does (`ZMAGNITUDE_RICHTER`): a column no other property claims whose name, without
    /// underscores and digits, is `Z` + the composite's and the element's names, or else `Z` + the element's name
    /// alone; only when exactly one column fits. Called once the tables' columns are known (a file written by another
    /// Core Data may name them its own way; none was at hand to check).
    package func adoptFileColumnsForCompositeElements() {
        func folded(_ name: String) -> String { name.uppercased().filter { $0 != "_" && !$0.isNumber } }
        for table in tables.values {
            guard let existing = table.existingColumns, !existing.isEmpty else { continue }
            let mappings = table.root.selfAndDescendants.compactMap { entities[$0.name] }
            // Every store open comes here: nothing is built for a table whose element columns are all found.
            guard mappings.contains(where: { $0.attributes.contains { $0.composite != nil && !table.has($0.name) } })
            else { continue }
            var claimed: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            for mapping in mappings {
                claimed.formUnion(mapping.attributes.map { $0.name.uppercased() })
                for toOne in mapping.toOnes {
                    let names = [toOne.name, toOne.entityColumn, toOne.orderColumn]
                    claimed.formUnion(names.compactMap { $0?.uppercased() })
                }
            }
            let unclaimed = existing.subtracting(claimed)
            guard !unclaimed.isEmpty else { continue }
            var renamed: [String: String] = [:]
            for mapping in mappings {
                for column in mapping.attributes where column.composite != nil && !table.has(column.name) {
                    guard renamed[column.name] == nil, let composite = column.composite else { continue }
                    let full = folded("Z" + composite.name + column.elementPath.joined())
                    let short = folded("Z" + (column.elementPath.last ?? ""))
                    let available = unclaimed.subtracting(renamed.values)
                    for wanted in [full, short] {
                        let fits = available.filter { folded($0) == wanted }
                        if fits.count == 1 {
                            renamed[column.name] = fits.first!
                            break
                        }
                    }
                }
            }
            guard !renamed.isEmpty else { continue }
            for mapping in mappings {
                mapping.attributes = mapping.attributes.map { column in
                    guard let name = renamed[column.name] else { return column }
                    return AttributeColumn(
                        name: name, attribute: column.attribute, composite: column.composite,
                        elementPath: column.elementPath)
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
                mapping.toManys.append(
                    ToManyMapping(
                        relationship: relationship, link: .foreignKey(table: destinationMapping.table, column: column)))
                continue
            }
            let join = joinTable(for: relationship, source: mapping, destination: destinationMapping)
            let isOwner = join.ownerRelationship === relationship
            mapping.toManys.append(
                ToManyMapping(
                    relationship: relationship,
                    link: .join(join, isOwner: isOwner)))
        }
    }

    private func joinTable(
        for relationship: RelationshipDescription, source: SQLEntityMapping,
        destination: SQLEntityMapping
    ) -> JoinTableMapping {
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
        let join = JoinTableMapping(
            name: name, ownerRelationship: owner, ownerTable: ownerMapping.table,
            ownerColumn: ownerColumn, otherTable: otherMapping.table, otherColumn: otherColumn,
            orderColumn: owner.isOrdered ? "Z_FOK_" + otherColumn.dropFirst(2) : nil)
        joinTables[name] = join
        return join
    }
}
