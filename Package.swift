// swift-tools-version: 6.1
import PackageDescription

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]
let lifecycle: [Target.Dependency] = [
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    .product(name: "Logging", package: "swift-log"),
]
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "Almanac",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "ObjectGraphXML", targets: ["ObjectGraphXML"]),
        .library(name: "ObjectGraphSQLite", targets: ["ObjectGraphSQLite"]),
        .library(name: "ObjectGraphPostgres", targets: ["ObjectGraphPostgres"]),
        .library(name: "SafeXML", targets: ["SafeXML"]),
        .library(name: "Schedules", targets: ["Schedules"]),
        .library(name: "AlmanacWire", targets: ["AlmanacWire"]),
        .library(name: "AlmanacDaemon", targets: ["AlmanacDaemon"]),
        .executable(name: "almanacd", targets: ["almanacd"]),
        .executable(name: "almanac", targets: ["almanac"]),
        .executable(name: "objectgraph", targets: ["objectgraph"]),
        // Typed ManagedObject subclasses generated from a target's Xcode model files at build time.
        .plugin(name: "ObjectGraphCodegen", targets: ["ObjectGraphCodegen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Documentation only: `swift package generate-documentation` (CI builds every catalog, warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // System libraries, called only through the small wrappers below.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // zlib's raw inflate: Core Data's model cache inside SQLite stores is deflated.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's malloc.h (malloc_trim: the daemon hands memory back after a flood of connections closed).
        .systemLibrary(name: "CMalloc"),

        // Calendar arithmetic on day numbers, shared with `package` access by the framework, the readers and the wire
        // module: a target of its own, with no dependencies, so the wire module (the client's only dependency)
        // stays free of the framework.
        .target(name: "CivilDates"),

        // The framework and its stores.
        .target(name: "ObjectGraph", dependencies: ["CivilDates"]),
        .target(name: "SafeXML", dependencies: ["CLibXML2"]),
        .target(name: "ObjectGraphXML", dependencies: ["ObjectGraph", "SafeXML"]),
        .target(name: "ObjectGraphSQLite", dependencies: ["CSQLite", "CZlib", "ObjectGraph"]),
        .target(name: "ObjectGraphPostgres",
                dependencies: ["ObjectGraph", .product(name: "PostgresNIO", package: "postgres-nio")] + nio),

        // The class generator and the build-tool plugin that runs it: the tool needs only the model-file reader (its
        // modules are compiled a second time for the host, so nothing else).
        .target(name: "ModelCodegen", dependencies: ["ObjectGraph", "ObjectGraphXML"]),
        .executableTarget(name: "objectgraph-codegen", dependencies: ["ModelCodegen"]),
        .plugin(name: "ObjectGraphCodegen", capability: .buildTool(), dependencies: ["objectgraph-codegen"]),

        // Schedules: the schedule model and the readers of schedule formats. The personal entities' classes are
        // generated from ObjectModel/Schedule.xcdatamodeld.
        .target(name: "Schedules", dependencies: ["CivilDates", "ObjectGraph", "SafeXML"],
                exclude: ["ObjectModel/Schedule.xcdatamodeld"], plugins: ["ObjectGraphCodegen"]),

        // The wire protocol shared by the daemon and its clients.
        .target(name: "AlmanacWire", dependencies: ["CivilDates"]),

        // The daemon and the two executables.
        .target(name: "AlmanacDaemon",
                dependencies: ["ObjectGraph", "ObjectGraphXML", "ObjectGraphSQLite", "ObjectGraphPostgres", "Schedules",
                               "AlmanacWire",
                               .target(name: "CMalloc", condition: .when(platforms: [.linux]))] + nio
                    + lifecycle + [.product(name: "UnixSignals", package: "swift-service-lifecycle")]),
        .executableTarget(name: "almanacd", dependencies: ["AlmanacDaemon", argumentParser] + lifecycle),
        .executableTarget(name: "almanac", dependencies: ["AlmanacWire", argumentParser]),
        // A thin tool for Core Data developers: a store's model, its objects, a copy in another store type.
        .executableTarget(name: "objectgraph",
                          dependencies: ["ObjectGraph", "ObjectGraphXML", "ObjectGraphSQLite", argumentParser]),

        // Test support shared by the framework's test targets: the test model, store kinds, the predicate corpus.
        .target(name: "ObjectGraphTestSupport",
                dependencies: ["ObjectGraph", "ObjectGraphXML", "ObjectGraphSQLite", "ObjectGraphPostgres"],
                path: "Tests/ObjectGraphTestSupport"),
        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ObjectGraphTestSupport"]),
        .testTarget(name: "SafeXMLTests", dependencies: ["SafeXML"]),
        // Generated classes compiled and used: the target's own model file goes through the plugin.
        .testTarget(name: "ModelCodegenTests", dependencies: ["ModelCodegen", "ObjectGraph", "ObjectGraphXML"],
                    exclude: ["Catalog.xcdatamodeld"], plugins: ["ObjectGraphCodegen"]),
        .testTarget(name: "ObjectGraphXMLTests",
                    dependencies: ["ObjectGraphXML", "ObjectGraph", "SafeXML", "ObjectGraphTestSupport"]),
        .testTarget(name: "ObjectGraphSQLiteTests",
                    dependencies: ["ObjectGraphSQLite", "CSQLite", "ObjectGraph", "ObjectGraphTestSupport"]),
        .testTarget(name: "ObjectGraphPostgresTests",
                    dependencies: ["ObjectGraphPostgres", "ObjectGraph", "ObjectGraphTestSupport"]),
        .testTarget(name: "SchedulesTests", dependencies: ["Schedules", "ObjectGraphTestSupport"]),
        .testTarget(name: "AlmanacWireTests", dependencies: ["AlmanacWire"]),
        .testTarget(name: "CivilDatesTests", dependencies: ["CivilDates"]),
        .testTarget(name: "AlmanacDaemonTests",
                    dependencies: ["AlmanacDaemon", "AlmanacWire", "ObjectGraph", "ObjectGraphXML", "Schedules"] + nio
                        + lifecycle),
        .testTarget(name: "almanacTests",
                    dependencies: ["almanac", "almanacd", "objectgraph", "AlmanacWire", "AlmanacDaemon", "CSQLite",
                                   "ObjectGraph", "ObjectGraphSQLite"] + lifecycle,
                    resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)
