// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Almanac",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "ObjectGraphSQLite", targets: ["ObjectGraphSQLite"]),
        .library(name: "SafeXML", targets: ["SafeXML"]),
    ],
    targets: [
        // System libraries, called only through the small wrappers below.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // The framework and its stores.
        .target(name: "ObjectGraph"),
        .target(name: "SafeXML", dependencies: ["CLibXML2"]),
        .target(name: "ObjectGraphSQLite", dependencies: ["CSQLite"]),

        // Schedules: the schedule model and the readers of schedule formats.
        .target(name: "Schedules", dependencies: ["ObjectGraph", "SafeXML"]),

        // The daemon.
        .target(name: "AlmanacDaemon", dependencies: ["ObjectGraph", "Schedules"]),

        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph"]),
        .testTarget(name: "SafeXMLTests", dependencies: ["SafeXML"]),
        .testTarget(name: "ObjectGraphSQLiteTests", dependencies: ["ObjectGraphSQLite", "CSQLite"]),
        .testTarget(name: "SchedulesTests", dependencies: ["Schedules"]),
        .testTarget(name: "AlmanacDaemonTests", dependencies: ["AlmanacDaemon"]),
    ],
    swiftLanguageModes: [.v6]
)
