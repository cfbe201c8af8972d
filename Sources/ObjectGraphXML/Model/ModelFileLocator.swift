import Foundation
import ObjectGraph
import SafeXML

/// Finds the `contents` file of an Xcode model: in an `.xcdatamodel` folder, or in the current (else newest)
/// version of an `.xcdatamodeld` bundle.
enum ModelFileLocator {
    /// The `contents` file that `url` designates. See ``ObjectGraph/ManagedObjectModel/init(contentsOf:)``.
    static func contentsFile(for url: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError(code: .invalidModelFile, message: "There is no model file at \(url.path).")
        }
        guard isDirectory.boolValue else { return url }
        let contents = url.appendingPathComponent("contents")
        if url.pathExtension != "xcdatamodeld", FileManager.default.fileExists(atPath: contents.path) {
            return contents
        }
        let version = try currentVersionName(inBundle: url) ?? newestVersionName(inBundle: url)
        guard let version else {
            throw ModelError(
                code: .invalidModelFile,
                message: "\(url.path) holds no model version (no .xcdatamodel folder and no contents file).")
        }
        let file = url.appendingPathComponent(version).appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ModelError(
                code: .invalidModelFile,
                message: "\(url.lastPathComponent) names \(version) as its current version, but "
                    + "\(file.path) does not exist; fix _XCCurrentVersionName in .xccurrentversion.")
        }
        return file
    }

    /// `_XCCurrentVersionName` of the bundle's `.xccurrentversion` property list; `nil` when missing or empty.
    static func currentVersionName(inBundle bundle: URL) throws -> String? {
        let file = bundle.appendingPathComponent(".xccurrentversion")
        guard let data = try? Data(fileContentsOf: file) else { return nil }
        do {
            var parser = try XMLPullParser(data: data, name: file.lastPathComponent)
            guard let root = try parser.nextChildElement(), root.name == "plist" else {
                throw XMLFormatError("The root element is not <plist>.", line: 0)
            }
            let plist = try PropertyListXMLReader.readPlist(root, from: &parser)
            guard let name = (plist as? [String: any Sendable])?["_XCCurrentVersionName"] as? String,
                !name.isEmpty
            else { return nil }
            return name
        } catch {
            throw ModelError(
                code: .invalidModelFile,
                message: "\(file.path) is not a readable property list: \(error)", cause: error)
        }
    }

    /// The newest version of a bundle: the last `.xcdatamodel` folder in natural order (see ``NaturalSort``) of
    /// the names without the extension.
    static func newestVersionName(inBundle bundle: URL) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        return newestVersionName(among: names)
    }

    /// The newest among folder names: the last `.xcdatamodel` name in natural order of the names without the
    /// extension; `nil` when there is none.
    static func newestVersionName(among names: [String]) -> String? {
        let suffix = ".xcdatamodel"
        let versions = names.filter { $0.hasSuffix(suffix) && $0.count > suffix.count }
        return versions.max {
            NaturalSort.areInIncreasingOrder(
                String($0.dropLast(suffix.count)),
                String($1.dropLast(suffix.count)))
        }
    }

    /// A short name for messages: `Model.xcdatamodel/contents` rather than the whole path.
    static func displayName(of file: URL) -> String {
        guard file.lastPathComponent == "contents" else { return file.lastPathComponent }
        return file.deletingLastPathComponent().lastPathComponent + "/contents"
    }
}
