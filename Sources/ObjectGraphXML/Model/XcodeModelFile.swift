import Foundation
import ObjectGraph

/// An Xcode model file read with what Xcode's code generation uses besides the model: each entity's Codegen setting.
///
/// ```swift
/// let file = try XcodeModelFile(contentsOf: URL(filePath: "Sources/App/Model.xcdatamodeld"))
/// for entity in file.model.entities where file.codeGenerationType(ofEntity: entity.name) == .classDefinition { … }
/// ```
public struct XcodeModelFile {
    /// Xcode's code generation setting of an entity (the model editor's Codegen menu, `codeGenerationType` in the
    /// `contents` XML).
    public enum CodeGenerationType: String, Sendable, Hashable, CaseIterable {
        /// Manual/None: the application declares the class itself (no `codeGenerationType`).
        case manual
        /// Class Definition (`class`): the class and its properties are generated.
        case classDefinition = "class"
        /// Category/Extension (`category`): the application declares the class, its properties are generated in an
        /// extension.
        case categoryExtension = "category"
    }

    /// The `contents` file that was read (in an `.xcdatamodeld` bundle, its current version's).
    public let contentsURL: URL
    /// The model, as ``ObjectGraph/ManagedObjectModel/init(contentsOf:)`` reads it.
    public let model: ManagedObjectModel
    private let codeGenerationTypes: [String: CodeGenerationType]

    /// Reads a model file: an `.xcdatamodeld` bundle, an `.xcdatamodel` folder or a `contents` file, as
    /// ``ObjectGraph/ManagedObjectModel/init(contentsOf:)`` does.
    ///
    /// - Throws: `ModelError/Code/invalidModelFile` as ``ObjectGraph/ManagedObjectModel/init(contentsOf:)`` does,
    ///   and for a `codeGenerationType` other than `class` and `category`, naming the entity.
    public init(contentsOf url: URL) throws {
        let file = try ModelFileLocator.contentsFile(for: url)
        let data: Data
        do {
            data = try Data(fileContentsOf: file)
        } catch {
            throw ModelError(
                code: .invalidModelFile, message: "Could not read the model file \(file.path).", cause: error)
        }
        let name = ModelFileLocator.displayName(of: file)
        let contents = try ModelFileReader(data: data, name: name).read()
        let model = ManagedObjectModel(entities: contents.entities)
        try ModelFileAssembler.assemble(model, from: contents, fileName: name)
        var types: [String: CodeGenerationType] = [:]
        for (entity, value) in contents.codeGenerationTypes {
            guard let type = CodeGenerationType(rawValue: value), type != .manual else {
                throw ModelError(
                    code: .invalidModelFile,
                    message: "\(name): entity \(entity) has codeGenerationType=\"\(value)\"; Xcode writes "
                        + "\"class\" (Class Definition) or \"category\" (Category/Extension), or nothing (Manual/None)."
                )
            }
            types[entity] = type
        }
        self.contentsURL = file
        self.model = model
        self.codeGenerationTypes = types
    }

    /// An entity's code generation setting: ``CodeGenerationType/manual`` when the file gives none.
    public func codeGenerationType(ofEntity name: String) -> CodeGenerationType {
        codeGenerationTypes[name] ?? .manual
    }
}
