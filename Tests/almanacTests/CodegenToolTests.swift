import Foundation
import Testing

/// `objectgraph-codegen`, the tool the ObjectGraphCodegen plugin runs during a build: what a build shows when a
/// model file is broken, and what it writes when it is not.
///
/// The binary is the one the build made for the plugin (`objectgraph-codegen-tool` in the products folder; the
/// Schedules target runs it in every build). Naming the executable as a dependency of this target instead makes
/// SwiftPM 6.3 link its object twice into the test bundle.
struct CodegenToolTests {
    static func run(_ arguments: [String]) async throws -> ProcessRunner.Result {
        let binary = (try? DaemonProcessTests.binary("objectgraph-codegen-tool"))
        return try await ProcessRunner.run(
            try binary ?? DaemonProcessTests.binary("objectgraph-codegen"), arguments: arguments)
    }

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("og-codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Shop.xcdatamodel"), withIntermediateDirectories: true)
        return folder
    }

    @Test func aMalformedModelFailsTheBuildStepNamingTheFileAndWritesNothing() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("Shop.xcdatamodel")
        try Data("<model><entity name=\"Thing\" codeGenerationType=\"class\"><attribute".utf8)
            .write(to: model.appendingPathComponent("contents"))
        let output = folder.appendingPathComponent("Shop+Classes.swift")
        let result = try await Self.run([model.path, "--output", output.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(model.path): error: "), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Shop.xcdatamodel/contents"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let usage = try await Self.run([model.path])
        #expect(usage.status == 1 && usage.stderr.contains("usage: objectgraph-codegen"))
    }

    @Test func aModelFileBecomesTheSourceOfItsClasses() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("Shop.xcdatamodel")
        try Data(
            """
            <model><entity name="Order" representedClassName="Order" codeGenerationType="class">
            <attribute name="total" attributeType="Double" usesScalarValueType="YES"/></entity></model>
            """.utf8
        ).write(to: model.appendingPathComponent("contents"))
        let config = folder.appendingPathComponent("objectgraph-codegen.json")
        try Data(#"{"accessLevel": "internal"}"#.utf8).write(to: config)
        let output = folder.appendingPathComponent("Shop+Classes.swift")
        let result = try await Self.run([model.path, "--output", output.path, "--config", config.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let source = try String(contentsOf: output, encoding: .utf8)
        #expect(source.contains("\nclass Order: ManagedObject {}") && source.contains("var total: Double {"))
        #expect(source.contains("static func registerShopClasses()"))
    }
}
