import Foundation
import ObjectGraph
import ObjectGraphXML
import Schedules
import Testing

/// The schedule model is kept twice: compiled in, and as an Xcode model file in Data/. They must agree.
@Suite("Schedule model file")
struct ScheduleModelFileTests {
    static let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/Schedule.xcdatamodeld")

    func describe(_ model: ManagedObjectModel) -> [String] {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name) class=\(entity.managedObjectClassName)")
            for constraint in entity.uniquenessConstraints {
                lines.append("  unique: " + constraint.joined(separator: ","))
            }
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                switch property {
                case let attribute as AttributeDescription:
                    lines.append("  \(attribute.name): \(attribute.attributeType.rawValue) optional=\(attribute.isOptional)"
                                 + " indexed=\(attribute.isIndexed)")
                case let relationship as RelationshipDescription:
                    lines.append("  \(relationship.name) -> \(relationship.destinationEntityName) many="
                                 + "\(relationship.isToMany) inverse=\(relationship.inverseName ?? "-") "
                                 + "rule=\(relationship.deleteRule.rawValue) ordered=\(relationship.isOrdered)")
                default:
                    lines.append("  \(property.name)")
                }
            }
        }
        for name in model.configurations.sorted() {
            lines.append("configuration \(name): "
                         + (model.entities(forConfigurationName: name) ?? []).map(\.name).sorted().joined(separator: ","))
        }
        for (name, template) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("template \(name) \(template.entityName): \(template.predicate?.predicateFormat ?? "")")
        }
        return lines
    }

    @Test func theModelFileMatchesTheCompiledInModel() throws {
        let fromFile = try ManagedObjectModel(contentsOf: Self.bundle)
        #expect(describe(fromFile) == describe(ScheduleModel.make()))
        #expect(fromFile.entityVersionHashesByName == ScheduleModel.make().entityVersionHashesByName)
    }
}
