import Foundation
import PackagePlugin

/// Generates typed `ManagedObject` subclasses from the Xcode model files (`.xcdatamodeld` bundles, `.xcdatamodel`
/// folders) in a target's folder, when the target is built: one Swift file per model, compiled with the target.
///
/// Which entities: those whose Codegen (in Xcode's model editor) is Class Definition or Category/Extension; every
/// entity when `objectgraph-codegen.json` in the target's folder says `{"entities": "all"}`. The same file may set
/// `"accessLevel"` (`public`, the default, `package` or `internal`). See the ObjectGraph article "Generating
/// classes from a model file".
@main
struct ObjectGraphCodegen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "objectgraph-codegen")
        let root = target.directoryURL
        let config = root.appending(path: "objectgraph-codegen.json")
        let hasConfig = FileManager.default.fileExists(atPath: config.path)
        return Self.modelFiles(in: root).map { model in
            // The model's own files (every version's contents, the current-version plist) are the inputs, so
            // that editing one regenerates the classes.
            var inputs = Self.files(in: model)
            if hasConfig { inputs.append(config) }
            let output = context.pluginWorkDirectoryURL.appending(
                path: model.deletingPathExtension().lastPathComponent + "+Classes.swift")
            var arguments = [model.path, "--output", output.path]
            if hasConfig { arguments += ["--config", config.path] }
            return .buildCommand(
                displayName: "Generating classes from \(model.lastPathComponent)",
                executable: tool.url, arguments: arguments, inputFiles: inputs, outputFiles: [output])
        }
    }

    /// The `.xcdatamodeld` bundles below a folder, and the `.xcdatamodel` folders outside any bundle, sorted.
    static func modelFiles(in folder: URL) -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        else { return [] }
        var models: [URL] = []
        for case let url as URL in enumerator {
            switch url.pathExtension {
            case "xcdatamodeld", "xcdatamodel":
                models.append(url)
                enumerator.skipDescendants()
            default: continue
            }
        }
        return models.sorted { $0.path < $1.path }
    }

    /// Every file inside a model (hidden ones included: `.xccurrentversion`).
    static func files(in model: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: model, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [URL] = []
        for case let url as URL in enumerator {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }
}
