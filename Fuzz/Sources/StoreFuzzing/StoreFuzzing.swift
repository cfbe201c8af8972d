import Foundation
import ObjectGraph
import Schedules

/// What the XML and binary store targets share: the fixed schedule model, a file of the process's own for the
/// input (the stores read files only), opening it the way the daemon opens a dropped file, and using what loaded.
///
/// Every input gets a model of its own: a model kept in a global is reported as leaked by LeakSanitizer, which does
/// not recognise the pointers to the boxes of its predicates' indirect enum cases (Swift keeps the case in the
/// pointer's spare bits). Making one costs far less than an input's file I/O.
public enum StoreFuzzing {
    /// A folder of this process's own, on tmpfs when there is one (saves fsync the files they write), removed at
    /// exit. A crash skips that, so the folders of processes that are gone are removed first.
    public static let folder: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let base = FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let prefix = "almanac-fuzz-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
        let folder = base.appendingPathComponent("\(prefix)\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot create the fuzzer's folder \(folder.path): \(error)")
        }
        atexit { try? FileManager.default.removeItem(at: StoreFuzzing.folder) }
        return folder
    }()

    /// Writes `bytes` as a store file and opens it like the daemon opens a file dropped into its folder (the
    /// `Schedule` configuration, read-write); a store refused for another model version is opened again with
    /// `.ignoresModelVersion` (which also skips unknown properties). A store that loads is then used: every object of
    /// every entity fetched with its properties read, every template of the model run, and a new object saved, which
    /// writes the store again and must give a file that loads again.
    ///
    /// Every failure must be a `StoreError`; anything else, a trap or a written file that does not load again is a
    /// finding.
    public static func openAndUse(_ bytes: Data, type: PersistentStoreType, fileName: String) {
        let url = folder.appendingPathComponent(fileName)
        do {
            try bytes.write(to: url)
        } catch {
            fatalError("cannot write the input to \(url.path): \(error)")
        }
        for options: PersistentStoreOptions in [[:], [.ignoresModelVersion: true]] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
            let store: PersistentStore
            do {
                store = try coordinator.addPersistentStore(
                    type: type, configurationName: "Schedule", at: url, options: options)
            } catch let error as StoreError where error.code == .incompatibleModel {
                continue
            } catch is StoreError {
                return
            } catch {
                fatalError("opening a store threw \(Swift.type(of: error)), not a StoreError: \(error)")
            }
            use(coordinator)
            rewrite(store, of: coordinator, type: type, options: options)
            return
        }
    }

    /// Fetches every object of the configuration's entities, sorted by all their attributes, and reads each
    /// property; runs every template of the model.
    static func use(_ coordinator: PersistentStoreCoordinator) {
        let model = coordinator.managedObjectModel
        let context = ManagedObjectContext(coordinator: coordinator)
        for entity in model.entities(forConfigurationName: "Schedule") ?? [] {
            let request = FetchRequest(entityName: entity.name)
            request.sortKeys = entity.attributesByName.keys.sorted().map { SortKey($0) }
            guard let objects = try? context.fetch(request) else { continue }
            for object in objects {
                for property in entity.allProperties { _ = object.value(forKey: property.name) }
            }
        }
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let variables: [String: Any?] = [
            "DAY": "2026-01-01", "ROOM": "A", "NOW": now, "START": now, "END": now.addingTimeInterval(86_400),
            "ACRONYM": "X", "TEXT": "a",
        ]
        for name in model.fetchRequestTemplateNames {
            guard let request = try? model.fetchRequestFromTemplate(withName: name, substitutionVariables: variables)
            else { continue }
            _ = try? context.fetch(request)
            _ = try? context.count(for: request)
        }
    }

    /// Saves a new object into the loaded store, which writes the whole store over its file; when that succeeds, the
    /// file must load again with the same options.
    static func rewrite(
        _ store: PersistentStore, of coordinator: PersistentStoreCoordinator, type: PersistentStoreType,
        options: PersistentStoreOptions
    ) {
        let context = ManagedObjectContext(coordinator: coordinator)
        context.insertNewObject(forEntityName: "Room").setValue("Fuzz", forKey: "name")
        do {
            try context.save()
        } catch is StoreError {
            return
        } catch is ValidationError {
            return
        } catch {
            fatalError("saving into a loaded store threw \(Swift.type(of: error)), not a StoreError: \(error)")
        }
        guard let url = store.url else { return }
        do {
            let again = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
            try again.addPersistentStore(type: type, configurationName: "Schedule", at: url, options: options)
        } catch {
            let bytes = (try? Data(contentsOf: url)) ?? Data()
            fatalError("a store that loaded and was saved does not load again: \(error)\n"
                + String(decoding: bytes.prefix(4096), as: UTF8.self))
        }
    }

    // MARK: Seeds

    /// Writes seed stores of `type` into `folder`: a small store made in code, and one per schedule file in
    /// `sources` (frab XML or JSON, iCalendar), read by the real readers and migrated into a store of `type`.
    /// Files the readers refuse are skipped with a message.
    public static func writeSeeds(type: PersistentStoreType, fileExtension: String, to folder: URL, sources: [URL]) {
        ScheduleFileStore.registerTypes()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try writeSmallStore(type: type, to: folder.appendingPathComponent("generated-small.\(fileExtension)"))
        } catch {
            fatalError("cannot write the small seed store: \(error)")
        }
        for source in sources {
            let sourceType: PersistentStoreType
            switch (try? Data(contentsOf: source)).flatMap(ScheduleFormat.sniff) {
            case .frabXML: sourceType = .frabXML
            case .frabJSON: sourceType = .frabJSON
            case .iCalendar: sourceType = .iCalendar
            case nil: continue
            }
            let destination = folder.appendingPathComponent(
                "generated-\(source.deletingPathExtension().lastPathComponent).\(fileExtension)")
            try? FileManager.default.removeItem(at: destination)
            do {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
                let store = try coordinator.addPersistentStore(
                    type: sourceType, configurationName: "Schedule", at: source, options: [.readOnly: true])
                try coordinator.migratePersistentStore(store, to: destination, type: type)
            } catch {
                print("fuzz: no seed from \(source.lastPathComponent): \(error)")
            }
        }
    }

    /// A store with one object of each schedule entity, every relationship set.
    static func writeSmallStore(type: PersistentStoreType, to url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
        try coordinator.addPersistentStore(type: type, configurationName: "Schedule", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let conference = context.insertNewObject(forEntityName: "Conference")
        conference.setValue("FZ26", forKey: "acronym")
        conference.setValue("Fuzz & <Friends> \u{1F600}", forKey: "title")
        conference.setValue("Europe/Berlin", forKey: "timeZone")
        conference.setValue(start, forKey: "start")
        let day = context.insertNewObject(forEntityName: "Day")
        day.setValue(1, forKey: "index")
        day.setValue("2026-01-01", forKey: "date")
        day.setValue(start, forKey: "start")
        day.setValue(conference, forKey: "conference")
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("A", forKey: "name")
        let track = context.insertNewObject(forEntityName: "Track")
        track.setValue("Tools", forKey: "name")
        let person = context.insertNewObject(forEntityName: "Person")
        person.setValue("Ann", forKey: "name")
        let session = context.insertNewObject(forEntityName: "Session")
        session.setValue("0b1e0c6a-0000-0000-0000-000000000001", forKey: "guid")
        session.setValue("Opening", forKey: "title")
        session.setValue(start, forKey: "start")
        session.setValue(start.addingTimeInterval(1800), forKey: "end")
        session.setValue(30, forKey: "duration")
        for (key, value) in [("conference", conference), ("day", day), ("room", room), ("track", track)] {
            session.setValue(value, forKey: key)
        }
        session.addObject(person, toRelationship: "persons")
        try context.save()
    }
}
