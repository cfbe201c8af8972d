import Foundation
import ObjectGraph
import ObjectGraphXML
import Schedules
import Testing

/// The schedule model is kept twice: as the Xcode model file in Sources/Schedules/ObjectModel (the source of truth,
/// which the ObjectGraphCodegen plugin generates the personal entities' classes from) and compiled in
/// (ScheduleModel.swift). They must agree.
@Suite("Schedule model file")
struct ScheduleModelFileTests {
    static let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Schedules/ObjectModel/Schedule.xcdatamodeld")

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
                                 + " indexed=\(attribute.isIndexed) scalar=\(attribute.usesScalarValueType)")
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

    /// The personal entities with behaviour of their own (set on insertion) are Category/Extension: their classes
    /// are written in Schedules, their properties generated; Reminder is generated whole.
    @Test func thePersonalEntitiesAreGeneratedFromTheModelFile() throws {
        let file = try XcodeModelFile(contentsOf: Self.bundle)
        let generated = file.model.entities.map(\.name).filter { file.codeGenerationType(ofEntity: $0) != .manual }
        #expect(generated.sorted() == ["Favorite", "Note", "Reminder", "Run"])
        #expect(file.codeGenerationType(ofEntity: "Reminder") == .classDefinition)
        #expect(file.codeGenerationType(ofEntity: "Session") == .manual)

        ScheduleModel.registerClasses()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
        try coordinator.addPersistentStore(type: .inMemory, configurationName: "Personal")
        let context = ManagedObjectContext(coordinator: coordinator)
        let run = try #require(context.insertNewObject(forEntityName: "Run") as? Run)
        #expect(run.processID == -1)
        #expect(run.date.timeIntervalSinceNow > -60)
        #expect(throws: ValidationError.self) { try context.save() }
        run.processID = 42
        let reminder = try #require(context.insertNewObject(forEntityName: "Reminder") as? Reminder)
        reminder.conferenceAcronym = "ssd26"
        reminder.sessionGUID = "g1"
        #expect(reminder.minutesBefore == 10)
        let favorite = try #require(context.insertNewObject(forEntityName: "Favorite") as? Favorite)
        (favorite.conferenceAcronym, favorite.sessionGUID) = ("ssd26", "g1")
        #expect(favorite.createdAt != nil)
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Run.fetchRequest()).map(\.processID) == [42])
        #expect(try reader.fetch(Reminder.fetchRequest()).map(\.minutesBefore) == [10])
        #expect(try reader.fetch(Favorite.fetchRequest()).map(\.conferenceAcronym) == ["ssd26"])
    }
}
