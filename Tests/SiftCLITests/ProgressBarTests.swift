import Foundation
import SiftDataset
import Synchronization
import Testing

@testable import SiftTool

/// The loading progress bar: nothing at all unless standard error is a terminal; on one, a line
/// redrawn in place and erased at the end. Draws are asked for with `tick()` and the delay is
/// zero (or an hour), so nothing here depends on the clock.
@Suite struct ProgressBarTests {
    /// What a bar wrote.
    final class Output: Sendable {
        private let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
        var written: String { text.withLock { $0 } }
    }

    static func bar(isTerminal: Bool, delay: Duration = .zero, output: Output) -> ProgressBar {
        ProgressBar(
            title: "Loading big.tsv",
            isTerminal: isTerminal,
            delay: delay,
            redraws: false,
            columns: { 80 },
            output: { output.write($0) }
        )
    }

    @Test func writesNothingWhenStandardErrorIsNotATerminal() {
        let output = Output()
        let bar = Self.bar(isTerminal: false, output: output)
        #expect(!bar.isEnabled)
        bar.begin("parsing", total: 100)
        bar.report(50, of: 100)
        bar.tick()
        bar.begin("indexing")
        bar.tick()
        bar.finish()
        #expect(output.written.isEmpty)
    }

    @Test func theStandardErrorBarIsOnOnlyOnATerminal() {
        let bar = ProgressBar.standardError(title: "Loading big.tsv")
        #expect(bar.isEnabled == (isatty(STDERR_FILENO) == 1))
        bar.finish()
    }

    @Test func drawsInPlaceAndIsErasedAtTheEnd() throws {
        let output = Output()
        let bar = Self.bar(isTerminal: true, output: output)
        bar.begin("parsing", total: 200)
        bar.report(100, of: 200)
        bar.tick()
        let line = output.written
        #expect(line.hasPrefix("\rLoading big.tsv: parsing ["))
        #expect(line.hasSuffix("\u{1B}[K"))
        #expect(line.contains(" 50%"))
        #expect(line.contains("#") && line.contains("-"))
        #expect(!line.contains("\n"))
        // Narrower than the terminal, so that it never wraps.
        #expect(line.dropFirst().dropLast(3).count < 80)

        // A phase of unknown size: its name, a marker and the time.
        bar.begin("indexing 1,000,000 records")
        bar.tick()
        let second = String(output.written.dropFirst(line.count))
        #expect(second.hasPrefix("\rLoading big.tsv: indexing 1,000,000 records ["))
        #expect(second.contains("<=>") && !second.contains("%"))

        bar.finish()
        #expect(output.written.hasSuffix("\r\u{1B}[K"))
        // Finished: never drawn again.
        let final = output.written
        bar.tick()
        #expect(output.written == final)
    }

    @Test func aLoadShorterThanTheDelayDrawsNothing() {
        let output = Output()
        let bar = Self.bar(isTerminal: true, delay: .seconds(3600), output: output)
        bar.begin("reading", total: 10)
        bar.report(10, of: 10)
        bar.tick()
        bar.finish()
        #expect(output.written.isEmpty)
    }

    @Test func phasesAreTimedInOrder() {
        let phases = LoadPhases()
        phases.begin("reading")
        phases.begin("parsing", total: 10)
        phases.progress(DataLoadProgress(phase: .parsing, completed: 5, total: 10))
        phases.begin("records")
        phases.end()
        phases.finish()
        #expect(phases.durations.map(\.phase) == ["reading", "parsing", "records"])
        #expect(phases.durations.allSatisfy { $0.duration >= .zero })
    }

    @Test func numbersAreGroupedByThousands() {
        #expect(grouped(0) == "0")
        #expect(grouped(999) == "999")
        #expect(grouped(1000) == "1,000")
        #expect(grouped(1_000_000) == "1,000,000")
        #expect(grouped(34006) == "34,006")
    }
}
