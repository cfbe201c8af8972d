import CFuzzerDriver
import Foundation
import Schedules

/// The iCalendar reader on arbitrary bytes: it must return a document or throw a `ScheduleError`, never trap,
/// overflow, read out of bounds or hang (recurrence expansion is bounded by `ScheduleReaderLimits`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICalendar(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    _ = try? ICalendarReader().read(data, source: "fuzz.ics")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzICalendar_main`): hands over to libFuzzer's driver.
@_cdecl("FuzzICalendar_main")
public func fuzzICalendarMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzICalendar(data, size) }
}
