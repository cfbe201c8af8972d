import Foundation
import ObjectGraph
import ObjectGraphXML
import Testing

/// The classes the ObjectGraphCodegen plugin generated from this target's Catalog.xcdatamodeld, compiled with the
/// tests and used against a store.
@Suite("Generated classes")
struct GeneratedClassTests {
    static let modelURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Catalog.xcdatamodeld")

    /// A context on a fresh in-memory store of the Catalog model, with the generated classes registered.
    static func makeContext() throws -> (ManagedObjectContext, PersistentStoreCoordinator) {
        ManagedObjectClassRegistry.registerCatalogClasses()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: modelURL))
        try coordinator.addPersistentStore(type: .inMemory)
        return (ManagedObjectContext(coordinator: coordinator), coordinator)
    }

    @Test func attributesReadAndWriteAsTheirSwiftTypes() throws {
        let (context, coordinator) = try Self.makeContext()
        let item = try #require(context.insertNewObject(forEntityName: "Item") as? Item)
        // Defaults, as the model gives them; scalars without one read as zero; optionals as nil.
        #expect(item.count16 == 0 && item.count64 == 0 && item.weight == 1.5 && item.ratio == 0.5)
        #expect(item.name == "unnamed" && item.isActive && item.boxedCount == 7)
        #expect(item.maybeCount == nil && item.note == nil && item.isChecked == nil && item.extra == nil)
        item.count16 = .max
        item.count32 = -5
        item.count64 = 1 << 40
        item.maybeCount = 3
        item.boxedCount = 8
        item.price = Decimal(string: "12.50")
        item.weight = 2.25
        item.ratio = 0.25
        item.title = "Lamp"
        item.note = "brass"
        item.isActive = false
        item.isChecked = true
        item.added = Date(timeIntervalSinceReferenceDate: 1000)
        item.blob = Data([1, 2, 3])
        let identifier = UUID()
        item.identifier = identifier
        item.link = URL(string: "https://example.com/lamp")
        item.extra = "anything"
        item.default = "keyword"
        item.size = ["width": 30, "height": 45.5]
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let fetched = try #require(try reader.fetch(Item.fetchRequest()).first)
        #expect(fetched.count16 == .max && fetched.count32 == -5 && fetched.count64 == 1 << 40)
        #expect(fetched.maybeCount == 3 && fetched.boxedCount == 8)
        #expect(fetched.price == Decimal(string: "12.50") && fetched.weight == 2.25 && fetched.ratio == 0.25)
        #expect(fetched.title == "Lamp" && fetched.note == "brass" && fetched.name == "unnamed")
        #expect(!fetched.isActive && fetched.isChecked == true)
        #expect(fetched.added == Date(timeIntervalSinceReferenceDate: 1000) && fetched.blob == Data([1, 2, 3]))
        #expect(fetched.identifier == identifier && fetched.link == URL(string: "https://example.com/lamp"))
        #expect(fetched.extra as? String == "anything" && fetched.default == "keyword")
        #expect(fetched.size?["width"] as? Double == 30 && fetched.size?["height"] as? Double == 45.5)
        #expect(fetched.value(forKeyPath: "size.height") as? Double == 45.5)
        // The typed properties are the stored values: key-value access sees the same.
        #expect(fetched.value(forKey: "count32") as? Int == -5)
    }

    @Test func aNonOptionalAttributeWithoutAValueFailsTheSaveAndChangesNothing() throws {
        let (context, coordinator) = try Self.makeContext()
        let item = try #require(context.insertNewObject(forEntityName: "Item") as? Item)
        item.note = "no title"
        #expect(throws: (any Error).self) { try context.save() }
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Item.fetchRequest()).isEmpty)
        item.title = "now titled"
        try context.save()
        #expect(try reader.fetch(Item.fetchRequest()).map(\.title) == ["now titled"])
    }

    @Test func relationshipsAreTypedWithCoreDatasAccessors() throws {
        let (context, coordinator) = try Self.makeContext()
        let item = try #require(context.insertNewObject(forEntityName: "Item") as? Item)
        item.title = "Desk"
        let shelf = try #require(context.insertNewObject(forEntityName: "Shelf") as? Shelf)
        shelf.label = "A"
        item.shelf = shelf
        #expect(shelf.items == [item])

        let tags = try (0..<3).map { index in
            let tag = try #require(context.insertNewObject(forEntityName: "Tag") as? Tag)
            tag.name = "t\(index)"
            return tag
        }
        item.addToTags(tags[0])
        item.addToTags(Set(tags[1...]))
        #expect(item.tags == Set(tags))
        #expect(tags[2].items == [item])
        item.removeFromTags(tags[0])
        item.removeFromTags([tags[1]])
        #expect(item.tags == [tags[2]] && tags[0].items.isEmpty)

        let parts = try (0..<4).map { index in
            let part = try #require(context.insertNewObject(forEntityName: "Part") as? Part)
            part.number = Int16(index)
            return part
        }
        item.addToParts(parts[0])
        item.addToParts([parts[1], parts[2]])
        item.insertIntoParts(parts[3], at: 0)
        #expect(item.parts.map(\.number) == [3, 0, 1, 2])
        item.insertIntoParts(parts[0], at: 3)  // already there: stays where it is
        #expect(item.parts.map(\.number) == [3, 0, 1, 2])
        item.removeFromParts(at: 0)
        #expect(item.parts.map(\.number) == [0, 1, 2] && parts[3].item == nil)
        item.replaceParts(at: 1, with: parts[3])
        #expect(item.parts.map(\.number) == [0, 3, 2] && parts[1].item == nil && parts[3].item === item)
        item.removeFromParts(at: IndexSet([0, 2]))
        item.insertIntoParts([parts[1], parts[2]], at: IndexSet([0, 2]))
        #expect(item.parts.map(\.number) == [1, 3, 2])
        item.parts = [parts[2], parts[1]]
        #expect(item.parts.map(\.number) == [2, 1] && parts[3].item == nil)
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let fetched = try #require(try reader.fetch(Item.fetchRequest()).first)
        #expect(fetched.parts.map(\.number) == [2, 1])
        #expect(fetched.shelf?.label == "A" && fetched.tags.map(\.name) == ["t2"])
    }

    @Test func aSubentityClassInheritsItsParentsClass() throws {
        let (context, coordinator) = try Self.makeContext()
        let book = try #require(context.insertNewObject(forEntityName: "Book") as? Book)
        book.title = "Manual"
        book.pages = 120
        let item: Item = book
        item.count32 = 9
        let plain = try #require(context.insertNewObject(forEntityName: "Item") as? Item)
        plain.title = "Chair"
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let books: [Book] = try reader.fetch(Book.fetchRequest())
        #expect(books.map(\.pages) == [120] && books.map(\.count32) == [9])
        let request = Item.fetchRequest()
        request.sortKeys = [SortKey("title")]
        let items: [Item] = try reader.fetch(request)
        #expect(items.map(\.title) == ["Chair", "Manual"] && items.last.map { $0 is Book } == true)
    }

    /// Shelf's fetched property `longBooks` (books on the shelf with at least 100 pages) is a read-only `[Book]`,
    /// fetched when first read and kept until the shelf is refreshed, as Core Data's fetched properties are.
    @Test func fetchedPropertiesReadAsTypedArrays() throws {
        let (context, coordinator) = try Self.makeContext()
        let shelf = try #require(context.insertNewObject(forEntityName: "Shelf") as? Shelf)
        shelf.label = "A"
        let other = try #require(context.insertNewObject(forEntityName: "Shelf") as? Shelf)
        other.label = "B"
        for (title, pages, place) in [("Atlas", 300, shelf), ("Leaflet", 12, shelf), ("Novel", 250, other)] {
            let book = try #require(context.insertNewObject(forEntityName: "Book") as? Book)
            book.title = title
            book.pages = Int32(pages)
            book.shelf = place
        }
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let request = Shelf.fetchRequest()
        request.predicate = try ObjectPredicate(format: "label == 'A'")
        let read = try #require(try reader.fetch(request).first)
        let longBooks: [Book] = read.longBooks
        #expect(longBooks.map(\.title) == ["Atlas"])
        // Kept, as Core Data keeps a fetched property's results, until the object is refreshed.
        let leaflet = try #require(try reader.fetch(Book.fetchRequest()).first { $0.title == "Leaflet" })
        leaflet.pages = 120
        try reader.save()
        #expect(read.longBooks.map(\.title) == ["Atlas"])
        reader.refresh(read, mergeChanges: false)
        #expect(Set(read.longBooks.map(\.title)) == ["Atlas", "Leaflet"])
    }

    /// Core Data's `Item(context:)`: the entity is the one whose class this is, even when a subentity (Book, with
    /// a class of its own) derives from it; the object is inserted, with its defaults.
    @Test func generatedClassesInsertThemselvesWithInitContext() throws {
        let (context, coordinator) = try Self.makeContext()
        let item = Item(context: context)
        let book = Book(context: context)
        let shelf = Shelf(context: context)
        #expect(item.entity.name == "Item" && book.entity.name == "Book" && shelf.entity.name == "Shelf")
        #expect(item.isInserted && context.insertedObjects.count == 3)
        #expect(item.name == "unnamed" && book.pages == 0)
        item.title = "Lamp"
        book.title = "Atlas"
        shelf.label = "A"
        try context.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Item.fetchRequest()).map(\.title).sorted() == ["Atlas", "Lamp"])
        let plain = try #require(EntityDescription.entity(forEntityName: "Plain", in: context))
        #expect(EntityDescription.entity(forEntityName: "Nothing", in: context) == nil)
        let inserted = EntityDescription.insertNewObject(forEntityName: "Plain", into: context)
        #expect(inserted.entity === plain && inserted.isInserted)
    }

    @Test func categoryEntitiesKeepTheirHandWrittenClass() throws {
        let (context, _) = try Self.makeContext()
        let remark = try #require(context.insertNewObject(forEntityName: "Remark") as? Remark)
        #expect(remark.written == Date(timeIntervalSinceReferenceDate: 0))
        remark.text = "scratched"
        let item = try #require(context.insertNewObject(forEntityName: "Item") as? Item)
        item.addToNotes(remark)
        #expect(remark.item === item && item.notes == [remark])
        // Manual/None entities get no class.
        #expect(type(of: context.insertNewObject(forEntityName: "Plain")) == ManagedObject.self)
    }

    @Test func classesAreFoundByClassNameEntityNameOrModuleQualifiedName() throws {
        ManagedObjectClassRegistry.registerCatalogClasses()
        let model = try ManagedObjectModel(contentsOf: Self.modelURL)
        let entities = model.entitiesByName
        let item = try #require(entities["Item"])
        let shelf = try #require(entities["Shelf"])
        let tag = try #require(entities["Tag"])
        let book = try #require(entities["Book"])
        // `ModelCodegenTests.Item` (Xcode's class with its module), `.Shelf` (the current module), none (Tag).
        #expect(ManagedObjectClassRegistry.objectClass(for: item) == Item.self)
        #expect(ManagedObjectClassRegistry.objectClass(for: shelf) == Shelf.self)
        #expect(ManagedObjectClassRegistry.objectClass(for: tag) == Tag.self)
        #expect(ManagedObjectClassRegistry.objectClass(for: book) == Book.self)
    }

    @Test func aModuleQualifiedClassNameNeedsNoRegistration() {
        #expect(
            ManagedObjectClassRegistry.objectClass(forClassName: "ModelCodegenTests.LooseGadget") == LooseGadget.self)
        #expect(
            ManagedObjectClassRegistry.objectClass(forClassName: "ModelCodegenTests.NoSuchClass") == ManagedObject.self)
        // A class that is not a ManagedObject is not taken.
        #expect(ManagedObjectClassRegistry.objectClass(forClassName: "Foundation.NSObject") == ManagedObject.self)
    }
}
