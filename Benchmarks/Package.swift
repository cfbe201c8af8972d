// swift-tools-version: 6.1
import PackageDescription

// The benchmark harness: a package of its own so that `swift build` and `swift test` of the product never build it.
let package = Package(
    name: "AlmanacBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the products below resolve whatever the checkout folder is called (its identity is the
        // folder name: "main", "rel", "Almanac"…).
        .package(name: "Almanac", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // PostgresNIO used by hand: the anchor of the PostgreSQL store's rows (the version the store resolves).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteRaw", pkgConfig: "sqlite3"),
        // What every benchmark shares: figures and result rows (the shape scripts/bench-all.sh merges), the table,
        // the seeded generator, the SQLite workloads' model and rows.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "ObjectGraph", package: "Almanac")]
        ),
        .executableTarget(
            name: "AlmanacBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ObjectGraph", package: "Almanac"),
                .product(name: "ObjectGraphSQLite", package: "Almanac"),
                .product(name: "Schedules", package: "Almanac"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ObjectGraphPostgres", package: "Almanac"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .executableTarget(
            name: "SQLiteBench",
            dependencies: [
                "BenchmarkSupport",
                "CSQLiteRaw",
                .product(name: "ObjectGraph", package: "Almanac"),
                .product(name: "ObjectGraphSQLite", package: "Almanac"),
            ]
        ),
        .executableTarget(
            name: "SampleData",
            dependencies: [
                .product(name: "ObjectGraph", package: "Almanac"),
                .product(name: "ObjectGraphXML", package: "Almanac"),
                .product(name: "ObjectGraphSQLite", package: "Almanac"),
                .product(name: "Schedules", package: "Almanac"),
            ]
        ),
        .executableTarget(
            name: "CrashSafety",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ObjectGraph", package: "Almanac"),
                .product(name: "ObjectGraphXML", package: "Almanac"),
                .product(name: "ObjectGraphSQLite", package: "Almanac"),
            ]
        ),
        .executableTarget(
            name: "XMLStoreBench",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ObjectGraph", package: "Almanac"),
                .product(name: "ObjectGraphXML", package: "Almanac"),
                .product(name: "Schedules", package: "Almanac"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
