import Foundation

/// A value behind a lock, for the tests' shared logs and clocks.
///
/// A pthread mutex (through `NSLock`), not `Synchronization.Mutex`: ThreadSanitizer sees what a
/// pthread mutex orders, while the standard library's `Mutex` is built on uninstrumented atomics
/// and futexes, so TSan reports accesses it guards as races (`scripts/sanitizers.sh thread`).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The state of something tests wait on (a log, a clock): it numbers its waits, remembers the
/// ones cancelled before they registered, and gives back a registered wait's continuation.
protocol WaitableState: Sendable {
    var nextTicket: Int { get set }
    var cancelled: Set<Int> { get set }
    /// Takes out a registered wait, or nil when it is not (or no longer) registered.
    mutating func removeWait(_ ticket: Int) -> CheckedContinuation<Void, any Error>?
}

extension Locked where Value: WaitableState {
    /// Suspends until the owner resumes the continuation that `keep` registered, or at once when
    /// `isReady` holds; a cancellation, before or after registering, ends the wait with
    /// `CancellationError`. `isReady` and `keep` run under the lock.
    func wait(
        isReady: @escaping (Value) -> Bool,
        keep: @escaping (inout Value, Int, CheckedContinuation<Void, any Error>) -> Void
    ) async throws {
        try Task.checkCancellation()
        let ticket = withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = withLock { state -> WaitOutcome in
                    if state.cancelled.remove(ticket) != nil { return .cancelled }
                    if isReady(state) { return .ready }
                    keep(&state, ticket, continuation)
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .ready: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = withLock { state in
                let waiter = state.removeWait(ticket)
                if waiter == nil { state.cancelled.insert(ticket) }
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
