import SiftStorage
import Synchronization

/// What `/stats` reports: keystroke latencies (the latest 10,000), sessions and requests.
final class ServerStatistics: Sendable {
    private struct State {
        var keystrokes: [Double] = []
        var next = 0
        var keystrokeCount = 0
        var sessions = 0
        var sessionsOpened = 0
    }

    private static let kept = 10_000
    private let state = Mutex(State())
    let started = ContinuousClock.now

    /// Records how long a keystroke took from arriving to its settled update going out.
    func recordKeystroke(_ duration: Duration) {
        let milliseconds = SearchSession.milliseconds(duration)
        state.withSanitizerVisibleLock { state in
            state.keystrokeCount += 1
            if state.keystrokes.count < Self.kept {
                state.keystrokes.append(milliseconds)
            } else {
                state.keystrokes[state.next] = milliseconds
                state.next = (state.next + 1) % Self.kept
            }
        }
    }

    /// Takes a session place; false when `limit` sessions are open.
    func openSession(limit: Int) -> Int? {
        state.withSanitizerVisibleLock { state in
            guard state.sessions < limit else { return nil }
            state.sessions += 1
            state.sessionsOpened += 1
            return state.sessionsOpened
        }
    }

    func closeSession() { state.withSanitizerVisibleLock { $0.sessions -= 1 } }

    var sessions: Int { state.withSanitizerVisibleLock { $0.sessions } }

    /// The count and the 50th, 90th and 99th percentiles and the maximum of the kept latencies.
    func keystrokePercentiles() -> (count: Int, p50: Double, p90: Double, p99: Double, max: Double) {
        let (count, sorted) = state.withSanitizerVisibleLock { ($0.keystrokeCount, $0.keystrokes.sorted()) }
        guard !sorted.isEmpty else { return (count, 0, 0, 0, 0) }
        func percentile(_ p: Double) -> Double {
            sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
        return (count, percentile(0.5), percentile(0.9), percentile(0.99), sorted[sorted.count - 1])
    }
}
