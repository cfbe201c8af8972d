import Foundation
import ObjectGraph

/// Decodes the archived `NSManagedObjectModel` of Core Data's model cache into entities.
enum ModelCacheDecoder {
    /// What a model cache holds beyond its entities.
    struct Model {
        var entities: [EntityDescription]
        /// The configurations (`NSConfigurations`) with their entities' names, sorted by name.
        var configurations: [(name: String, entityNames: [String])] = []
        /// `NSVersionIdentifiers`.
        var versionIdentifiers: Set<String> = []
    }

    static func entities(fromCompressed data: Data, url: URL) throws -> [EntityDescription] {
        try model(fromCompressed: data, url: url).entities
    }

    static func model(fromCompressed data: Data, url: URL) throws -> Model {
        guard let plist = RawInflate.inflate(data) ?? (data.starts(with: Array("bplist".utf8)) ? data : nil) else {
            throw StoreErrorFactory.corruptFile(url, "its model cache (Z_MODELCACHE) does not inflate")
        }
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: plist)
        } catch {
            throw StoreErrorFactory.corruptFile(url, "its model cache is not a keyed archive: \(error)")
        }
        guard let root = archive.object(archive.rootUID), root.className == "NSManagedObjectModel" else {
            throw StoreErrorFactory.corruptFile(url, "its model cache holds no NSManagedObjectModel")
        }
        var decoded: [(EntityDescription, KeyedArchive.Object)] = []
        for uid in archive.elementUIDs(of: archive.object(root, "NSEntities")) {
            guard let object = archive.object(uid), object.className == "NSEntityDescription",
                let name = archive.string(object, "NSEntityName")
            else { continue }
            let entity = EntityDescription(name: name)
            if let className = archive.string(object, "NSClassNameForEntity") {
                entity.managedObjectClassName = className
            }
            entity.isAbstract = archive.resolve(object.values["NSIsAbstract"])?.bool ?? false
            entity.renamingIdentifier = archive.string(object, "NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 }
            entity.versionHashModifier = archive.string(object, "NSVersionHashModifier")
            entity.userInfo = userInfo(object, archive: archive)
            decoded.append((entity, object))
        }
        let byUID = Dictionary(decoded.map { ($0.1.uid, $0.0) }, uniquingKeysWith: { first, _ in first })
        for (entity, object) in decoded {
            if let parent = object.values["NSSuperentity"]?.uid.flatMap({ byUID[$0] }) {
                parent.subentities.append(entity)
            }
            var properties: [PropertyDescription] = []
            for uid in archive.elementUIDs(of: archive.object(object, "NSProperties")) {
                guard let property = archive.object(uid) else { continue }
                // Sub-entities list inherited properties as proxies of their parent's.
                if let decodedProperty = self.property(property, archive: archive) {
                    properties.append(decodedProperty)
                }
            }
            entity.properties = properties.sorted { $0.name < $1.name }
        }
        // Fetch indexes once every entity has its properties: an index may name inherited ones.
        for (entity, object) in decoded {
            var known = Set<String>()
            var current: EntityDescription? = entity
            while let each = current {
                known.formUnion(each.properties.map(\.name))
                current = each.superentity
            }
            entity.indexes = fetchIndexes(object, archive: archive).filter { known.isSuperset(of: $0.propertyNames) }
            entity.uniquenessConstraints = uniquenessConstraints(object, archive: archive).filter {
                known.isSuperset(of: $0.map { $0.split(separator: ".").first.map(String.init) ?? $0 })
            }
        }
        var model = Model(entities: decoded.map(\.0).sorted { $0.name < $1.name })
        let names = Set(model.entities.map(\.name))
        for (name, uid) in archive.entries(of: archive.object(root, "NSConfigurations")) {
            let members = archive.elementUIDs(of: archive.object(uid)).compactMap { byUID[$0]?.name }
                .filter(names.contains)
            model.configurations.append((name, members))
        }
        model.configurations.sort { $0.name < $1.name }
        for uid in archive.elementUIDs(of: archive.object(root, "NSVersionIdentifiers")) {
            if let identifier = archive.string(archive.value(uid)) { model.versionIdentifiers.insert(identifier) }
        }
        return model
    }

    /// An entity's uniqueness constraints (`NSUniqueTuples`): lists of property names (knowledgeC's `Object` has
    /// `[[uuid]]`, `KeyValue` `[[domain, key]]`); a tuple with an entry that is not a name is left out.
    private static func uniquenessConstraints(_ object: KeyedArchive.Object, archive: KeyedArchive) -> [[String]] {
        archive.elementUIDs(of: archive.object(object, "NSUniqueTuples")).compactMap { uid in
            let names = archive.elementUIDs(of: archive.object(uid)).map { element -> String? in
                if let name = archive.string(archive.value(element)) { return name }
                return archive.object(element).flatMap { archive.string($0, "NSPropertyName") }
            }
            let found = names.compactMap { $0 }
            return found.isEmpty || found.count != names.count ? nil : found
        }
    }

    private static func property(_ object: KeyedArchive.Object, archive: KeyedArchive) -> PropertyDescription? {
        guard let name = archive.string(object, "NSPropertyName") else { return nil }
        // Core Data's coder packs the flags into `_P` (2 optional, 8 transient, 0x400 ordered; bit 0 marks the
        // key) and writes the separate keys only when true: an absent NSIsOptional is a mandatory property (both
        // real caches agree, on every property).
        let packed = archive.resolve(object.values["_P"])?.integer ?? 0
        func flag(_ key: String, _ bit: Int64) -> Bool {
            packed != 0 ? packed & bit != 0 : archive.resolve(object.values[key])?.bool ?? false
        }
        let isOptional = flag("NSIsOptional", 0x2)
        let isTransient = flag("NSIsTransient", 0x8)
        let described: PropertyDescription
        switch object.className {
        // A derived attribute's derivation: ObjectGraph's caches keep its format string, Core Data's an archived
        // `NSExpression` under `NSDerivationExpression` (its coder's key). One this reader cannot decode leaves the
        // plain attribute its stored values fill: the store is still read.
        case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            let type = AttributeType(coreDataCode: archive.resolve(object.values["NSAttributeType"])?.integer ?? 0)
            let attribute: AttributeDescription
            if object.className == "NSCompositeAttributeDescription" || type == .composite {
                attribute = CompositeAttributeDescription(
                    name: name, elements: compositeElements(object, archive: archive), isOptional: isOptional)
            } else if let expression = derivation(object, archive: archive) {
                attribute = DerivedAttributeDescription(name: name, type: type, derivationExpression: expression)
                attribute.isOptional = isOptional
            } else {
                attribute = AttributeDescription(name: name, type: type, isOptional: isOptional)
            }
            attribute.valueTransformerName = archive.string(object, "NSValueTransformerName")
            attribute.attributeValueClassName = archive.string(object, "NSAttributeValueClassName")
            let flags = archive.resolve(object.values[ModelCacheEncoder.attributeFlagsKey])?.integer ?? 0
            attribute.allowsExternalBinaryDataStorage = flags & ModelCacheEncoder.externalStorageFlag != 0
            attribute.preservesValueInHistoryOnDeletion = flags & ModelCacheEncoder.preservesValueFlag != 0
            if let value = defaultValue(object, archive: archive) {
                attribute.defaultValue = attribute.attributeType.coerce(value)
            }
            described = attribute
        case "NSRelationshipDescription":
            guard
                let destination = archive.string(object, "_NSDestinationEntityName")
                    ?? archive.object(object, "NSDestinationEntity").flatMap({ archive.string($0, "NSEntityName") })
            else { return nil }
            let maxCount = archive.resolve(object.values["NSMaxCount"])?.integer ?? 1
            let inverse =
                archive.string(object, "_NSInverseRelationshipName")
                ?? archive.object(object, "NSInverseRelationship").flatMap { archive.string($0, "NSPropertyName") }
            let ruleCode = archive.resolve(object.values["NSDeleteRule"])?.integer ?? 1
            let rule = deleteRuleCodes.first { $0.code == ruleCode }?.rule ?? .nullify
            let relationship = RelationshipDescription(
                name: name, destination: destination, inverse: inverse, toMany: maxCount != 1, deleteRule: rule,
                isOptional: isOptional, isOrdered: flag("NSIsOrdered", 0x400))
            relationship.minCount = Int(archive.resolve(object.values["NSMinCount"])?.integer ?? 0)
            relationship.maxCount = Int(maxCount)
            described = relationship
        default:
            return nil  // fetched properties, proxies of inherited properties
        }
        described.isTransient = isTransient
        described.isIndexed = archive.resolve(object.values["NSIsIndexed"])?.bool ?? false
        described.userInfo = userInfo(object, archive: archive)
        if let renamed = archive.string(object, "NSRenamingIdentifier"), renamed != name {
            described.renamingIdentifier = renamed
        }
        if let modifier = archive.string(object, "NSVersionHashModifier"), !modifier.isEmpty {
            described.versionHashModifier = modifier
        }
        return described
    }

    /// A derived attribute's derivation: the format string of ObjectGraph's caches, else Core Data's archived
    /// expression, whose `count:(path)` and `sum:(path)` (what Core Data makes of `path.@count` and `path.@sum`) are
    /// read back as those key paths. `nil` for a plain attribute, or a derivation this reader cannot decode.
    private static func derivation(_ object: KeyedArchive.Object, archive: KeyedArchive) -> ObjectExpression? {
        if let format = archive.string(object, ModelCacheEncoder.derivationKey) {
            return try? ObjectExpression(format: format)
        }
        guard let uid = archive.object(object, "NSDerivationExpression")?.uid,
            let expression = try? ObjectExpression(archivedObject: uid, in: archive)
        else { return nil }
        return DerivedAttributeDescription.keyPathForm(of: expression)
    }

    /// The key under which Core Data's coder (and ObjectGraph's caches since) archive a composite's elements.
    static let compositeElementsKey = "NSCompositeElements"
    /// The key ObjectGraph's caches used before they used Core Data's.
    static let earlierCompositeElementsKey = "NSElements"

    /// A composite attribute's elements, under Core Data's ``compositeElementsKey`` or the key ObjectGraph's caches
    /// used before; for an archive that names them otherwise, the first array of the object whose entries all
    /// decode as attributes is taken.
    private static func compositeElements(_ object: KeyedArchive.Object, archive: KeyedArchive)
        -> [AttributeDescription]
    {
        func attributes(_ value: PropertyListValue?) -> [AttributeDescription]? {
            let uids = archive.elementUIDs(of: value?.uid.flatMap { archive.object($0) })
            guard !uids.isEmpty else { return nil }
            let decoded = uids.compactMap { archive.object($0).flatMap { property($0, archive: archive) } }
            let elements = decoded.compactMap { $0 as? AttributeDescription }
            return elements.count == uids.count ? elements : nil
        }
        for key in [compositeElementsKey, earlierCompositeElementsKey] {
            if let elements = attributes(object.values[key]) { return elements }
        }
        for key in object.values.keys.sorted() where key != "NSEntity" {
            if let elements = attributes(object.values[key]) { return elements }
        }
        return []
    }

    /// An entity's fetch indexes (`NSFetchIndexDescriptions`): each one's name and elements in order, descending
    /// where an element is not ascending. R-tree indexes (element type 1), which SQL indexes cannot be, are left
    /// out, as are partial indexes' predicates (the index then covers every row).
    private static func fetchIndexes(_ object: KeyedArchive.Object, archive: KeyedArchive) -> [FetchIndexDescription] {
        archive.elementUIDs(of: archive.object(object, "NSFetchIndexDescriptions")).compactMap { uid in
            guard let index = archive.object(uid), let name = archive.string(index, "NSIndexName") else { return nil }
            var names: [String] = []
            var descending = Set<String>()
            for elementUID in archive.elementUIDs(of: archive.object(index, "NSIndexElements")) {
                guard let element = archive.object(elementUID),
                    let property = archive.string(element, "NSPropertyName"),
                    (archive.resolve(element.values["NSFetchIndexElementType"])?.integer ?? 0) == 0
                else { return nil }
                names.append(property)
                if archive.resolve(element.values["NSAscending"])?.bool == false { descending.insert(property) }
            }
            return names.isEmpty ? nil : FetchIndexDescription(name: name, propertyNames: names, descending: descending)
        }
    }

    /// The string entries of an object's user info (`NSUserInfo`); values of other kinds are left out.
    private static func userInfo(_ object: KeyedArchive.Object, archive: KeyedArchive) -> [String: String] {
        var info: [String: String] = [:]
        for (key, uid) in archive.entries(of: archive.object(object, "NSUserInfo")) {
            if let value = archive.string(archive.value(uid)) { info[key] = value }
        }
        return info
    }

    /// An attribute's default value (`NSDefaultValue`): a number or a flag as it is, a string, a date (`NS.time`)
    /// or data; `nil` for none (`$null`) and for kinds it does not read.
    private static func defaultValue(_ object: KeyedArchive.Object, archive: KeyedArchive) -> Any? {
        switch archive.resolve(object.values["NSDefaultValue"]) {
        case .integer(let number)?: return Int(exactly: number)
        case .real(let number)?: return number
        case .bool(let flag)?: return flag
        case .date(let date)?: return date
        case .data(let data)?: return data
        case .dictionary(let inner)?:
            if case .real(let seconds)? = archive.resolve(inner["NS.time"]) {
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
            if case .data(let data)? = archive.resolve(inner["NS.data"]) { return data }
            return archive.string(.dictionary(inner))
        case let value?:
            return archive.string(value)
        case nil:
            return nil
        }
    }

    /// Core Data's `NSDeleteRule` codes, both ways.
    static let deleteRuleCodes: [(code: Int64, rule: RelationshipDescription.DeleteRule)] = [
        (0, .noAction), (1, .nullify), (2, .cascade), (3, .deny),
    ]

}
