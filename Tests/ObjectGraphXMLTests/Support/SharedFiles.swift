import Foundation
import Testing
@testable import ObjectGraphTestSupport

/// The real Core Data and Xcode files in the workplace's shared folder: `<packageRoot>/../shared/coredata`.
///
/// Tests that need them are disabled, with a message naming the folder, when it is absent.
enum SharedFiles {
    /// `<packageRoot>/../shared/coredata`, found from this source file's path.
    static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // ObjectGraphXMLTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/coredata")

    /// Whether the shared Core Data files are there.
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: folder.path) }

    /// The trait that skips a test when the shared files are absent.
    static var required: ConditionTrait {
        .enabled(if: isAvailable, "needs the real Core Data files in \(folder.path) (absent here)")
    }

    /// A file of the shared folder.
    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    static let coreStoreModel = "CoreStore-Model.xcdatamodel-contents.xml"
    static let mogeneratorModel = "mogenerator-test.xcdatamodel-contents.xml"
    static let evolutionBundle = "EvolutionDemo.xcdatamodeld"
    static let appleXMLStore = "CoreDataDemo-xcmapping-xml-store.xml"
}
