import CFuzzerDriver
import Foundation
import Schedules

/// The frab XML reader on arbitrary bytes: it must return a document or throw a `ScheduleError`, never trap,
/// overflow, read out of bounds or hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrabXML(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    _ = try? FrabXMLReader().read(data, source: "fuzz.xml")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzFrabXML_main`): hands over to libFuzzer's driver.
@_cdecl("FuzzFrabXML_main")
public func fuzzFrabXMLMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzFrabXML(data, size) }
}
