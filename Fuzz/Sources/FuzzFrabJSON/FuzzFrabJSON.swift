import CFuzzerDriver
import Foundation
import Schedules

/// The frab JSON reader on arbitrary bytes: it must return a document or throw a `ScheduleError`, never trap,
/// overflow, read out of bounds or hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrabJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    _ = try? FrabJSONReader().read(data, source: "fuzz.json")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzFrabJSON_main`): hands over to libFuzzer's driver.
@_cdecl("FuzzFrabJSON_main")
public func fuzzFrabJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzFrabJSON(data, size) }
}
