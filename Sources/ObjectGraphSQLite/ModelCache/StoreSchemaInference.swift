import Foundation
import ObjectGraph

/// Infers entities from the tables of a Core Data SQLite store that has no model cache.
///
/// - **Entities** come from `Z_PRIMARYKEY` (name, number, parent). Every column of a root entity's table is
///   declared on the root entity (its subentities inherit it), named after the column, lower-cased, without the
///   `Z`.
/// - **To-one relationships** are integer columns holding another row's `Z_PK`:
///   - a column `ZNAME` beside an entity column `Z6_NAME` (or `Z6NAME`, older stores), which Core Data adds when the
///     destination has subentities: the destination is entity 6;
///   - an indexed integer column (Core Data indexes every to-one's column) whose name is an entity's name (`ZFOLDER`
///     for Folder) or ends with one (`ZTRASHFOLDER` for Folder when there is no TrashFolder);
///   - an indexed integer column named after no entity, when an entity that points back with a to-one of its own
///     ends its name like the column, by at least four letters and more than any other (`ZBODY` for NoteBody,
///     whose `ZNOTE` points at Note).
/// - **To-many relationships** are the inverses of to-ones: the destination gets one named after the source entity
///   (`notes` for Note's `folder`), followed by `By` and the to-one's name when that is not the destination's name
///   (`foldersByTrashaccount`). Two entities that point at each other with exactly one to-one each are a
///   one-to-one pair, inverses of each other.
/// - **Many-to-many relationships** come from join tables `Z_4EVENT` with columns `Z_4CUSTOMMETADATA` and `Z_11EVENT`:
///   entity 4's `event` and entity 11's `custommetadata`, inverses of each other (ordered when the table has a
///   `Z_FOK_` column).
///
/// Other columns are attributes typed from their declared SQL type. Everything inferred carries
/// `userInfo["ObjectGraphInferred"] = "YES"`.
enum StoreSchemaInference {
    static let inferredKey = "ObjectGraphInferred"

    private struct ToOne {
        var source: EntityDescription
        var name: String
        var destination: EntityDescription
        var relationship: RelationshipDescription
    }

    static func entities(from inspection: StoreFileInspection) -> [EntityDescription] {
        var entities: [Int64: EntityDescription] = [:]
        for row in inspection.entities {
            let entity = EntityDescription(name: row.name)
            entity.userInfo = [inferredKey: "YES"]
            entities[row.number] = entity
        }
        for row in inspection.entities {
            if row.parent != 0, let parent = entities[row.parent], let entity = entities[row.number] {
                parent.subentities.append(entity)
            }
        }
        let byUpperName = Dictionary(
            inspection.entities.compactMap { row in entities[row.number].map { (row.name.uppercased(), $0) } },
            uniquingKeysWith: { first, _ in first })
        let tables = Dictionary(
            inspection.tables.map { ($0.name.uppercased(), $0) },
            uniquingKeysWith: { first, _ in first })

        var toOnes: [ToOne] = []
        var undecided: [(entity: EntityDescription, name: String, upperName: String, position: Int)] = []
        var propertiesByEntity: [ObjectIdentifier: [PropertyDescription]] = [:]
        for row in inspection.entities where row.parent == 0 || entities[row.parent] == nil {
            guard let entity = entities[row.number], let table = tables["Z" + row.name.uppercased()] else { continue }
            let columns = Set(table.columns.map { $0.name.uppercased() })
            // Entity columns (`Z6_FOLDER` beside `ZFOLDER`): the destination of the to-one beside them.
            var companionDestinations: [String: EntityDescription] = [:]
            var companions: Set<String> = []
            for column in columns {
                guard let (number, rest) = numbered(column, prefix: "Z"), columns.contains("Z" + rest),
                    let destination = entities[number]
                else { continue }
                companionDestinations["Z" + rest] = destination
                companions.insert(column)
            }
            var properties: [PropertyDescription] = []
            for column in table.columns {
                let upper = column.name.uppercased()
                guard upper.hasPrefix("Z"), !upper.hasPrefix("Z_"), upper != "ZPK", !companions.contains(upper) else {
                    continue
                }
                let name = String(column.name.dropFirst()).lowercased()
                let isIndexed = inspection.indexedColumns.contains("\(table.name.uppercased()).\(upper)")
                let isKeyLike = isIndexed && column.type.contains("INT")
                let destination =
                    companionDestinations[upper]
                    ?? (isKeyLike ? destinationNamed(String(upper.dropFirst()), in: byUpperName) : nil)
                if destination == nil, isKeyLike {
                    // Perhaps one side of a one-to-one (`ZBODY`): decided once every other to-one is known.
                    undecided.append((entity, name, String(upper.dropFirst()), properties.count))
                }
                if let destination {
                    let relationship = inferred(RelationshipDescription(name: name, destination: destination.name))
                    properties.append(relationship)
                    toOnes.append(
                        ToOne(source: entity, name: name, destination: destination, relationship: relationship))
                } else {
                    properties.append(inferred(AttributeDescription(name: name, type: type(of: column.type))))
                }
            }
            propertiesByEntity[ObjectIdentifier(entity)] = properties
        }

        // An indexed integer column named after no entity is a to-one to an entity that points back at its own
        // (NoteBody's `ZNOTE` for Note's `ZBODY`, EventScene's `ZWITHEVENT` for Event's `ZHASSCENE`), when one such
        // entity's name ends like the column's, by at least four letters, more than any other's does.
        let strongToOnes = toOnes
        for column in undecided {
            let scored = byUpperName.compactMap { name, entity -> (score: Int, entity: EntityDescription)? in
                let pointsBack = strongToOnes.contains {
                    $0.source.rootEntity === entity.rootEntity && $0.destination.rootEntity === column.entity.rootEntity
                }
                let score = commonSuffixLength(name, column.upperName)
                return pointsBack && score >= 4 ? (score, entity) : nil
            }
            guard let best = scored.max(by: { $0.score < $1.score }),
                scored.filter({ $0.score == best.score }).count == 1
            else { continue }
            let destination = best.entity
            let relationship = inferred(RelationshipDescription(name: column.name, destination: destination.name))
            propertiesByEntity[ObjectIdentifier(column.entity)]?[column.position] = relationship
            toOnes.append(
                ToOne(source: column.entity, name: column.name, destination: destination, relationship: relationship))
        }
        func add(_ property: PropertyDescription, to entity: EntityDescription) {
            propertiesByEntity[ObjectIdentifier(entity), default: []].append(property)
        }
        func uniqueName(_ base: String, on entity: EntityDescription) -> String {
            // Names of the entity's tree: a subentity's property must not repeat one of its root's.
            let taken = Set(
                [entity.rootEntity].flatMap(\.selfAndDescendants).flatMap {
                    propertiesByEntity[ObjectIdentifier($0)] ?? []
                }
                .map(\.name))
            var name = base
            var suffix = 2
            while taken.contains(name) {
                name = "\(base)\(suffix)"
                suffix += 1
            }
            return name
        }

        // Inverses of the to-ones: a one-to-one pair, else a to-many on the destination.
        let treesPointedAt = Dictionary(grouping: toOnes.indices) {
            TreePair(
                from: ObjectIdentifier(toOnes[$0].source.rootEntity),
                to: ObjectIdentifier(toOnes[$0].destination.rootEntity))
        }
        var paired: Set<Int> = []
        for index in toOnes.indices where !paired.contains(index) {
            let toOne = toOnes[index]
            let forward = TreePair(
                from: ObjectIdentifier(toOne.source.rootEntity), to: ObjectIdentifier(toOne.destination.rootEntity))
            let backward = TreePair(from: forward.to, to: forward.from)
            if forward.from != forward.to, treesPointedAt[forward]?.count == 1, let back = treesPointedAt[backward],
                back.count == 1, let other = back.first
            {
                toOne.relationship.inverseName = toOnes[other].name
                toOnes[other].relationship.inverseName = toOne.name
                paired.formUnion([index, other])
                continue
            }
            let sourceName = lowerFirst(toOne.source.name)
            let base =
                toOne.name == toOne.destination.name.lowercased()
                ? sourceName + "s" : sourceName + "sBy" + upperFirst(toOne.name)
            let name = uniqueName(base, on: toOne.destination)
            toOne.relationship.inverseName = name
            add(
                inferred(
                    RelationshipDescription(
                        name: name, destination: toOne.source.name, inverse: toOne.name, toMany: true)),
                to: toOne.destination)
        }

        // Many-to-many join tables.
        for table in inspection.tables {
            let upper = table.name.uppercased()
            guard let (ownerNumber, relationshipName) = numbered(upper, prefix: "Z_"),
                let owner = entities[ownerNumber]
            else { continue }
            let columns = table.columns.map { $0.name.uppercased() }.filter { !$0.hasPrefix("Z_FOK_") }
            guard columns.count == 2 else { continue }
            let parsed = columns.compactMap { numbered($0, prefix: "Z_") }
            guard parsed.count == 2 else { continue }
            // The other side's column is named after the relationship (`Z_11EVENT`), the owner's after its inverse.
            let otherIndex =
                parsed.firstIndex { $0.rest == relationshipName || $0.rest == relationshipName + "1" } ?? 1
            let ownerColumn = parsed[1 - otherIndex]
            guard ownerColumn.number == ownerNumber, let other = entities[parsed[otherIndex].number] else { continue }
            let isOrdered = table.columns.contains { $0.name.uppercased().hasPrefix("Z_FOK_") }
            let forwardName = uniqueName(relationshipName.lowercased(), on: owner)
            let backwardName = uniqueName(ownerColumn.rest.lowercased(), on: other)
            let forward = RelationshipDescription(
                name: forwardName, destination: other.name, inverse: backwardName, toMany: true, isOrdered: isOrdered)
            add(inferred(forward), to: owner)
            let backward = RelationshipDescription(
                name: backwardName, destination: owner.name, inverse: forwardName, toMany: true)
            add(inferred(backward), to: other)
        }

        for row in inspection.entities {
            guard let entity = entities[row.number] else { continue }
            entity.properties = propertiesByEntity[ObjectIdentifier(entity)] ?? []
        }
        return inspection.entities.compactMap { entities[$0.number] }
    }

    /// A property marked as inferred (`userInfo["ObjectGraphInferred"] = "YES"`).
    private static func inferred<Property: PropertyDescription>(_ property: Property) -> Property {
        property.userInfo = [inferredKey: "YES"]
        return property
    }

    private struct TreePair: Hashable {
        var from: ObjectIdentifier
        var to: ObjectIdentifier
    }

    /// `Z6_FOLDER`, `Z6FOLDER` (prefix `Z`) or `Z_4EVENT` (prefix `Z_`) as the number and what follows it.
    private static func numbered(_ name: String, prefix: String) -> (number: Int64, rest: String)? {
        guard name.hasPrefix(prefix) else { return nil }
        let afterPrefix = name.dropFirst(prefix.count)
        let digits = afterPrefix.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits) else { return nil }
        var rest = afterPrefix.dropFirst(digits.count)
        if prefix == "Z", rest.hasPrefix("_") { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        return (number, String(rest))
    }

    /// The entity a to-one column's name points at: the entity of that name, else the entity with the longest name
    /// that ends the column's (`ROOTFOLDER`: Folder).
    private static func destinationNamed(_ name: String, in byUpperName: [String: EntityDescription])
        -> EntityDescription?
    {
        if let exact = byUpperName[name] { return exact }
        return byUpperName.filter { name.hasSuffix($0.key) }.max { $0.key.count < $1.key.count }?.value
    }

    private static func commonSuffixLength(_ left: String, _ right: String) -> Int {
        zip(left.reversed(), right.reversed()).prefix { $0 == $1 }.count
    }

    private static func lowerFirst(_ name: String) -> String { name.prefix(1).lowercased() + name.dropFirst() }
    private static func upperFirst(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }

    private static func type(of declared: String) -> AttributeType {
        switch declared {
        case "INTEGER": .integer64
        case "FLOAT", "REAL", "DOUBLE": .double
        case "TIMESTAMP": .date
        case "BLOB": .binaryData
        case "VARCHAR", "TEXT": .string
        default: declared.contains("INT") ? .integer64 : declared.contains("CHAR") ? .string : .binaryData
        }
    }
}
