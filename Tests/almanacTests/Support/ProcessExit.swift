import Foundation
import Glibc

extension Process {
    /// Waits for the process to exit without blocking a thread of the cooperative pool (`waitUntilExit` does, and a
    /// few such waits stall the pool of a 2-core machine); sends SIGKILL after `seconds`. Returns whether it exited
    /// by itself in time.
    func exited(within seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard isRunning else { return true }
        kill(processIdentifier, SIGKILL)
        let grace = ContinuousClock.now + .seconds(5)
        while isRunning, ContinuousClock.now < grace { try? await Task.sleep(for: .milliseconds(20)) }
        return false
    }
}
