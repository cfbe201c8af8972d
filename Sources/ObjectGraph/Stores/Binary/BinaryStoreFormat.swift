import Foundation

/// The binary store's file format, version 1. All integers are little-endian; `varint` is unsigned LEB128 and
/// `zigzag` a signed varint.
///
/// ```
/// magic        8 bytes  "OGBSTORE"
/// version      u16      1
/// flags        u16      0
/// body         …        (below)
/// checksum     u64      FNV-1a 64 of every byte before it
///
/// body:
/// metadata     value    a dictionary (the store's metadata, with its UUID and model hashes)
/// nextKey      zigzag   the next unused reference key
/// entities     varint count, then per entity: name (string), property count, property names (strings)
/// objects      varint count, then per object:
///                entity index (varint), reference key (zigzag), version (zigzag),
///                value count (varint), then per value: property index (varint), value
/// value        a tag byte then: 0 nil; 1 integer (zigzag); 2 double (8 bytes); 3 float (8 bytes, as double);
///              4 decimal (string); 5 string; 6 true; 7 false; 8 date (double, seconds since 2001-01-01);
///              9 data (bytes); 10 UUID (16 bytes); 11 URL (string); 12 object ID (entity index, key);
///              13 object IDs (count, then entity index and key each); 14 array (count, values);
///              15 dictionary (count, then key string and value each); 16 undecoded transformable (the bytes,
///              then the archive's root class name as a string, empty for none: see `UndecodedTransformable`)
/// string/bytes varint length, then the bytes (strings are UTF-8)
/// ```
///
/// Readers reject a wrong magic as a foreign file, a newer version, a bad checksum, and any count or length that
/// runs past the end, with ``StoreError/Code/corruptFile``; they never read outside the buffer.
enum BinaryStoreFormat {
    static let magic: [UInt8] = Array("OGBSTORE".utf8)
    static let version: UInt16 = 1
    static let maximumNesting = 32

    enum Tag: UInt8 {
        case null = 0, integer, double, float, decimal, string, isTrue, isFalse, date, data, uuid, url, objectID
        case objectIDs, array, dictionary, undecodedTransformable
    }

    // MARK: Writing

    static func encode(records: [StoreRecord], metadata: StoreMetadata, nextKey: Int64, model: ManagedObjectModel,
                       url: URL?) throws -> Data {
        var writer = BinaryWriter(capacity: max(1 << 16, records.count * 128))
        writer.bytes.append(contentsOf: magic)
        writer.u16(version)
        writer.u16(0)
        let names = Set(model.entities.map(\.name)).union(records.map(\.objectID.entityName)).sorted()
        var entityIndex: [String: Int] = [:]
        var propertyNames: [[String]] = []
        for (position, name) in names.enumerated() {
            entityIndex[name] = position
            let properties = model.entitiesByName[name]?.allProperties.map(\.name)
                ?? Set(records.filter { $0.objectID.entityName == name }.flatMap(\.values.keys)).sorted()
            propertyNames.append(properties)
        }
        let entityNames = names
        try writeValue(metadata.values, into: &writer, entityIndex: entityIndex, depth: 0, url: url)
        writer.zigzag(nextKey)
        writer.varint(UInt64(entityNames.count))
        for (index, name) in entityNames.enumerated() {
            writer.string(name)
            writer.varint(UInt64(propertyNames[index].count))
            for property in propertyNames[index] { writer.string(property) }
        }
        writer.varint(UInt64(records.count))
        for record in records {
            let name = record.objectID.entityName
            let position = entityIndex[name]!
            writer.varint(UInt64(position))
            writer.zigzag(record.objectID.referenceKey)
            writer.zigzag(record.version)
            let names = propertyNames[position]
            var present = 0
            for key in names where record[key] != nil { present += 1 }
            writer.varint(UInt64(present))
            for (index, key) in names.enumerated() {
                guard let value = record[key] else { continue }
                writer.varint(UInt64(index))
                try writeValue(value, into: &writer, entityIndex: entityIndex, depth: 0, url: url)
            }
        }
        let checksum = writer.bytes.withUnsafeBytes { FNV1a.hash($0) }
        writer.u64(checksum)
        return Data(writer.bytes)
    }

    private static func writeValue(_ value: Any?, into writer: inout BinaryWriter, entityIndex: [String: Int],
                                   depth: Int, url: URL?) throws {
        guard depth < maximumNesting else { throw unencodable("values nest too deeply", url) }
        switch value {
        case nil: writer.u8(Tag.null.rawValue)
        // The common kinds first: every failed cast of an existential costs a dynamic lookup.
        case let v as String: writer.u8(Tag.string.rawValue); writer.string(v)
        case let v as Int: writer.u8(Tag.integer.rawValue); writer.zigzag(Int64(v))
        case let v as Date: writer.u8(Tag.date.rawValue); writer.f64(v.timeIntervalSinceReferenceDate)
        case let v as Double: writer.u8(Tag.double.rawValue); writer.f64(v)
        case let v as ManagedObjectID:
            writer.u8(Tag.objectID.rawValue)
            try writeID(v, into: &writer, entityIndex: entityIndex, url: url)
        case let v as [ManagedObjectID]:
            writer.u8(Tag.objectIDs.rawValue)
            writer.varint(UInt64(v.count))
            for id in v { try writeID(id, into: &writer, entityIndex: entityIndex, url: url) }
        case let v as Bool: writer.u8(v ? Tag.isTrue.rawValue : Tag.isFalse.rawValue)
        case let v as Data: writer.u8(Tag.data.rawValue); writer.raw(v)
        case let v as Int64: writer.u8(Tag.integer.rawValue); writer.zigzag(v)
        case let v as Int32: writer.u8(Tag.integer.rawValue); writer.zigzag(Int64(v))
        case let v as Int16: writer.u8(Tag.integer.rawValue); writer.zigzag(Int64(v))
        case let v as Float: writer.u8(Tag.float.rawValue); writer.f64(Double(v))
        case let v as Decimal: writer.u8(Tag.decimal.rawValue); writer.string(v.description)
        case let v as UUID:
            writer.u8(Tag.uuid.rawValue)
            withUnsafeBytes(of: v.uuid) { writer.bytes.append(contentsOf: $0) }
        case let v as URL: writer.u8(Tag.url.rawValue); writer.string(v.absoluteString)
        case let v as UndecodedTransformable:
            // Kept as the bytes a Core Data store held (an app's own archived classes): written back unchanged.
            writer.u8(Tag.undecodedTransformable.rawValue)
            writer.raw(v.data)
            writer.string(v.rootClassName ?? "")
        case let v as [String: Data]:
            writer.u8(Tag.dictionary.rawValue)
            writer.varint(UInt64(v.count))
            for key in v.keys.sorted() {
                writer.string(key)
                writer.u8(Tag.data.rawValue)
                writer.raw(v[key]!)
            }
        case let v as [String: any Sendable]:
            writer.u8(Tag.dictionary.rawValue)
            writer.varint(UInt64(v.count))
            for key in v.keys.sorted() {
                writer.string(key)
                try writeValue(v[key], into: &writer, entityIndex: entityIndex, depth: depth + 1, url: url)
            }
        case let v as [Any]:
            writer.u8(Tag.array.rawValue)
            writer.varint(UInt64(v.count))
            for element in v {
                try writeValue(element, into: &writer, entityIndex: entityIndex, depth: depth + 1, url: url)
            }
        case let .some(other):
            throw unencodable("a \(type(of: other)) value cannot be stored in a binary store", url)
        }
    }

    private static func writeID(_ id: ManagedObjectID, into writer: inout BinaryWriter, entityIndex: [String: Int],
                                url: URL?) throws {
        guard let index = entityIndex[id.entityName] else {
            throw unencodable("a relationship points at entity \(id.entityName), which the model lacks", url)
        }
        writer.varint(UInt64(index))
        writer.zigzag(id.referenceKey)
    }

    private static func unencodable(_ what: String, _ url: URL?) -> StoreError {
        StoreError(code: .io, message: "Cannot write the binary store: \(what).", context: ErrorContext(storeURL: url))
    }

    // MARK: Reading

    struct Header {
        var metadata: StoreMetadata
        var bodyOffset: Int
    }

    /// Checks magic, version and checksum and reads the metadata.
    static func readHeader(_ bytes: UnsafeRawBufferPointer, url: URL?) throws -> Header {
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            throw StoreError(code: .foreignFile, message: "The file is not an ObjectGraph binary store (wrong magic).",
                             context: ErrorContext(storeURL: url))
        }
        guard bytes.count >= magic.count + 4 + 8 else {
            throw StoreError(code: .corruptFile, message: "The binary store is truncated.",
                             context: ErrorContext(storeURL: url))
        }
        var reader = BinaryReader(bytes, offset: magic.count, url: url)
        let version = try reader.u16()
        guard version == Self.version else {
            throw StoreError(code: .corruptFile,
                             message: "The binary store has format version \(version); this build reads version "
                                + "\(Self.version). Open it with a newer Almanac.",
                             context: ErrorContext(storeURL: url))
        }
        _ = try reader.u16()
        let bodyEnd = bytes.count - 8
        let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bodyEnd, as: UInt64.self))
        guard FNV1a.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<bodyEnd])) == stored else {
            throw StoreError(code: .corruptFile,
                             message: "The binary store's checksum does not match: the file is damaged or truncated.",
                             context: ErrorContext(storeURL: url))
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[0..<bodyEnd])
        var bodyReader = BinaryReader(body, offset: reader.offset, url: url)
        guard case let metadata as [String: any Sendable] = try readValue(&bodyReader, ids: [], depth: 0) else {
            throw bodyReader.corrupt("the metadata is not a dictionary")
        }
        return Header(metadata: StoreMetadata(metadata), bodyOffset: bodyReader.offset)
    }

    /// Reads every record after the header, checking each against the entities of the store's configuration.
    ///
    /// - Throws: ``StoreError/Code/corruptFile`` for a malformed body, an attribute value that is not of the
    ///   attribute's type, a relationship value that is not an object ID (to-one) or a list of them (to-many) of the
    ///   destination entity; ``StoreError/Code/incompatibleModel`` for an object of an entity the configuration
    ///   lacks and, unless `ignoresUnknownProperties`, a value of a property the entity lacks (skipped otherwise).
    static func readRecords(_ bytes: UnsafeRawBufferPointer, header: Header, storeIdentifier: String,
                            modelEntities: [EntityDescription], ignoresUnknownProperties: Bool,
                            url: URL?) throws -> (records: [StoreRecord], nextKey: Int64) {
        let body = UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 8)])
        var reader = BinaryReader(body, offset: header.bodyOffset, url: url)
        let nextKey = try reader.zigzag()
        let entityCount = try reader.count()
        var table: [(name: String, properties: [String])] = []
        table.reserveCapacity(entityCount)
        for _ in 0..<entityCount {
            let name = try reader.string()
            let propertyCount = try reader.count()
            var properties: [String] = []
            properties.reserveCapacity(propertyCount)
            for _ in 0..<propertyCount { properties.append(try reader.string()) }
            table.append((name, properties))
        }
        let schema = BinaryStoreSchema(table: table, modelEntities: modelEntities)
        // One ID per entity of the file, made (and its names looked up) once: every object and every reference
        // to one takes it with its own key. Making each from the names took a lock and compared the names again
        // (5% of loading a binary store).
        let prototypes = table.map {
            ManagedObjectID(entityName: $0.name, storeIdentifier: storeIdentifier, referenceKey: 0)
        }
        let objectCount = try reader.count(minimumSize: 4)
        var records: [StoreRecord] = []
        records.reserveCapacity(objectCount)
        // Records are laid out by their entity's record keys (the layout a context's objects read by position, and
        // an entity with attributes only shares as its slots), each file property at its key's position: a record
        // kept as a dictionary was filled into its object by looking up every property's name.
        let layouts: [(keys: RecordKeys, positions: [Int])?] = schema.entities.map { entity in
            guard let keys = entity.description?.recordKeys else { return nil }
            return (keys, entity.propertyNames.map { keys.position(of: $0) ?? -1 })
        }
        for _ in 0..<objectCount {
            let entityIndex = try reader.index(below: schema.entities.count, "an object names an unknown entity")
            let entity = schema.entities[entityIndex]
            guard entity.description != nil else {
                throw StoreError(code: .incompatibleModel,
                                 message: "The binary store holds objects of entity '\(entity.name)', which the model "
                                    + "or the store's configuration lacks; open it with the model that wrote it.",
                                 context: ErrorContext(entityName: entity.name, storeURL: url))
            }
            let key = try reader.zigzag()
            let version = try reader.zigzag()
            let valueCount = try reader.count(minimumSize: 2)
            let layout = layouts[entityIndex]
            // Appended nils, not `Array(repeating:count:)`, which copies its element through the existential's
            // witness (7% of reading the records).
            var row = [(any Sendable)?].nils(count: layout?.keys.names.count ?? 0)
            // Values of properties the layout has no key for (none unless the model changed): a dictionary instead.
            var values: [String: any Sendable]?
            func keep(_ value: any Sendable, property: Int, name: String) {
                if values == nil, let position = layout?.positions[property], position >= 0 {
                    row[position] = value
                    return
                }
                if values == nil {
                    values = [:]
                    if let layout {
                        for (position, name) in layout.keys.names.enumerated() where row[position] != nil {
                            values![name] = row[position]
                        }
                    }
                }
                values![name] = value
            }
            for _ in 0..<valueCount {
                let property = try reader.index(below: entity.slots.count, "a value names an unknown property")
                let name = entity.propertyNames[property]
                let raw = try reader.peek()
                guard let tag = Tag(rawValue: raw) else { throw reader.corrupt("unknown value tag \(raw)") }
                guard let value = try readValue(&reader, ids: prototypes, depth: 0) else {
                    continue
                }
                switch entity.slots[property] {
                case .attribute(let type):
                    guard let value = BinaryStoreSchema.attributeValue(value, tag: tag, type: type) else {
                        throw reader.corrupt("attribute '\(name)' of \(entity.name) holds a value that is not "
                                                + "of type \(type.rawValue)")
                    }
                    keep(value, property: property, name: name)
                case .relationship(let isToMany, let destinations):
                    let isValid = isToMany
                        ? (value as? [ManagedObjectID])?.allSatisfy { destinations.contains($0.entityName) } == true
                        : (value as? ManagedObjectID).map { destinations.contains($0.entityName) } == true
                    guard isValid else {
                        throw reader.corrupt("relationship '\(name)' of \(entity.name) does not hold "
                                                + (isToMany ? "a list of object IDs" : "an object ID") + " of "
                                                + destinations.joined(separator: " or "))
                    }
                    keep(value, property: property, name: name)
                case .dropped:
                    continue
                case .unknown:
                    guard ignoresUnknownProperties else {
                        throw StoreError(code: .incompatibleModel,
                                         message: "The binary store has values of property '\(name)' of entity "
                                            + "\(entity.name), which the model lacks; open it with the model that "
                                            + "wrote it, or pass .ignoresModelVersion to skip them.",
                                         context: ErrorContext(entityName: entity.name, key: name, storeURL: url))
                    }
                }
            }
            let id = prototypes[entityIndex].withReferenceKey(key)
            if values == nil, let layout {
                records.append(StoreRecord(objectID: id, version: version, keys: layout.keys, row: row))
            } else {
                records.append(StoreRecord(objectID: id, version: version, values: values ?? [:]))
            }
        }
        guard reader.remaining == 0 else { throw reader.corrupt("unexpected bytes after the last object") }
        return (records, nextKey)
    }

    /// Reads one value; object IDs are made from `ids`, one per entity of the file's table (none in the metadata).
    private static func readValue(_ reader: inout BinaryReader, ids: [ManagedObjectID], depth: Int) throws
        -> (any Sendable)?
    {
        guard depth < maximumNesting else { throw reader.corrupt("values nest too deeply") }
        let raw = try reader.u8()
        guard let tag = Tag(rawValue: raw) else { throw reader.corrupt("unknown value tag \(raw)") }
        switch tag {
        case .null: return nil
        case .integer:
            let value = try reader.zigzag()
            guard let int = Int(exactly: value) else { throw reader.corrupt("an integer is out of range") }
            return int
        case .double: return try reader.f64()
        case .float: return Float(try reader.f64())
        case .decimal:
            guard let decimal = Decimal(string: try reader.string(), locale: Locale(identifier: "en_US_POSIX")) else {
                throw reader.corrupt("a decimal is malformed")
            }
            return decimal
        case .string: return try reader.string()
        case .isTrue: return true
        case .isFalse: return false
        case .date: return Date(timeIntervalSinceReferenceDate: try reader.f64())
        case .data: return try reader.data()
        case .uuid:
            var bytes: [UInt8] = []
            for _ in 0..<16 { bytes.append(try reader.u8()) }
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .url:
            guard let url = URL(string: try reader.string()) else { throw reader.corrupt("a URL is malformed") }
            return url
        case .objectID: return try readID(&reader, ids: ids)
        case .undecodedTransformable:
            let data = try reader.data()
            let className = try reader.string()
            return UndecodedTransformable(data: data, rootClassName: className.isEmpty ? nil : className)
        case .objectIDs:
            let count = try reader.count(minimumSize: 2)
            var list: [ManagedObjectID] = []
            list.reserveCapacity(count)
            for _ in 0..<count { list.append(try readID(&reader, ids: ids)) }
            return list
        case .array:
            let count = try reader.count()
            var array: [any Sendable] = []
            for _ in 0..<count {
                if let value = try readValue(&reader, ids: ids, depth: depth + 1) {
                    array.append(value)
                }
            }
            return array
        case .dictionary:
            let count = try reader.count(minimumSize: 2)
            var dictionary: [String: any Sendable] = [:]
            var allData = true
            for _ in 0..<count {
                let key = try reader.string()
                let value = try readValue(&reader, ids: ids, depth: depth + 1)
                if !(value is Data) { allData = false }
                dictionary[key] = value
            }
            if allData, !dictionary.isEmpty {
                return dictionary.compactMapValues { $0 as? Data }
            }
            return dictionary
        }
    }

    private static func readID(_ reader: inout BinaryReader, ids: [ManagedObjectID]) throws -> ManagedObjectID {
        let entity = try reader.index(below: ids.count, "an object ID names an unknown entity")
        return ids[entity].withReferenceKey(try reader.zigzag())
    }
}
