import CFuzzerDriver
import Foundation
import ObjectGraph
import StoreFuzzing

/// The binary store on arbitrary bytes, with the schedule model: opening the file must attach a store or throw a
/// `StoreError`, never trap, overflow, read out of bounds or hang; a store that loads must serve fetches and
/// templates and write a file that loads again (`StoreFuzzing.openAndUse`).
///
/// The format ends with a checksum of every byte before it, which nearly every mutation breaks; so that mutations
/// reach the body, the correct checksum is written over the input's last 8 bytes (inputs of the minimum length and
/// more). The store reads files only, so the input is written to a file of the process's own first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryStore(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    if bytes.count >= 20 {
        let checksum = fnv1a(bytes[..<(bytes.count - 8)])
        for index in 0..<8 { bytes[bytes.count - 8 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * index)) }
    }
    StoreFuzzing.openAndUse(Data(bytes), type: .binary, fileName: "fuzz.binary")
    return 0
}

/// The format's checksum, FNV-1a 64 (as `BinaryStoreFormat` computes it).
func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
}

/// The executable's entry point (SwiftPM links `main` to `FuzzBinaryStore_main`): hands over to libFuzzer's driver.
/// With `FUZZ_WRITE_SEEDS=FOLDER` it writes seed stores there instead (from the schedule files named as arguments).
@_cdecl("FuzzBinaryStore_main")
public func fuzzBinaryStoreMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    if let seeds = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
        let sources = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
        StoreFuzzing.writeSeeds(type: .binary, fileExtension: "binary", to: URL(fileURLWithPath: seeds),
                                sources: sources)
        return 0
    }
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzBinaryStore(data, size) }
}
