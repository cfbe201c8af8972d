import Foundation
import ObjectGraph

extension ManagedObjectModel {
    /// Reads a model from an Xcode model file.
    ///
    /// `url` may be:
    /// - an `.xcdatamodeld` bundle: the version that its `.xccurrentversion` property list names in
    ///   `_XCCurrentVersionName`; when that is missing or empty, the newest version, which is the last
    ///   `.xcdatamodel` folder of the bundle in natural order of the names without their extension (digit runs
    ///   compare by value, other text case-insensitively, and a name sorts before its longer variants: `Model` <
    ///   `Model 2` < `Model 10`, `App` < `App.V2`);
    /// - an `.xcdatamodel` folder (or any folder with a `contents` file): its `contents`;
    /// - a `contents` file itself.
    ///
    /// - Throws: `ModelError/Code/invalidModelFile` for an unreadable or malformed file, naming the element and
    ///   its line: unknown attribute types or delete rules, a relationship whose destination, inverse or parent
    ///   entity the model lacks, a configuration member or template entity that does not exist, a malformed
    ///   predicate string. Unknown elements and attributes are ignored.
    public convenience init(contentsOf url: URL) throws {
        let file = try ModelFileLocator.contentsFile(for: url)
        let data: Data
        do {
            data = try Data(fileContentsOf: file)
        } catch {
            throw ModelError(
                code: .invalidModelFile, message: "Could not read the model file \(file.path).",
                cause: error)
        }
        try self.init(xmlData: data, name: ModelFileLocator.displayName(of: file))
    }

    /// Reads a model from the XML of an Xcode model's `contents` file.
    ///
    /// - Parameters:
    ///   - xmlData: the `contents` XML.
    ///   - name: the file's name, used in error messages.
    /// - Throws: `ModelError/Code/invalidModelFile` as described for ``init(contentsOf:)``.
    public convenience init(xmlData: Data, name: String) throws {
        let contents = try ModelFileReader(data: xmlData, name: name).read()
        self.init(entities: contents.entities)
        try ModelFileAssembler.assemble(self, from: contents, fileName: name)
    }

    /// The model in the format of an Xcode model's `contents` file, deterministically: the same model always
    /// gives the same bytes, and reading them back gives an equal model.
    ///
    /// Entities and properties keep their order; dictionaries (user info) are sorted by key; templates are sorted
    /// by name. Not representable in the format, and so not written: templates' sort keys, properties to fetch
    /// and prefetching key paths, fetched properties' sort keys, validation predicates and the localization
    /// dictionary. Of several version identifiers only the first in sorted order is written.
    ///
    /// - Throws: `ModelError/Code/invalidModelFile` when a name or value cannot be written as XML (for
    ///   example a control character in a user-info value).
    public func xmlData() throws -> Data {
        try ModelFileWriter.data(for: self)
    }
}
