import CFuzzerDriver
import AlmanacWire

/// The daemon's request decoding on arbitrary bytes, as the server runs it: the line framer splits the stream
/// (the input is fed in two chunks, to exercise partial lines), each line becomes a `WireRequest` and then a
/// `WireCommand`. Every step must return a value or throw a `WireError`, never trap. A decoded request must also
/// survive its own encoding: `WireRequest(line: request.encodedLine())` gives back an equal request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireRequest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    var framer = LineFramer(maxLineLength: 4096)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var actions = framer.append(bytes[..<split])
    actions += framer.append(bytes[split...])
    actions += framer.finish()
    actions += [.line(bytes)]  // also the whole input as one line, whatever its newlines
    for action in actions {
        guard case .line(let line) = action else { continue }
        guard let request = try? WireRequest(line: line) else { continue }
        _ = try? WireCommand(request)
        let encoded = request.encodedLine().dropLast()
        guard let again = try? WireRequest(line: encoded) else {
            fatalError("the encoding of a decoded request does not decode: \(String(decoding: encoded, as: UTF8.self))")
        }
        precondition(again == request, "a request changed through its encoding: \(String(decoding: encoded, as: UTF8.self))")
    }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to `FuzzWireRequest_main`): hands over to libFuzzer's driver.
@_cdecl("FuzzWireRequest_main")
public func fuzzWireRequestMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzWireRequest(data, size) }
}
