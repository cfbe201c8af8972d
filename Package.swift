// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Almanac",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
    ],
    targets: [
        .target(name: "ObjectGraph"),
        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph"]),
    ],
    swiftLanguageModes: [.v6]
)
