import Foundation
import ObjectGraph
import ObjectGraphSQLite
import ObjectGraphXML
import Schedules

// Writes the project's own sample data into Data/: made-up schedules as Core Data stores (a WWDC-style pair of XML
// stores, one per day; a binary store; a SQLite store). The schedule model's file is kept by hand in
// Sources/Schedules/ObjectModel/Schedule.xcdatamodeld (the source of truth; a test checks ScheduleModel agrees).
// Usage: swift run --package-path Benchmarks SampleData

let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
let schedules = data.appendingPathComponent("schedules")
let fileManager = FileManager.default

XMLStore.register()
SQLiteStore.register()
let berlin = TimeZone(identifier: "America/Los_Angeles")!

func date(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "America/Los_Angeles")!
    return calendar.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
}

/// Writes one store of a made-up conference day.
@MainActor
func writeStore(type: PersistentStoreType, file: String, acronym: String, title: String, day: Int, index: Int,
                rooms: [String], talks: [(String, String, Int, Int)]) throws {
    let url = schedules.appendingPathComponent(file)
    for suffix in ["", "-wal", "-shm"] { try? fileManager.removeItem(atPath: url.path + suffix) }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
    let options: PersistentStoreOptions = type == .sqlite ? [.sqliteUsesRollbackJournal: true] : [:]
    try coordinator.addPersistentStore(type: type, configurationName: "Schedule", at: url, options: options)
    let context = ManagedObjectContext(coordinator: coordinator)
    let conference = context.insertNewObject(forEntityName: "Conference")
    conference.setValue(acronym, forKey: "acronym")
    conference.setValue(title, forKey: "title")
    conference.setValue(berlin.identifier, forKey: "timeZone")
    conference.setValue(date(day, 0), forKey: "start")
    conference.setValue(date(day, 23, 59), forKey: "end")
    conference.setValue("1.0", forKey: "version")
    conference.setValue(file, forKey: "source")
    let dayObject = context.insertNewObject(forEntityName: "Day")
    dayObject.setValue(index, forKey: "index")
    dayObject.setValue(String(format: "2026-11-%02d", day), forKey: "date")
    dayObject.setValue(date(day, 9), forKey: "start")
    dayObject.setValue(date(day, 19), forKey: "end")
    dayObject.setValue(conference, forKey: "conference")
    var roomObjects: [String: ManagedObject] = [:]
    for name in rooms {
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue(name, forKey: "name")
        roomObjects[name] = room
    }
    for (number, talk) in talks.enumerated() {
        let session = context.insertNewObject(forEntityName: "Session")
        session.setValue("\(acronym)-\(day)-\(number + 1)", forKey: "guid")
        session.setValue(String(100 * index + number + 1), forKey: "eventID")
        session.setValue(talk.0, forKey: "title")
        session.setValue(date(day, talk.2, talk.3), forKey: "start")
        session.setValue(date(day, talk.2, talk.3).addingTimeInterval(40 * 60), forKey: "end")
        session.setValue(40, forKey: "duration")
        session.setValue("en", forKey: "language")
        session.setValue("session", forKey: "type")
        session.setValue(conference, forKey: "conference")
        session.setValue(dayObject, forKey: "day")
        session.setValue(roomObjects[talk.1], forKey: "room")
    }
    try context.save()
}

let rooms = ["Hall 1", "Hall 2", "Lab A"]
try writeStore(type: .xml, file: "devcon-2026-day1.xml", acronym: "devcon26", title: "DevCon 2026 (day 1)", day: 30,
               index: 1, rooms: rooms, talks: [
                   ("Keynote", "Hall 1", 10, 0), ("Platforms State of the Union", "Hall 1", 13, 0),
                   ("What's new in persistence", "Hall 2", 14, 0), ("Meet the object graph", "Hall 2", 15, 0),
                   ("Lab: data modeling", "Lab A", 14, 0), ("Design awards", "Hall 1", 17, 0),
               ])
try writeStore(type: .xml, file: "devcon-2026-day2.xml", acronym: "devcon26", title: "DevCon 2026 (day 2)", day: 31,
               index: 2, rooms: rooms, talks: [
                   ("Faulting in depth", "Hall 1", 10, 0), ("Predicates and sort keys", "Hall 2", 10, 0),
                   ("Migrating your store", "Hall 1", 11, 0), ("Lab: performance", "Lab A", 13, 0),
                   ("Undo, redo and you", "Hall 2", 14, 0),
               ])
try writeStore(type: .binary, file: "community-meetup-2026.binary", acronym: "meetup26", title: "Community Meetup",
               day: 26, index: 1, rooms: ["Library"], talks: [
                   ("Lightning talks", "Library", 18, 30), ("Pizza and demos", "Library", 19, 30),
               ])
try writeStore(type: .sqlite, file: "lunch-talks-2026.sqlite", acronym: "lunch26", title: "Lunch Talks",
               day: 25, index: 1, rooms: ["Cafeteria"], talks: [
                   ("Reading a Core Data SQLite file by hand", "Cafeteria", 12, 0),
               ])
print("wrote the sample data in \(data.path)")
