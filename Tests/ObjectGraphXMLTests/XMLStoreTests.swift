import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing
@testable import ObjectGraphTestSupport

@Suite("XML store")
struct XMLStoreTests {
    /// Saves a sample of every attribute type and every relationship kind; returns the store's identifier.
    @discardableResult
    func writeSample(_ fixture: XMLStoreFixture) throws -> String {
        let (context, store) = try fixture.open()
        let sample = context.insertNewObject(forEntityName: "Sample")
        for type in AllTypesModel.persistentTypes {
            sample.setValue(AllTypesModel.values[type], forKey: AllTypesModel.propertyName(for: type))
        }
        let children = (0..<3).map { index in
            let child = context.insertNewObject(forEntityName: "Sample")
            child.setValue("child \(index)", forKey: "stringValue")
            child.setValue(index, forKey: "integer32Value")
            return child
        }
        sample.setValue(Array(children.reversed()), forKey: "children")
        sample.setValue(Set([children[0], children[2]]), forKey: "friends")
        let tag = context.insertNewObject(forEntityName: "SpecialTag")
        tag.setValue("lower", forKey: "label")
        tag.setValue("Upper", forKey: "Label")
        tag.setValue(7, forKey: "rank")
        tag.setValue(Set([sample, children[1]]), forKey: "samples")
        try context.save()
        return store.identifier
    }

    @Test func everyAttributeTypeAndRelationshipRoundTrips() throws {
        let fixture = XMLStoreFixture()
        try writeSample(fixture)
        let (context, _) = try fixture.open()
        let samples = try context.all("Sample")
        #expect(samples.count == 4)
        let sample = try #require(
            samples.first {
                $0.value(forKey: "parent") == nil
                    && $0.objects(forKey: "children").count == 3
            })
        for type in AllTypesModel.persistentTypes {
            let name = AllTypesModel.propertyName(for: type)
            let value = sample.value(forKey: name)
            #expect(value.map { "\($0)" } == AllTypesModel.values[type].map { "\($0)" }, "\(name)")
        }
        #expect(sample.value(forKey: "doubleValue") as? Double == 0.1)
        #expect(sample.value(forKey: "dateValue") as? Date == AllTypesModel.values[.date] as? Date)
        #expect(
            sample.value(forKey: AllTypesModel.propertyName(for: .binaryData)) as? Data == AllTypesModel.values[
                .binaryData] as? Data)
        #expect(sample.value(forKey: "stringValue") as? String == AllTypesModel.values[.string] as? String)
        let children = sample.objects(forKey: "children")
        #expect(children.map { $0.value(forKey: "stringValue") as? String } == ["child 2", "child 1", "child 0"])
        #expect(children.allSatisfy { ($0.value(forKey: "parent") as? ManagedObject)?.objectID == sample.objectID })
        #expect(
            Set(sample.objects(forKey: "friends").compactMap { $0.value(forKey: "integer32Value") as? Int })
                == [0, 2])
        let tags = sample.objects(forKey: "tags")
        #expect(tags.count == 1)
        let tag = try #require(tags.first)
        #expect(tag.objectID.entityName == "SpecialTag")
        #expect(tag.value(forKey: "label") as? String == "lower")
        #expect(tag.value(forKey: "Label") as? String == "Upper")
        #expect(tag.value(forKey: "rank") as? Int == 7)
        #expect(children[0].value(forKey: AllTypesModel.propertyName(for: .uri)) == nil)
    }

    @Test func reopeningKeepsTheUUIDAndContinuesTheKeys() throws {
        let fixture = XMLStoreFixture()
        let identifier = try writeSample(fixture)
        let (context, store) = try fixture.open()
        #expect(store.identifier == identifier)
        let keys =
            try context.all("Sample").map(\.objectID.referenceKey) + context.all("Tag").map(\.objectID.referenceKey)
        let added = context.insertNewObject(forEntityName: "Tag")
        try context.save()
        #expect(added.objectID.referenceKey > keys.max()!)
        let (_, reopened) = try fixture.open()
        #expect(reopened.identifier == identifier)
        #expect((reopened as? AtomicStore)?.cacheNodeCount == keys.count + 1)
    }

    @Test func writesDeterministicBytes() throws {
        let fixture = XMLStoreFixture()
        try writeSample(fixture)
        let first = try Data(contentsOf: fixture.url)
        for name in ["copy1.xml", "copy2.xml"] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: fixture.model())
            let store = try coordinator.addPersistentStore(type: .xml, at: fixture.url)
            let copy = fixture.folder.file(name)
            coordinator.setURL(copy, for: store)
            try coordinator.setMetadata(coordinator.metadata(for: store), for: store)
            #expect(try Data(contentsOf: copy) == first)
        }
    }

    @Test func fileLooksLikeCoreDataWroteIt() throws {
        let fixture = XMLStoreFixture()
        let identifier = try writeSample(fixture)
        let data = try Data(contentsOf: fixture.url)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(
            text.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
                    + "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n<database>\n"))
        #expect(text.contains("<version>134481920</version>"))
        #expect(text.contains("<UUID>\(identifier)</UUID>"))
        #expect(text.contains("<key>NSStoreModelVersionHashes</key>"))
        #expect(text.contains("<object type=\"SAMPLE\" id=\"z"))
        #expect(text.contains("<object type=\"SPECIALTAG\" id=\"z"))
        #expect(text.contains("<attribute name=\"integer16value\" type=\"int16\">-32768</attribute>"))
        #expect(text.contains("<attribute name=\"booleanvalue\" type=\"bool\">1</attribute>"))
        #expect(text.contains("type=\"date\">-123456789.12345600128173828125</attribute>"))
        #expect(text.contains("<attribute name=\"label\" type=\"string\">lower</attribute>"))
        #expect(text.contains("<attribute name=\"Label\" type=\"string\">Upper</attribute>"))
        #expect(text.contains("type=\"1/1\" destination=\"SAMPLE\""))
        #expect(text.contains("type=\"0/0\" destination=\"TAG\" idrefs=\"z"))
        #expect(XMLStore.canOpen(prefix: data.prefix(1024)))
    }

    @Test func sniffingTellsXMLStoresFromOtherFiles() {
        let apple = "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE database SYSTEM \"x.dtd\">\n<database>"
        #expect(XMLStore.canOpen(prefix: Data(apple.utf8)))
        #expect(XMLStore.canOpen(prefix: Data("<database/>".utf8)))
        #expect(!XMLStore.canOpen(prefix: Data("<?xml version=\"1.0\"?><plist>".utf8)))
        #expect(!XMLStore.canOpen(prefix: Data("<!DOCTYPE x [ <!ENTITY a \">\"> ]><model>".utf8)))
        #expect(!XMLStore.canOpen(prefix: Data("OGBS\u{0}\u{1}".utf8)))
        #expect(!XMLStore.canOpen(prefix: Data()))
        #expect(!XMLStore.canOpen(prefix: Data("<?xml version=\"1.0\"".utf8)))
    }

    @Test func incompatibleModelIsRefused() throws {
        let fixture = XMLStoreFixture()
        try writeSample(fixture)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: AllTypesModel.make(extraAttribute: true))
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: .xml, at: fixture.url)
        }
        #expect(error.code == .incompatibleModel)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func objectsOfEntitiesTheModelLacksAreRefusedEvenIgnoringVersions() throws {
        let fixture = XMLStoreFixture()
        try writeSample(fixture)
        let onlyTags = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Tag",
                properties: [
                    AttributeDescription(name: "label", type: .string)
                ])
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: onlyTags)
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: .xml, at: fixture.url, options: [.ignoresModelVersion: true])
        }
        #expect(error.code == .incompatibleModel)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func failedSaveLeavesTheOldFileAndTheStore() throws {
        let fixture = XMLStoreFixture()
        try writeSample(fixture)
        let before = try Data(contentsOf: fixture.url)
        let (context, _) = try fixture.open()
        let tag = context.insertNewObject(forEntityName: "Tag")
        tag.setValue("bell \u{7} cannot be written in XML 1.0", forKey: "label")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .io)
        #expect(try Data(contentsOf: fixture.url) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.url.path)
        #expect(leftovers == ["store.xml"])
        let (reopened, _) = try fixture.open()
        #expect(try reopened.all("Tag").count == 1)
    }

    @Test func aSaveTouchingTwoStoresRenamesNothingWhenOneCannotBeWritten() throws {
        let fixture = Fixture(.xml)
        try fixture.addStore("schedule", configuration: "Schedule")
        try fixture.addStore("personal", configuration: "Personal")
        let context = fixture.context()
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Saal 1", forKey: "name")
        let favorite = context.insertNewObject(forEntityName: "Favorite")
        favorite.setValue("ok", forKey: "sessionGUID")
        try context.save()
        let schedule = try Data(contentsOf: fixture.folder.file("schedule.xml"))
        let personal = try Data(contentsOf: fixture.folder.file("personal.xml"))
        room.setValue("Saal 2", forKey: "name")
        favorite.setValue("\u{1}", forKey: "sessionGUID")
        #expect(throws: StoreError.self) { try context.save() }
        #expect(try Data(contentsOf: fixture.folder.file("schedule.xml")) == schedule)
        #expect(try Data(contentsOf: fixture.folder.file("personal.xml")) == personal)
    }

    @Test func metadataOfEveryPropertyListTypeSurvivesAReopen() throws {
        let fixture = XMLStoreFixture()
        try writeSample(fixture)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: fixture.model())
        let store = try coordinator.addPersistentStore(type: .xml, at: fixture.url)
        var metadata = coordinator.metadata(for: store)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        metadata["custom"] =
            [
                "string": "a < b", "int": -42, "double": 2.5, "yes": true, "no": false, "date": date,
                "data": Data([0, 1, 254, 255]), "array": ["x", 1] as [any Sendable],
            ] as [String: any Sendable]
        try coordinator.setMetadata(metadata, for: store)
        let reopened = try PersistentStoreCoordinator(managedObjectModel: fixture.model())
            .addPersistentStore(type: .xml, at: fixture.url)
        let custom = try #require(reopened.metadata["custom"] as? [String: any Sendable])
        #expect(custom["string"] as? String == "a < b")
        #expect(custom["int"] as? Int == -42)
        #expect(custom["double"] as? Double == 2.5)
        #expect(custom["yes"] as? Bool == true && custom["no"] as? Bool == false)
        #expect(custom["date"] as? Date == date)
        #expect(custom["data"] as? Data == Data([0, 1, 254, 255]))
        #expect((custom["array"] as? [any Sendable])?.count == 2)
        #expect(reopened.metadata.storeType == "XML")
        #expect(reopened.metadata[StoreMetadata.modelVersionIdentifiersKey] as? [any Sendable] != nil)
        #expect(reopened.metadata.modelVersionHashes == store.metadata.modelVersionHashes)
    }

    @Test func valuesLongerThanTheParsersDefaultTextLimitRoundTrip() throws {
        let fixture = XMLStoreFixture()
        let (context, _) = try fixture.open()
        let big = Data((0..<12_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let sample = context.insertNewObject(forEntityName: "Sample")
        sample.setValue(big, forKey: AllTypesModel.propertyName(for: .binaryData))
        try context.save()
        let (reopened, _) = try fixture.open()
        let value = try reopened.all("Sample").first?.value(forKey: AllTypesModel.propertyName(for: .binaryData))
        #expect(value as? Data == big)
    }
}
