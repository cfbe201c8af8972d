import CFuzzerDriver
import Foundation
import ObjectGraph
import ObjectGraphXML

/// The Xcode model file reader (`ManagedObjectModel(xmlData:name:)`, the `contents` XML of an `.xcdatamodel`) on
/// arbitrary bytes: it must return a model or throw a `ModelError`, never trap, overflow, read out of bounds or hang.
/// A model that reads is then
/// - written (`xmlData()`, which may throw a `ModelError` for names or values XML cannot hold): the written file must
///   read again to a model that writes the same bytes and has the same entity version hashes (the documented
///   round trip of `xmlData()`), and
/// - used: a coordinator freezes it, and one object of each concrete entity is inserted into an in-memory store and
///   saved (validation errors are fine).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let model: ManagedObjectModel
    do {
        model = try ManagedObjectModel(xmlData: data, name: "fuzz.xcdatamodel/contents")
    } catch is ModelError {
        return 0
    } catch {
        fatalError("reading a model file threw \(type(of: error)), not a ModelError: \(error)")
    }
    checkRoundTrip(model)
    use(model)
    return 0
}

/// Writes the model and reads it back: same bytes when written again, same version hashes.
func checkRoundTrip(_ model: ManagedObjectModel) {
    let written: Data
    do {
        written = try model.xmlData()
    } catch is ModelError {
        return
    } catch {
        fatalError("writing a model threw \(type(of: error)), not a ModelError: \(error)")
    }
    let text = String(decoding: written, as: UTF8.self)
    let reread: ManagedObjectModel
    do {
        reread = try ManagedObjectModel(xmlData: written, name: "written/contents")
    } catch {
        fatalError("a written model does not read again: \(error)\n\(text)")
    }
    let rewritten = try? reread.xmlData()
    precondition(rewritten == written, "a written model writes differently once read again:\n\(text)\n"
        + String(decoding: rewritten ?? Data(), as: UTF8.self))
    precondition(reread.entityVersionHashesByName == model.entityVersionHashesByName,
        "a written model reads back with other entity version hashes:\n\(text)")
}

/// Freezes the model in a coordinator and saves one object of each concrete entity into an in-memory store.
func use(_ model: ManagedObjectModel) {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    do {
        try coordinator.addPersistentStore(type: .inMemory)
    } catch {
        fatalError("an in-memory store cannot be added for a model that read: \(error)")
    }
    let context = ManagedObjectContext(coordinator: coordinator)
    for entity in model.entities where !entity.isAbstract {
        _ = context.insertNewObject(forEntityName: entity.name)
    }
    _ = try? context.save()
}

/// The executable's entry point (SwiftPM links `main` to `FuzzModelFile_main`): hands over to libFuzzer's driver.
@_cdecl("FuzzModelFile_main")
public func fuzzModelFileMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzModelFile(data, size) }
}
