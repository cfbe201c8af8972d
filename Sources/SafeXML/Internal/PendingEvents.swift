/// The (at most three) events decoded ahead of the caller: text that ended at a tag, the tag, and the end event
/// synthesized for an empty element.
struct PendingEvents {
    private var events: [XMLEvent] = []
    private var head = 0

    mutating func append(_ event: XMLEvent) {
        events.append(event)
    }

    var isEmpty: Bool { head == events.count }

    /// Puts `event` before every queued one.
    mutating func prepend(_ event: XMLEvent) {
        if head > 0 {
            head -= 1
            events[head] = event
        } else {
            events.insert(event, at: 0)
        }
    }

    mutating func popFirst() -> XMLEvent? {
        guard head < events.count else { return nil }
        let event = events[head]
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }
}
