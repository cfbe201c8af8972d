// swift-tools-version: 6.1
import PackageDescription

// The benchmark harness: a package of its own so that `swift build` and `swift test` of the product never build it.
let package = Package(
    name: "AlmanacBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteRaw", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "AlmanacBenchmarks",
            dependencies: [
                .product(name: "ObjectGraph", package: "main"),
                .product(name: "Schedules", package: "main"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "SQLiteBench",
            dependencies: [
                "CSQLiteRaw",
                .product(name: "ObjectGraph", package: "main"),
                .product(name: "ObjectGraphSQLite", package: "main"),
            ]
        ),
        .executableTarget(
            name: "SampleData",
            dependencies: [
                .product(name: "ObjectGraph", package: "main"),
                .product(name: "ObjectGraphXML", package: "main"),
                .product(name: "ObjectGraphSQLite", package: "main"),
                .product(name: "Schedules", package: "main"),
            ]
        ),
        .executableTarget(
            name: "CrashSafety",
            dependencies: [
                .product(name: "ObjectGraph", package: "main"),
                .product(name: "ObjectGraphXML", package: "main"),
                .product(name: "ObjectGraphSQLite", package: "main"),
            ]
        ),
        .executableTarget(
            name: "XMLStoreBench",
            dependencies: [
                .product(name: "ObjectGraph", package: "main"),
                .product(name: "ObjectGraphXML", package: "main"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
