// swift-tools-version: 6.1
import PackageDescription

// Coverage-guided fuzz targets (libFuzzer). A package of its own so that `swift build` and `swift test` of the
// product never build it; build and run one with `scripts/fuzz.sh TARGET SECONDS`, which passes
// `-sanitize=fuzzer,address`. Each target defines `LLVMFuzzerTestOneInput` and a `main` that hands it to libFuzzer's
// driver (`LLVMFuzzerRunDriver`, declared in CFuzzerDriver).
let objectGraph: Target.Dependency = .product(name: "ObjectGraph", package: "Almanac")
let schedules: Target.Dependency = .product(name: "Schedules", package: "Almanac")
let wire: Target.Dependency = .product(name: "AlmanacWire", package: "Almanac")
let objectGraphXML: Target.Dependency = .product(name: "ObjectGraphXML", package: "Almanac")

let package = Package(
    name: "AlmanacFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Almanac", path: ".."),
    ],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "FuzzPredicate", dependencies: ["CFuzzerDriver", objectGraph]),
        .executableTarget(name: "FuzzFrabXML", dependencies: ["CFuzzerDriver", schedules]),
        .executableTarget(name: "FuzzFrabJSON", dependencies: ["CFuzzerDriver", schedules]),
        .executableTarget(name: "FuzzICalendar", dependencies: ["CFuzzerDriver", schedules]),
        .executableTarget(name: "FuzzWireRequest", dependencies: ["CFuzzerDriver", wire]),
        .executableTarget(name: "FuzzModelFile", dependencies: ["CFuzzerDriver", objectGraph, objectGraphXML]),
        // The store targets share opening, using and rewriting a store file, and writing seed stores.
        .target(name: "StoreFuzzing", dependencies: [objectGraph, schedules]),
        .executableTarget(name: "FuzzXMLStore",
                          dependencies: ["CFuzzerDriver", "StoreFuzzing", objectGraph, objectGraphXML]),
        .executableTarget(name: "FuzzBinaryStore", dependencies: ["CFuzzerDriver", "StoreFuzzing", objectGraph]),
    ],
    swiftLanguageModes: [.v6]
)
