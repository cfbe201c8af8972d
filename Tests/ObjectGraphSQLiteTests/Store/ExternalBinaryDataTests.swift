import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Binary data of attributes that allow external storage, kept as Core Data keeps it: a marker byte in the row,
/// then the bytes or the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA`.
@Suite("SQLite store: external binary data")
struct ExternalBinaryDataTests {
    /// Photos with an image that may be stored outside the file and a thumbnail that may not.
    static func model() -> ManagedObjectModel {
        let image = AttributeDescription(name: "image", type: .binaryData)
        image.allowsExternalBinaryDataStorage = true
        return ManagedObjectModel(entities: [
            EntityDescription(
                name: "Photo",
                properties: [
                    AttributeDescription(name: "name", type: .string),
                    image,
                    AttributeDescription(name: "thumbnail", type: .binaryData),
                ])
        ])
    }

    /// The photo model with external storage off for the image.
    static func plainModel() -> ManagedObjectModel {
        let model = model()
        model.entitiesByName["Photo"]?.attributesByName["image"]?.allowsExternalBinaryDataStorage = false
        return model
    }

    /// Saves a photo `small` with two bytes and one `large` with `large` to a new store of the plain model.
    static func writePlainPhotos(at url: URL, large: Data) throws {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: plainModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for (name, image) in [("small", Data([1, 2])), ("large", large)] {
            let photo = context.insertNewObject(forEntityName: "Photo")
            photo.setValue(name, forKey: "name")
            photo.setValue(image, forKey: "image")
        }
        try context.save()
    }

    /// `count` bytes that differ from run to run and from `seed` to `seed`.
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { index in index == 0 ? seed : UInt8.random(in: 0...255, using: &generator) })
    }

    static func open(_ url: URL, options: PersistentStoreOptions = [:]) throws -> (
        PersistentStoreCoordinator, ManagedObjectContext
    ) {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return (coordinator, ManagedObjectContext(coordinator: coordinator))
    }

    /// The photos' names with their images, read through a new coordinator.
    static func images(_ url: URL, options: PersistentStoreOptions = [:]) throws -> [String: Data?] {
        let (_, context) = try open(url, options: options)
        let photos = try context.fetch(FetchRequest(entityName: "Photo"))
        return Dictionary(
            uniqueKeysWithValues: photos.map {
                ($0.value(forKey: "name") as? String ?? "", $0.value(forKey: "image") as? Data)
            })
    }

    static func externalFolder(_ url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")
    }

    static func files(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: externalFolder(url).path)) ?? []).sorted()
    }

    /// Sets a file's modification time `seconds` into the past (older than a sweep's grace period).
    static func age(_ path: String, by seconds: Int) {
        let then = timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)
        var times = [then, then]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func smallValuesStayInTheRowAfterCoreDatasMarker() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let (_, context) = try Self.open(url)
        let photo = context.insertNewObject(forEntityName: "Photo")
        photo.setValue("small", forKey: "name")
        photo.setValue(Data([0xDE, 0xAD, 0xBE, 0xEF]), forKey: "image")
        photo.setValue(Data([0x01, 0x02]), forKey: "thumbnail")
        try context.save()

        // The image carries Core Data's inline marker; the thumbnail, which may not be stored outside, does not.
        #expect(try rawRows(url, "SELECT hex(ZIMAGE), hex(ZTHUMBNAIL) FROM ZPHOTO") == ["01DEADBEEF|0102"])
        #expect(try Self.images(url) == ["small": Data([0xDE, 0xAD, 0xBE, 0xEF])])
        #expect(!FileManager.default.fileExists(atPath: Self.externalFolder(url).deletingLastPathComponent().path))
    }

    @Test func largeValuesGoToAFileTheRowNames() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let large = Self.bytes(300_000, seed: 7)
        let (_, context) = try Self.open(url)
        let photo = context.insertNewObject(forEntityName: "Photo")
        photo.setValue("large", forKey: "name")
        photo.setValue(large, forKey: "image")
        let copy = context.insertNewObject(forEntityName: "Photo")
        copy.setValue("copy", forKey: "name")
        copy.setValue(large, forKey: "image")
        try context.save()

        // One file for the two equal values, named by a UUID, which the row holds after the marker 0x02 and
        // before a NUL byte, as Core Data writes it.
        let files = Self.files(url)
        try #require(files.count == 1)
        let name = files[0]
        #expect(UUID(uuidString: name) != nil)
        #expect(try Data(contentsOf: Self.externalFolder(url).appendingPathComponent(name)) == large)
        let expected = "02" + Data(name.utf8).map { String(format: "%02X", $0) }.joined() + "00"
        #expect(try rawRows(url, "SELECT hex(ZIMAGE) FROM ZPHOTO ORDER BY ZNAME") == [expected, expected])
        #expect(try Self.images(url) == ["large": large, "copy": large])

        // Saving an object again with its data unchanged writes no file.
        photo.setValue("renamed", forKey: "name")
        try context.save()
        #expect(Self.files(url) == [name])
        #expect(try Self.images(url)["renamed"] == large)
    }

    @Test func filesNoRowNamesAreDeletedOnceOld() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let (first, second) = (Self.bytes(200_000, seed: 1), Self.bytes(200_000, seed: 2))
        let (_, context) = try Self.open(url)
        let photo = context.insertNewObject(forEntityName: "Photo")
        photo.setValue("p", forKey: "name")
        photo.setValue(first, forKey: "image")
        try context.save()
        let firstFile = try #require(Self.files(url).first)

        // A replaced value's file goes at the save once it is older than the grace period (a younger one may
        // belong to another process's save in progress).
        Self.age(Self.externalFolder(url).appendingPathComponent(firstFile).path, by: 3600)
        photo.setValue(second, forKey: "image")
        try context.save()
        let secondFile = try #require(Self.files(url).first)
        #expect(Self.files(url) == [secondFile] && secondFile != firstFile)

        // A deleted object's young file stays until a later sweep finds it old: here, opening the store again.
        context.delete(photo)
        try context.save()
        #expect(Self.files(url) == [secondFile])
        Self.age(Self.externalFolder(url).appendingPathComponent(secondFile).path, by: 3600)
        #expect(try Self.images(url).isEmpty)
        #expect(Self.files(url).isEmpty)
    }

    @Test func aFileThatCannotBeWrittenFailsTheSaveAndChangesNothing() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let (_, context) = try Self.open(url)
        // The support folder's name is taken by a file: the folder for the data cannot be made.
        try Data("in the way".utf8).write(to: Self.externalFolder(url).deletingLastPathComponent())
        let photo = context.insertNewObject(forEntityName: "Photo")
        photo.setValue("large", forKey: "name")
        photo.setValue(Self.bytes(150_000, seed: 3), forKey: "image")
        #expect {
            try context.save()
        } throws: { error in
            (error as? StoreError)?.code == .io
                && (error as? StoreError)?.message.contains("_EXTERNAL_DATA") == true
        }
        #expect(try rawRows(url, "SELECT COUNT(*) FROM ZPHOTO") == ["0"])
        #expect(context.hasChanges)
    }

    @Test func destroyingAndReplacingAStoreTakeItsFilesAlong() throws {
        let folder = TemporaryFolder()
        let source = folder.file("backup.sqlite")
        let destination = folder.file("photos.sqlite")
        let large = Self.bytes(140_000, seed: 4)
        do {
            let (coordinator, context) = try Self.open(source)
            let photo = context.insertNewObject(forEntityName: "Photo")
            photo.setValue("large", forKey: "name")
            photo.setValue(large, forKey: "image")
            try context.save()
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
        #expect(Self.files(destination) == Self.files(source) && Self.files(destination).count == 1)
        #expect(try Self.images(destination) == ["large": large])

        try coordinator.destroyPersistentStore(at: destination, type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(
            !FileManager.default.fileExists(atPath: Self.externalFolder(destination).deletingLastPathComponent().path))
        #expect(Self.files(source).count == 1)
    }

    @Test func theStoresModelCacheKeepsTheFlag() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        _ = try Self.open(url)
        let model = try ManagedObjectModel(contentsOfStoreAt: url)
        let photo = try #require(model.entitiesByName["Photo"])
        #expect(photo.attributesByName["image"]?.allowsExternalBinaryDataStorage == true)
        #expect(photo.attributesByName["thumbnail"]?.allowsExternalBinaryDataStorage == false)
    }
}

extension ExternalBinaryDataTests {
    /// A store file as Core Data writes it (no model cache of ours in its metadata), with photos whose images are
    /// kept in each of Core Data's forms.
    static func writeCoreDataFile(at url: URL, rows: [(name: String, image: Data?)]) throws {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        try connection.execute(
            "CREATE TABLE ZPHOTO (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, "
                + "ZIMAGE BLOB, ZTHUMBNAIL BLOB)")
        try connection.execute(
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try connection.execute(
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try connection.execute("INSERT INTO Z_PRIMARYKEY VALUES (1, 'Photo', 0, \(rows.count))")
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["NSStoreType": "SQLite", "NSStoreUUID": UUID().uuidString], format: .binary, options: 0)
        let metadata = try connection.prepare("INSERT INTO Z_METADATA VALUES (1, ?, ?)")
        try metadata.bind([.text(UUID().uuidString), .blob(plist)])
        try metadata.run()
        let insert = try connection.prepare(
            "INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZNAME, ZIMAGE) VALUES (?, 1, 1, ?, ?)")
        for (index, row) in rows.enumerated() {
            try insert.bind([.integer(Int64(index + 1)), .text(row.name), row.image.map { .blob($0) } ?? .null])
            try insert.run()
        }
    }

    @Test func readsTheFormsCoreDataWrites() throws {
        let folder = TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let external = Self.externalFolder(url)
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        let stored = Self.bytes(200_000, seed: 5)
        let name = UUID().uuidString
        try stored.write(to: external.appendingPathComponent(name))
        let orphans = (old: UUID().uuidString, young: UUID().uuidString)
        try Data([1]).write(to: external.appendingPathComponent(orphans.old))
        try Data([2]).write(to: external.appendingPathComponent(orphans.young))
        Self.age(external.appendingPathComponent(orphans.old).path, by: 3600)
        try Self.writeCoreDataFile(
            at: url,
            rows: [
                ("inline", Data([1, 0xCA, 0xFE])),
                ("file", Data([2]) + Data(name.utf8) + Data([0])),
                ("missing", Data([2]) + Data(UUID().uuidString.utf8) + Data([0])),
                ("no terminator", Data([2]) + Data(name.utf8)),
                ("outside the folder", Data([2]) + Data("../../Photos.sqlite".utf8) + Data([0])),
                ("empty", Data([1])),
                ("none", nil),
            ])

        let images = try Self.images(url, options: [.ignoresModelVersion: true])
        #expect(images["inline"] == Data([0xCA, 0xFE]))
        #expect(images["file"] == stored)
        #expect(images["no terminator"] == stored)
        // A file that is not there, or a name that leaves the folder, reads as no value.
        #expect(images["missing"] == .some(nil))
        #expect(images["outside the folder"] == .some(nil))
        #expect(images["empty"] == Data())
        #expect(images["none"] == .some(nil))
        // Opening it for writing swept the old file no row names; the young one and the named one stay.
        #expect(Set(Self.files(url)) == [name, orphans.young])
    }

    @Test func aFileWrittenBeforeTheMarkersKeepsItsPlainBytes() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        do {
            let (_, context) = try Self.open(url)
            context.insertNewObject(forEntityName: "Photo").setValue("old", forKey: "name")
            try context.save()
        }
        // As this store wrote such files before: its model cache in the metadata, without the format's key, and
        // the plain bytes in the column (here starting with what would read as a marker).
        let connection = try SQLiteConnection(path: url.path)
        let row = try connection.makeStatement("SELECT Z_PLIST FROM Z_METADATA")
        #expect(try row.step() == .row)
        let stored = try #require(row.data(at: 0))
        var metadata = try #require(
            try PropertyListSerialization.propertyList(from: stored, format: nil) as? [String: Any])
        #expect(metadata[SQLiteStore.externalDataFormatKey] != nil)
        metadata[SQLiteStore.externalDataFormatKey] = nil
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        let update = try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ?")
        try update.bind([.blob(plist)])
        try update.run()
        try connection.execute("UPDATE ZPHOTO SET ZIMAGE = X'0102'")
        connection.close()

        #expect(try Self.images(url) == ["old": Data([1, 2])])
        // Writing keeps the file's form.
        let (_, context) = try Self.open(url)
        let photo = try #require(try context.fetch(FetchRequest(entityName: "Photo")).first)
        photo.setValue(Data([2, 3]), forKey: "image")
        try context.save()
        #expect(try rawRows(url, "SELECT hex(ZIMAGE) FROM ZPHOTO") == ["0203"])
    }

    @Test func aMigrationManagerMovesPlainValuesIntoCoreDatasForm() throws {
        let folder = TemporaryFolder()
        let (source, destination) = (folder.file("before.sqlite"), folder.file("after.sqlite"))
        let before = Self.plainModel()
        let large = Self.bytes(140_000, seed: 1)
        try Self.writePlainPhotos(at: source, large: large)
        #expect(try rawRows(source, "SELECT hex(ZIMAGE) FROM ZPHOTO WHERE ZNAME = 'small'") == ["0102"])

        try MigrationManager(sourceModel: before, destinationModel: Self.model()).migrateStore(
            from: source, type: .sqlite, mapping: nil, to: destination, type: .sqlite)
        #expect(try rawRows(destination, "SELECT hex(ZIMAGE) FROM ZPHOTO WHERE ZNAME = 'small'") == ["010102"])
        #expect(try Self.images(destination) == ["small": Data([1, 2]), "large": large])
        #expect(Self.files(destination).count == 1)
    }

    @Test func batchInsertsKeepCoreDatasFormToo() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let large = Self.bytes(135_000, seed: 9)
        let (coordinator, _) = try Self.open(url)
        let result = try coordinator.execute(
            BatchInsertRequest(
                entityName: "Photo",
                objects: [["name": "small", "image": Data([7])], ["name": "large", "image": large]]))
        #expect(result.count == 2)
        #expect(try rawRows(url, "SELECT hex(ZIMAGE) FROM ZPHOTO WHERE ZNAME = 'small'") == ["0107"])
        #expect(Self.files(url).count == 1)
        #expect(try Self.images(url) == ["small": Data([7]), "large": large])
    }

    /// Turning external storage on, then off again, in a lightweight migration of the file in place: the values
    /// saved before are rewritten in the column's new form (the flag is part of Core Data's version hash).
    @Test func lightweightMigrationRewritesValuesWhenTheFlagChanges() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let plain = Self.plainModel()
        let large = Self.bytes(150_000, seed: 6)
        try Self.writePlainPhotos(at: url, large: large)
        let migrating: PersistentStoreOptions = [
            .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
        ]
        #expect(try Self.images(url, options: migrating) == ["small": Data([1, 2]), "large": large])
        #expect(try rawRows(url, "SELECT hex(ZIMAGE) FROM ZPHOTO WHERE ZNAME = 'small'") == ["010102"])
        #expect(Self.files(url).count == 1)

        // And back: the plain model reads the plain bytes again.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: plain)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: migrating)
        let photos = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Photo"))
        #expect(Set(photos.compactMap { $0.value(forKey: "image") as? Data }) == [Data([1, 2]), large])
        #expect(try rawRows(url, "SELECT hex(ZIMAGE) FROM ZPHOTO WHERE ZNAME = 'small'") == ["0102"])
    }

    /// A file a save reuses (it already holds the bytes) gets a fresh time, so that another process's sweep, which
    /// spares young files, cannot take an old unnamed file away before the row naming it again commits.
    @Test func aReusedFileIsMadeYoungAgain() throws {
        let folder = TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let large = Self.bytes(140_000, seed: 8)
        let (_, context) = try Self.open(url)
        let first = context.insertNewObject(forEntityName: "Photo")
        first.setValue(large, forKey: "image")
        try context.save()
        let file = try #require(Self.files(url).first)
        let path = Self.externalFolder(url).appendingPathComponent(file).path
        context.delete(first)
        try context.save()
        Self.age(path, by: 3600)

        context.insertNewObject(forEntityName: "Photo").setValue(large, forKey: "image")
        try context.save()
        #expect(Self.files(url) == [file])
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(Int(info.st_mtim.tv_sec) > time(nil) - 60)
    }

    /// Core Data's file-backed futures (marker 0x03) are not read: they give no value rather than their marker bytes.
    @Test func aFileBackedFutureReadsAsNoValue() throws {
        let folder = TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        try Self.writeCoreDataFile(at: url, rows: [("future", Data([3]) + Data("metadata".utf8))])
        let images = try Self.images(url, options: [.ignoresModelVersion: true, .readOnly: true])
        #expect(images.count == 1 && images["future"] == .some(nil))
    }

    /// The rows of a query, read with a connection of their own.
    static func rawValues(_ url: URL, _ sql: String) throws -> [[SQLValue]] {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        let statement = try connection.makeStatement(sql)
        var rows: [[SQLValue]] = []
        while try statement.step() == .row { rows.append((0..<statement.columnCount).map(statement.value(at:))) }
        return rows
    }

    /// The raw bytes of each photo's image column and its `Z_OPT`, by name.
    static func rawImages(_ url: URL) throws -> [String: (image: Data?, version: Int64)] {
        var result: [String: (image: Data?, version: Int64)] = [:]
        for row in try rawValues(url, "SELECT ZNAME, ZIMAGE, Z_OPT FROM ZPHOTO") {
            guard case .text(let name) = row[0], case .integer(let version) = row[2] else { continue }
            if case .blob(let image) = row[1] { result[name] = (image, version) } else { result[name] = (nil, version) }
        }
        return result
    }

    @Test func savingAnotherChangeKeepsValuesThatCouldNotBeRead() throws {
        let folder = TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let future = Data([3]) + Data("metadata of a file-backed future".utf8)
        let missing = Data([2]) + Data(UUID().uuidString.utf8) + Data([0])
        try Self.writeCoreDataFile(at: url, rows: [("future", future), ("missing", missing), ("plain", nil)])
        do {
            let (_, context) = try Self.open(url, options: [.ignoresModelVersion: true])
            let photos = try context.fetch(FetchRequest(entityName: "Photo"))
            #expect(photos.count == 3 && photos.allSatisfy { $0.value(forKey: "image") == nil })
            for photo in photos {
                photo.setValue((photo.value(forKey: "name") as? String ?? "") + " renamed", forKey: "name")
            }
            try context.save()
        }
        var raw = try Self.rawImages(url)
        // The names changed and the versions moved on; the columns the save did not change kept their bytes.
        #expect(Set(raw.keys) == ["future renamed", "missing renamed", "plain renamed"])
        #expect(raw["future renamed"]?.image == future && raw["future renamed"]?.version == 2)
        #expect(raw["missing renamed"]?.image == missing && raw["missing renamed"]?.version == 2)
        #expect(raw["plain renamed"].map { $0.image == nil && $0.version == 2 } == true)

        // Changing the image itself writes it, in Core Data's form.
        do {
            let (_, context) = try Self.open(url, options: [.ignoresModelVersion: true])
            let request = FetchRequest(entityName: "Photo")
            request.predicate = try ObjectPredicate(format: "name == 'future renamed'")
            let photo = try #require(try context.fetch(request).first)
            photo.setValue(Data([7, 8]), forKey: "image")
            try context.save()
        }
        raw = try Self.rawImages(url)
        #expect(raw["future renamed"]?.image == Data([1, 7, 8]) && raw["future renamed"]?.version == 3)
        #expect(raw["missing renamed"]?.image == missing && raw["missing renamed"]?.version == 2)
    }

    @Test func anUpdateWritesOnlyTheColumnsOfChangedProperties() throws {
        let folder = TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        try Self.writePlainPhotos(at: url, large: Data([9]))
        let (_, context) = try Self.open(url, options: [.ignoresModelVersion: true])
        let photos = try context.fetch(FetchRequest(entityName: "Photo"))
        let small = try #require(photos.first { $0.value(forKey: "name") as? String == "small" })
        // Another writer sets the thumbnail behind the store's back (without moving Z_OPT: no conflict).
        do {
            let connection = try SQLiteConnection(path: url.path)
            defer { connection.close() }
            try connection.execute("UPDATE ZPHOTO SET ZTHUMBNAIL = x'0102' WHERE ZNAME = 'small'")
        }
        small.setValue("small, renamed", forKey: "name")
        try context.save()
        let rows = try Self.rawValues(url, "SELECT ZNAME, ZTHUMBNAIL, Z_OPT FROM ZPHOTO WHERE ZNAME LIKE 'small%'")
        #expect(rows.count == 1)
        #expect(rows.first == [.text("small, renamed"), .blob(Data([1, 2])), .integer(2)])
    }

    @Test func anObjectKeptByTheOverwritePolicyIsWrittenWhole() throws {
        let folder = TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        try Self.writePlainPhotos(at: url, large: Data([9]))
        let (_, context) = try Self.open(url, options: [.ignoresModelVersion: true])
        context.mergePolicy = .overwrite
        let request = FetchRequest(entityName: "Photo")
        request.predicate = try ObjectPredicate(format: "name == 'small'")
        let small = try #require(try context.fetch(request).first)
        // Another context changes the thumbnail and saves (Z_OPT moves on).
        do {
            let (_, other) = try Self.open(url, options: [.ignoresModelVersion: true])
            let theirs = try #require(try other.fetch(request).first)
            theirs.setValue(Data([5]), forKey: "thumbnail")
            try other.save()
        }
        small.setValue("small, ours", forKey: "name")
        try context.save()
        let rows = try Self.rawValues(url, "SELECT ZNAME, ZTHUMBNAIL, Z_OPT FROM ZPHOTO WHERE ZNAME LIKE 'small%'")
        // The context's whole object overwrote the store's: its thumbnail (none) too.
        #expect(rows.count == 1)
        #expect(rows.first == [.text("small, ours"), .null, .integer(3)])
    }
}
