import Foundation

/// What `JSONSerialization` loses from a frab JSON file, found by one scan of its bytes: the order of the room
/// keys of each day (JSON objects have no order, but the file has one, and apps show rooms in it) and the line of
/// each event object, for warnings.
///
/// Looks only at `schedule.conference.days[i].rooms`; everything else is skipped. Linear in the input; the nesting
/// depth was checked before.
struct FrabJSONOutline {
    /// For each day position, its room keys in file order.
    private(set) var roomKeys: [Int: [String]] = [:]
    /// The 1-based line of each event object, by day position, room key and position in the room's list.
    private(set) var eventLines: [EventPosition: Int] = [:]

    struct EventPosition: Hashable {
        var day: Int
        var room: String
        var index: Int
    }

    private enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    private struct Frame {
        var isObject: Bool
        /// The step that led into this container from its parent.
        var step: Step?
        /// The key whose value comes next (objects) or the next element's position (arrays).
        var pendingKey: String?
        var nextIndex = 0
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        var stack: [Frame] = []
        var line = 1
        var index = 0
        var expectingKey = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 10:
                line += 1
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let step = Self.stepInto(&stack)
                let isObject = byte == UInt8(ascii: "{")
                stack.append(Frame(isObject: isObject, step: step))
                expectingKey = isObject
                if isObject, let event = eventPosition(stack) { eventLines[event] = line }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
                expectingKey = false
                index += 1
            case UInt8(ascii: ","):
                expectingKey = stack.last?.isObject ?? false
                index += 1
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                var escaped = false
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                guard end < bytes.count else { return }
                if expectingKey, !stack.isEmpty {
                    let key = Self.decode(bytes, from: start, to: end, escaped: escaped)
                    stack[stack.count - 1].pendingKey = key
                    if let day = roomsObjectDay(stack) { roomKeys[day, default: []].append(key) }
                    expectingKey = false
                } else {
                    _ = Self.stepInto(&stack)
                }
                index = end + 1
            case UInt8(ascii: ":"), 9, 13, 32:
                index += 1
            default:
                // A number, true, false or null: a scalar value.
                _ = Self.stepInto(&stack)
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 10, 13, 32, 9]
                        .contains(bytes[index])
                {
                    index += 1
                }
            }
        }
    }

    /// Consumes the parent's pending key or next index for a value starting now; returns the step.
    private static func stepInto(_ stack: inout [Frame]) -> Step? {
        guard !stack.isEmpty else { return nil }
        let last = stack.count - 1
        if stack[last].isObject {
            let key = stack[last].pendingKey
            stack[last].pendingKey = nil
            return key.map(Step.key)
        }
        let position = stack[last].nextIndex
        stack[last].nextIndex += 1
        return .index(position)
    }

    private func path(_ stack: [Frame]) -> [Step?] { stack.map(\.step) }

    /// The day position when the innermost container is `schedule.conference.days[i].rooms`.
    private func roomsObjectDay(_ stack: [Frame]) -> Int? {
        guard stack.count == 6 else { return nil }
        let steps = path(stack)
        guard stack[5].isObject, steps[1] == .key("schedule"), steps[2] == .key("conference"),
            steps[3] == .key("days"), case .index(let day)? = steps[4], steps[5] == .key("rooms")
        else { return nil }
        return day
    }

    /// The event's position when the innermost container is `schedule.conference.days[i].rooms[key][j]`.
    private func eventPosition(_ stack: [Frame]) -> EventPosition? {
        guard stack.count == 8 else { return nil }
        let steps = path(stack)
        guard steps[1] == .key("schedule"), steps[2] == .key("conference"),
            steps[3] == .key("days"), case .index(let day)? = steps[4], steps[5] == .key("rooms"),
            case .key(let room)? = steps[6], case .index(let index)? = steps[7]
        else { return nil }
        return EventPosition(day: day, room: room, index: index)
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, escaped: Bool)
        -> String
    {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard escaped else { return String(decoding: slice, as: UTF8.self) }
        var quoted = Data([UInt8(ascii: "\"")])
        quoted.append(contentsOf: slice)
        quoted.append(UInt8(ascii: "\""))
        return (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) as? String
            ?? String(decoding: slice, as: UTF8.self)
    }
}
