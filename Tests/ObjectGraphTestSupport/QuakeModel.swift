import Foundation
import ObjectGraph

/// A model with composite attributes, for the tests of every store type.
enum QuakeModel {
    /// `Quake`: `code`, and `magnitude` made of `richter` (Double), `scale` (String, required) and `recordedAt`
    /// (Date), and `location`, a composite holding the composite `coordinate` (`latitude`, `longitude`) and a
    /// `depth` (Integer 32).
    static func model() -> ManagedObjectModel {
        let magnitude = CompositeAttributeDescription(
            name: "magnitude",
            elements: [
                AttributeDescription(name: "richter", type: .double),
                AttributeDescription(name: "scale", type: .string, isOptional: false),
                AttributeDescription(name: "recordedAt", type: .date),
            ])
        let coordinate = CompositeAttributeDescription(
            name: "coordinate",
            elements: [
                AttributeDescription(name: "latitude", type: .double),
                AttributeDescription(name: "longitude", type: .double),
            ])
        let location = CompositeAttributeDescription(
            name: "location", elements: [coordinate, AttributeDescription(name: "depth", type: .integer32)])
        let quake = EntityDescription(
            name: "Quake", properties: [AttributeDescription(name: "code", type: .string), magnitude, location])
        return ManagedObjectModel(entities: [quake])
    }

    static let recorded = Date(timeIntervalSinceReferenceDate: 789_000_000)

    /// Three quakes: a (4.6 ML, 47.37/8.54 at 10 km), b (6.1 Mw), c (no magnitude).
    static func insertQuakes(into context: ManagedObjectContext) {
        let a = context.insertNewObject(forEntityName: "Quake")
        a.setValue("a", forKey: "code")
        a.setValue(["richter": 4.6, "scale": "ML", "recordedAt": recorded] as [String: Any], forKey: "magnitude")
        a.setValue(
            ["coordinate": ["latitude": 47.37, "longitude": 8.54], "depth": 10] as [String: Any],
            forKey: "location")
        let b = context.insertNewObject(forEntityName: "Quake")
        b.setValue("b", forKey: "code")
        b.setValue(["richter": 6.1, "scale": "Mw"], forKey: "magnitude")
        let c = context.insertNewObject(forEntityName: "Quake")
        c.setValue("c", forKey: "code")
    }
}
