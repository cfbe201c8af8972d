import CFuzzerDriver
import Foundation
import ObjectGraph
import ObjectGraphXML
import StoreFuzzing

/// The XML store on arbitrary bytes, with the schedule model: opening the file must attach a store or throw a
/// `StoreError`, never trap, overflow, read out of bounds or hang; a store that loads must serve fetches and
/// templates and write a file that loads again (`StoreFuzzing.openAndUse`). The store reads files only, so the
/// input is written to a file of the process's own first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLStore(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    StoreFuzzing.openAndUse(data, type: .xml, fileName: "fuzz.xml")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzXMLStore_main`): hands over to libFuzzer's driver.
/// With `FUZZ_WRITE_SEEDS=FOLDER` it writes seed stores there instead (from the schedule files named as arguments).
@_cdecl("FuzzXMLStore_main")
public func fuzzXMLStoreMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    XMLStore.register()
    if let seeds = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
        let sources = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
        StoreFuzzing.writeSeeds(type: .xml, fileExtension: "xml", to: URL(fileURLWithPath: seeds), sources: sources)
        return 0
    }
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzXMLStore(data, size) }
}
