import Foundation
import ObjectGraph

/// One version of a versioned Xcode model (an `.xcdatamodel` folder inside an `.xcdatamodeld` bundle).
public struct ModelVersion: Sendable {
    /// The version's folder name without `.xcdatamodel`, for example `Model 2`.
    public var name: String
    /// The version identifier: the model's `userDefinedModelVersionIdentifier` when it has one, else ``name``.
    public var identifier: String
    /// The model of this version.
    public var model: ManagedObjectModel
    /// Whether the bundle's `.xccurrentversion` names this version (or, without one, it is the newest).
    public var isCurrent: Bool
}

extension ManagedObjectModel {
    /// Reads every version of an `.xcdatamodeld` bundle, oldest first.
    ///
    /// Versions are ordered as ``init(contentsOf:)`` orders them to find the newest: by the natural order of the
    /// folder names without their extension (`Model` < `Model 2` < `Model 10`). Each model is frozen; its
    /// `versionIdentifiers` hold the identifier Xcode wrote, if any. A folder that is not a bundle (a single
    /// `.xcdatamodel` or `contents` file) gives one version.
    ///
    /// - Throws: `ModelError/Code/invalidModelFile` when the bundle or one of its versions cannot be read.
    public static func versions(in url: URL) throws -> [ModelVersion] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError(code: .invalidModelFile, message: "There is no model file at \(url.path).")
        }
        let single = !isDirectory.boolValue || url.pathExtension != "xcdatamodeld"
        if single {
            let model = try ManagedObjectModel(contentsOf: url)
            model.freeze()
            let name =
                url.lastPathComponent == "contents"
                ? url.deletingLastPathComponent().deletingPathExtension().lastPathComponent
                : url.deletingPathExtension().lastPathComponent
            return [
                ModelVersion(
                    name: name, identifier: model.versionIdentifiers.sorted().first ?? name,
                    model: model, isCurrent: true)
            ]
        }
        let suffix = ".xcdatamodel"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
            .filter { $0.hasSuffix(suffix) && $0.count > suffix.count }
            .sorted {
                NaturalSort.areInIncreasingOrder(String($0.dropLast(suffix.count)), String($1.dropLast(suffix.count)))
            }
        guard !names.isEmpty else {
            throw ModelError(
                code: .invalidModelFile,
                message: "\(url.path) holds no model version (no .xcdatamodel folder).")
        }
        let current = try ModelFileLocator.currentVersionName(inBundle: url) ?? names.last
        return try names.map { folder in
            let model = try ManagedObjectModel(contentsOf: url.appendingPathComponent(folder))
            model.freeze()
            let name = String(folder.dropLast(suffix.count))
            return ModelVersion(
                name: name, identifier: model.versionIdentifiers.sorted().first ?? name,
                model: model, isCurrent: folder == current || name == current)
        }
    }

    /// The model among every version of the given bundles (or model files) that wrote a store, from its metadata.
    ///
    /// Core Data's `mergedModel(from:forStoreMetadata:)` over model files: reads every version of each bundle and
    /// picks among them as `ManagedObjectModel.mergedModel(from:forStoreMetadata:)` does for models.
    /// - Throws: `ModelError/Code/invalidModelFile` when a file cannot be read.
    public static func mergedModel(from urls: [URL], forStoreMetadata metadata: StoreMetadata) throws
        -> ManagedObjectModel?
    {
        let models = try urls.flatMap { try versions(in: $0).map(\.model) }
        return mergedModel(from: models, forStoreMetadata: metadata)
    }
}
