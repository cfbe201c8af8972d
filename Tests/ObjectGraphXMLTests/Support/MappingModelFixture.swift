import Foundation
import ObjectGraph
@testable import ObjectGraphXML

/// The model of the Apple-written XML store in the shared folder (Xcode's own mapping-model entities): the one the
/// mapping-model reader opens `xcmapping.xml` with, written in Xcode's model format so that reading it exercises the
/// model reader too.
enum MappingModelFixture {
    static func make() throws -> ManagedObjectModel {
        try XcodeMappingStore.model()
    }
}
