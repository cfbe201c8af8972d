/// A `BEGIN:X … END:X` block with its properties and nested components.
struct ICalendarComponent: Sendable {
    var name: String
    var line: Int
    var properties: [ContentLine] = []
    var children: [ICalendarComponent] = []

    /// The first property with this (uppercased) name.
    func property(_ name: String) -> ContentLine? { properties.first { $0.name == name } }

    /// All properties with this (uppercased) name.
    func properties(_ name: String) -> [ContentLine] { properties.filter { $0.name == name } }

    /// Builds the component tree. Throws `notWellFormed` naming the line for an `END` that does not match
    /// its `BEGIN`, content outside any component, or a component left open at the end of the input
    /// (a truncated file).
    static func parseTree(_ lines: [ContentLine], source: String, maxDepth: Int) throws(ScheduleError)
        -> [ICalendarComponent]
    {
        var stack: [ICalendarComponent] = []
        var roots: [ICalendarComponent] = []
        for line in lines {
            switch line.name {
            case "BEGIN":
                let name = line.value.trimmingSpaces.uppercased()
                guard !name.isEmpty else {
                    throw ScheduleError(
                        code: .notWellFormed, message: "BEGIN without a component name; name the component.",
                        line: line.line, source: source)
                }
                guard stack.count < maxDepth else {
                    throw ScheduleError(
                        code: .tooDeeplyNested,
                        message: "Components nest deeper than \(maxDepth) levels; flatten the calendar.",
                        line: line.line, source: source)
                }
                stack.append(ICalendarComponent(name: name, line: line.line))
            case "END":
                let name = line.value.trimmingSpaces.uppercased()
                guard let open = stack.popLast() else {
                    throw ScheduleError(
                        code: .notWellFormed, message: "END:\(name) without a matching BEGIN; remove it.",
                        line: line.line, source: source)
                }
                guard open.name == name else {
                    throw ScheduleError(
                        code: .notWellFormed,
                        message: "END:\(name) closes BEGIN:\(open.name) from line \(open.line); fix the nesting.",
                        line: line.line, source: source)
                }
                if stack.isEmpty { roots.append(open) } else { stack[stack.count - 1].children.append(open) }
            default:
                guard !stack.isEmpty else {
                    throw ScheduleError(
                        code: .notWellFormed,
                        message:
                            "Property \(line.name) outside BEGIN:VCALENDAR…END:VCALENDAR; the file is not iCalendar.",
                        line: line.line, source: source)
                }
                stack[stack.count - 1].properties.append(line)
            }
        }
        if let open = stack.last {
            throw ScheduleError(
                code: .notWellFormed,
                message: "BEGIN:\(open.name) from line \(open.line) is never closed; the file is probably truncated.",
                line: lines.last?.line, source: source)
        }
        return roots
    }
}
