import Dispatch
import Foundation
import SiftDataset
import SiftStorage
import Synchronization

/// A one-line progress bar on standard error for a load that takes more than a second:
/// `Loading cities.tsv: parsing [##########----------]  52%  1.3 s`, redrawn in place (carriage
/// return) every tenth of a second, and erased when the load is done.
///
/// It draws only on a terminal: with standard error redirected it writes nothing at all, so
/// scripts and tests see nothing. Phases are named as they begin; work done is reported from any
/// thread (`report(_:of:)`), and a phase whose progress is unknown shows its name and the time.
final class ProgressBar: Sendable {
    private struct State {
        var phase = ""
        var completed = 0
        /// Nil while the phase's size is unknown.
        var total: Int?
        var drawn = false
        var finished = false
    }

    /// What the bar is for ("Loading cities.tsv").
    let title: String
    /// Whether anything is ever drawn.
    let isEnabled: Bool
    private let delay: Duration
    private let start = ContinuousClock.now
    private let state = Mutex(State())
    private let columns: @Sendable () -> Int
    private let output: @Sendable (String) -> Void

    /// A bar with its own output and width (for tests); it draws on `tick()` and, when
    /// `redraws` is set, every tenth of a second.
    init(
        title: String,
        isTerminal: Bool,
        delay: Duration = .seconds(1),
        redraws: Bool = true,
        columns: @escaping @Sendable () -> Int,
        output: @escaping @Sendable (String) -> Void
    ) {
        self.title = title
        isEnabled = isTerminal
        self.delay = delay
        self.columns = columns
        self.output = output
        if isTerminal && redraws { scheduleTick() }
    }

    /// Draws in a tenth of a second, and then again, until the bar is finished.
    private func scheduleTick() {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in
            guard let self, !self.state.withSanitizerVisibleLock({ $0.finished }) else { return }
            self.tick()
            self.scheduleTick()
        }
    }

    /// The bar for a load: on standard error, when standard error is a terminal.
    static func standardError(title: String) -> ProgressBar {
        ProgressBar(
            title: title,
            isTerminal: isatty(STDERR_FILENO) == 1,
            columns: { TerminalSize.window(STDERR_FILENO)?.columns ?? 80 },
            output: { text in FileHandle.standardError.write(Data(text.utf8)) }
        )
    }

    /// Starts a phase: `total` units of work (bytes, records), or nil when unknown.
    func begin(_ phase: String, total: Int? = nil) {
        guard isEnabled else { return }
        state.withSanitizerVisibleLock { state in
            state.phase = phase
            state.completed = 0
            state.total = total
        }
    }

    /// `completed` units of the phase's work are done (from any thread).
    func report(_ completed: Int, of total: Int) {
        guard isEnabled else { return }
        state.withSanitizerVisibleLock { state in
            state.completed = max(state.completed, completed)
            state.total = total
        }
    }

    /// Draws the bar, once the load has taken longer than the delay.
    func tick() {
        guard isEnabled, ContinuousClock.now - start >= delay else { return }
        state.withSanitizerVisibleLock { state in
            guard !state.finished else { return }
            state.drawn = true
            output("\r" + line(state) + "\u{1B}[K")
        }
    }

    /// Ends the load: the bar is erased, and never drawn again.
    func finish() {
        guard isEnabled else { return }
        state.withSanitizerVisibleLock { state in
            if state.drawn { output("\r\u{1B}[K") }
            state.drawn = false
            state.finished = true
        }
    }

    /// The bar's text, at most a column narrower than the terminal: the phase, a bar filled as
    /// far as the work is done (or, when its size is unknown, a marker going to and fro), the
    /// percentage and the time so far.
    private func line(_ state: State) -> String {
        let width = max(20, columns()) - 1
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let time = String(format: "%.1f s", seconds)
        let head = title + ": " + state.phase
        let barWidth = max(10, min(30, width - head.count - time.count - 10))
        var bar: String
        var percent = "    "
        if let total = state.total, total > 0 {
            let fraction = min(1, Double(state.completed) / Double(total))
            percent = String(format: "%3d%%", Int(fraction * 100))
            let filled = Int(fraction * Double(barWidth))
            bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
        } else {
            let span = barWidth - 3
            let step = Int(seconds * 10) % (2 * span)
            let position = step < span ? step : 2 * span - step
            bar = String(repeating: " ", count: position) + "<=>" + String(repeating: " ", count: span - position)
        }
        bar = "[" + bar + "]"
        return String((head + " " + bar + " " + percent + "  " + time).prefix(width))
    }
}

/// `1000000` as `1,000,000`.
func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var result = ""
    for (i, digit) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return (number < 0 ? "-" : "") + result
}

/// The phases of opening a dataset (reading, parsing, records, indexing, tables), timed for
/// `:stats` and shown on a progress bar.
final class LoadPhases: Sendable {
    private struct State {
        var durations: [(phase: String, duration: Duration)] = []
        var current: (phase: String, start: ContinuousClock.Instant)?
    }

    private let bar: ProgressBar?
    private let state = Mutex(State())

    /// Phases shown on `bar` (nil: timed only).
    init(bar: ProgressBar? = nil) { self.bar = bar }

    /// Each finished phase and how long it took, in order.
    var durations: [(phase: String, duration: Duration)] { state.withSanitizerVisibleLock { $0.durations } }

    /// Ends the current phase and starts `phase`, described on the bar by `label` (by default
    /// the phase's name), with `total` units of work (nil: unknown).
    func begin(_ phase: String, label: String? = nil, total: Int? = nil) {
        state.withSanitizerVisibleLock { state in
            Self.end(&state)
            state.current = (phase, .now)
        }
        bar?.begin(label ?? phase, total: total)
    }

    /// Ends the current phase, if any.
    func end() { state.withSanitizerVisibleLock { Self.end(&$0) } }

    private static func end(_ state: inout State) {
        guard let current = state.current else { return }
        state.durations.append((current.phase, current.start.duration(to: .now)))
        state.current = nil
    }

    /// A progress handler for the current phase's work (from any thread).
    var progress: @Sendable (DataLoadProgress) -> Void {
        let bar = self.bar
        return { report in bar?.report(report.completed, of: report.total) }
    }

    /// Ends the current phase and erases the bar.
    func finish() {
        end()
        bar?.finish()
    }
}
