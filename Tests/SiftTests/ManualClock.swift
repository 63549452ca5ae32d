import Foundation

/// A clock that moves only when a test advances it.
///
/// Unlike swift-clocks' `TestClock`, a sleep until an instant that has already come returns at
/// once, as it does on a real clock. So a test that advances the clock past a deadline need not
/// know whether the sleeper registered before or after the advance: either way it wakes, and no
/// test has to keep nudging the clock until a sleeper shows up.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol, CustomStringConvertible {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
        var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: WaitableState {
        var now = Instant(offset: .zero)
        var nextTicket = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they registered.
        var cancelled: Set<Int> = []

        mutating func removeWait(_ ticket: Int) -> CheckedContinuation<Void, any Error>? {
            sleepers.removeValue(forKey: ticket)?.continuation
        }
    }

    private let state = Locked(State())

    init() {}

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await state.wait(
            isReady: { deadline <= $0.now },
            keep: { $0.sleepers[$1] = Sleeper(deadline: deadline, continuation: $2) }
        )
    }

    /// Moves the clock on and wakes, in deadline order, every sleeper whose deadline has come.
    func advance(by duration: Duration) async {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for ticket in due.keys { state.sleepers[ticket] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
