/// Thrown by ``withDeadline(_:_:)`` when the operation took too long.
struct DeadlineExceeded: Error {}

/// Runs `operation`, cancelling it and throwing ``DeadlineExceeded`` when it runs longer than `duration`.
///
/// The operation must react to cancellation for the call to return promptly after the deadline.
func withDeadline<T: Sendable>(
    _ duration: Duration,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: duration)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else { throw DeadlineExceeded() }
        return value
    }
}
