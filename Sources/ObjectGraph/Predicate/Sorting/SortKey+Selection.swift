import Foundation

extension SortKey {
    /// Whether the key path is a single key (no `.`, `@` or index), so stores may read it without evaluating a path.
    public var isPlainKey: Bool {
        !keyPath.isEmpty && !keyPath.contains(where: { $0 == "." || $0 == "@" || $0 == "[" }) && keyPath != "SELF"
    }

    /// The first `count` items in the order of `keys`, sorted, as `sort(_:by:value:)` would return them, without
    /// sorting the rest: a bounded heap keeps the best `count` seen so far. Ties keep the input order.
    ///
    /// - Complexity: O(n · k) value extractions plus O(n log count) comparisons.
    public static func smallest<T>(_ count: Int, of items: [T], by keys: [SortKey],
                                   value: (T, SortKey) throws -> Any?) rethrows -> [T] {
        guard count > 0 else { return [] }
        guard !keys.isEmpty else { return Array(items.prefix(count)) }
        guard items.count > count else { return try sort(items, by: keys, value: value) }
        let width = keys.count
        var prepared: [SortValue] = []
        prepared.reserveCapacity(items.count * width)
        for item in items {
            for key in keys { prepared.append(SortValue(try value(item, key), key.comparison)) }
        }
        func precedes(_ i: Int, _ j: Int) -> Bool {
            for k in 0..<width {
                let result = prepared[i * width + k].compare(to: prepared[j * width + k])
                if result != .orderedSame {
                    return keys[k].ascending ? result == .orderedAscending : result == .orderedDescending
                }
            }
            return i < j
        }
        // A max-heap (by `precedes`) of the best `count` indices: its root is the worst of them.
        var heap: [Int] = []
        heap.reserveCapacity(count)
        func siftUp(_ start: Int) {
            var child = start
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(heap[parent], heap[child]) else { return }
                heap.swapAt(parent, child)
                child = parent
            }
        }
        func siftDown() { IndexHeap.siftDown(&heap, from: 0) { precedes($1, $0) } }
        for index in items.indices {
            if heap.count < count {
                heap.append(index)
                siftUp(heap.count - 1)
            } else if precedes(index, heap[0]) {
                heap[0] = index
                siftDown()
            }
        }
        return heap.sorted(by: precedes).map { items[$0] }
    }
}

/// Heaps of positions, ordered by a caller's comparison.
enum IndexHeap {
    /// Moves the element at `start` down until neither child belongs above it; `isAbove(a, b)` tells whether `a`
    /// belongs nearer the root than `b`.
    static func siftDown(_ heap: inout [Int], from start: Int, isAbove: (Int, Int) -> Bool) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var top = parent
            if left < heap.count, isAbove(heap[left], heap[top]) { top = left }
            if right < heap.count, isAbove(heap[right], heap[top]) { top = right }
            if top == parent { return }
            heap.swapAt(parent, top)
            parent = top
        }
    }
}
