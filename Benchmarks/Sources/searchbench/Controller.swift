import Dispatch
import Foundation
import Sift

/// The tables of one controller layout.
struct ControllerLayout: Sendable {
    var name: String
    var original: TableLayout
    var results: TableLayout

    /// The three layouts of issue 13, as (original table / results table).
    static let all = [
        ControllerLayout(
            name: "original / original",
            original: TableLayout(order: .original),
            results: TableLayout(order: .original)
        ),
        ControllerLayout(
            name: "sorted + sections / ranked",
            original: TableLayout(order: .sorted, isSectioned: true),
            results: TableLayout(order: .ranked)
        ),
        ControllerLayout(
            name: "sorted + sections / sorted + sections",
            original: TableLayout(order: .sorted, isSectioned: true),
            results: TableLayout(order: .sorted, isSectioned: true)
        ),
    ]
}

func describe(_ layout: TableLayout) -> String { layout.order.rawValue + (layout.isSectioned ? ", sectioned" : "") }

/// `--controller`: the trace typed into a `SearchController` (debounce 0, as you type) in each
/// table layout. Per layout, a fresh index is built (timed, with its heap), then the controller
/// over it (timed, with the heap it adds); each keystroke is timed from the input to the return of
/// `settledUpdate(for:)`, then while both tables and both change sets are read. A last index of
/// its own times the index's first sort (part of a sorted layout's controller build) and gives
/// the expected number of results of every keystroke, which every layout's results table must hold.
final class ControllerBench {
    let corpus: Corpus
    let trace: Trace
    let mode: MatchMode
    /// How words-mode queries read `-`, quotes and `|`.
    var syntax: QuerySyntax = .operators
    let changeLimit: Int?
    let showProgress: Bool
    /// Results tables that disagree with `SearchIndex.search` (Sift bugs).
    private(set) var failures: [String] = []

    init(corpus: Corpus, trace: Trace, mode: MatchMode, changeLimit: Int?, showProgress: Bool) {
        self.corpus = corpus
        self.trace = trace
        self.mode = mode
        self.changeLimit = changeLimit
        self.showProgress = showProgress
    }

    var options: SearchController.Options {
        SearchController.Options(
            trigger: .asYouType,
            debounce: .zero,
            mode: mode,
            syntax: syntax,
            changeLimit: changeLimit
        )
    }

    func run(collations: [Collation], traceName: String) throws -> ControllerReport {
        var report = ControllerReport(
            mode: mode.rawValue,
            sortField: corpus.fields[0],
            trace: traceName,
            changeLimit: changeLimit,
            keystrokeCount: trace.keystrokes.count
        )
        for collation in collations { report.configs.append(try runConfiguration(collation)) }
        return report
    }

    private func configuration(_ collation: Collation) -> IndexConfiguration {
        trace.indexConfiguration(fields: corpus.fields, collation: collation, sortField: corpus.fields[0])
    }

    private func runConfiguration(_ collation: Collation) throws -> ControllerConfigReport {
        let title = "controller \(collation.locale)/\(collation.strength.rawValue)"
        var config = ControllerConfigReport(locale: collation.locale, strength: collation.strength.rawValue)
        let configuration = configuration(collation)
        CPUAffinity.release()
        // The fixed cost of an index (ICU collators, alphabetic index, data ICU keeps for the
        // process), paid once before the measured builds, as the index benchmark does.
        Memory.trim()
        let heapBefore = Memory.heapBytes
        var empty: SearchIndex? = try SearchIndex(configuration: configuration, records: [])
        config.emptyIndexHeapBytes = Memory.heapBytes - heapBefore
        empty = nil
        _ = empty
        for layout in ControllerLayout.all {
            config.layouts.append(try runLayout(layout, configuration: configuration, title: "\(title) \(layout.name)"))
        }

        // The first sort alone, and the expected answers, on an index of its own.
        var records = corpus.records(copyingText: false)
        var progress = showProgress ? Progress("\(title): indexing (first sort, expected answers)") : nil
        let index = try SearchIndex(configuration: configuration, records: records)
        records = []
        Memory.trim()
        let heapBeforeSort = Memory.heapBytes
        let sortTime = timed { index.handles(in: .sorted).count }.nanoseconds
        Memory.trim()
        config.firstSortNanoseconds = sortTime
        config.firstSortHeapBytes = Memory.heapBytes - heapBeforeSort
        progress?.finish()
        progress = nil
        config.expectedResults = try trace.keystrokes.map { keystroke in
            try index.search(Query(keystroke.text, scope: trace.scopes[keystroke.scope], mode: mode, syntax: syntax))
                .rows.count
        }
        for l in config.layouts.indices {
            for (k, keystroke) in config.layouts[l].keystrokes.enumerated() {
                let expected = config.expectedResults[k]
                guard keystroke.resultRows != expected || keystroke.state != "results" else { continue }
                config.layouts[l].wrongCounts += 1
                failures.append(
                    "\(title) \(config.layouts[l].name): '\(keystroke.text)' (\(keystroke.scope)) settled in state "
                        + "\(keystroke.state) with \(keystroke.resultRows) rows in the results table; "
                        + "SearchIndex.search finds \(expected)"
                )
            }
        }
        return config
    }

    /// What building an index and a controller over it took.
    private struct StartUp {
        var records: Int
        var indexTime: UInt64
        var controllerTime: UInt64
        var indexHeap: Int
        var controllerHeap: Int
    }

    /// Builds an index, then a controller over it, each timed and with the heap it adds. (The
    /// index is built here so that the controller is its only owner once this returns.)
    private func startUp(
        _ options: SearchController.Options,
        configuration: IndexConfiguration,
        title: String,
        into controller: inout SearchController?
    ) throws -> StartUp {
        // The index, as the index benchmark builds it: every core, fresh copies of the text, its
        // heap measured once the caller's records are released.
        Memory.trim()
        var heapBefore = Memory.heapBytes
        var records = corpus.records(copyingText: true)
        var progress = showProgress ? Progress("\(title): indexing \(formatCount(corpus.count)) records") : nil
        let indexStart = monotonicNanoseconds()
        let index = try SearchIndex(configuration: configuration, records: records)
        let indexTime = monotonicNanoseconds() - indexStart
        progress?.finish()
        let recordCount = index.count
        records = []
        Memory.trim()
        let indexHeap = Memory.heapBytes - heapBefore

        // The controller over it.
        heapBefore = Memory.heapBytes
        progress = showProgress ? Progress("\(title): controller") : nil
        let controllerStart = monotonicNanoseconds()
        controller = try SearchController(index: index, options: options)
        let controllerTime = monotonicNanoseconds() - controllerStart
        progress?.finish()
        Memory.trim()
        let controllerHeap = Memory.heapBytes - heapBefore
        return StartUp(
            records: recordCount,
            indexTime: indexTime,
            controllerTime: controllerTime,
            indexHeap: indexHeap,
            controllerHeap: controllerHeap
        )
    }

    private func runLayout(
        _ layout: ControllerLayout,
        configuration: IndexConfiguration,
        title: String
    ) throws
        -> ControllerLayoutReport
    {
        var options = self.options
        options.originalTable = layout.original
        options.resultsTable = layout.results
        var controller: SearchController? = nil
        let startUp = try startUp(options, configuration: configuration, title: title, into: &controller)
        let (recordCount, indexTime, controllerTime) = (startUp.records, startUp.indexTime, startUp.controllerTime)
        let (indexHeap, controllerHeap) = (startUp.indexHeap, startUp.controllerHeap)
        let (originalRows, originalSections) = try runBlocking { [controller] in
            let original = await controller!.currentUpdate.tables.original
            return (original.rowCount, original.numberOfSections)
        }

        // The trace.
        let typing = showProgress ? Progress("\(title): typing", total: trace.keystrokes.count) : nil
        let keystrokes = try runBlocking { [controller, trace] in
            try await Self.type(trace, into: controller!, progress: typing)
        }
        typing?.finish()

        // Release: what the controller and its index hold at the end. The controller's tasks
        // end right after its last update; once this is its only reference, it is deinitialized
        // here, synchronously.
        let deadline = monotonicNanoseconds() + 5_000_000_000
        var unique = isKnownUniquelyReferenced(&controller!)
        while !unique && monotonicNanoseconds() < deadline {
            usleep(1_000)
            unique = isKnownUniquelyReferenced(&controller!)
        }
        Memory.trim()
        let heapWith = Memory.heapBytes
        controller = nil
        Memory.trim()
        let heapAtEnd = unique ? heapWith - Memory.heapBytes : nil

        let records1 = Double(max(1, recordCount))
        let totals = keystrokes.map(\.totalNanoseconds)
        return ControllerLayoutReport(
            name: layout.name,
            originalTable: describe(layout.original),
            resultsTable: describe(layout.results),
            records: recordCount,
            indexBuildNanoseconds: indexTime,
            controllerBuildNanoseconds: controllerTime,
            controllerBuildRatio: Double(controllerTime) / Double(max(1, indexTime)),
            indexHeapBytes: indexHeap,
            controllerHeapBytes: controllerHeap,
            indexHeapBytesPerRecord: Double(indexHeap) / records1,
            controllerHeapBytesPerRecord: Double(controllerHeap) / records1,
            controllerHeapRatio: Double(controllerHeap) / Double(max(1, indexHeap)),
            originalRows: originalRows,
            originalSections: originalSections,
            heapAtEndBytes: heapAtEnd,
            settled: LatencySummary(keystrokes.map(\.settledNanoseconds)),
            reading: LatencySummary(keystrokes.map(\.readingNanoseconds)),
            total: LatencySummary(totals),
            slowest: Array(totals.indices.sorted { totals[$0] > totals[$1] }.prefix(5)),
            keystrokes: keystrokes
        )
    }

    /// Types the trace, one input at a time, each waited for until its update has settled.
    private static func type(
        _ trace: Trace,
        into controller: SearchController,
        progress: Progress?
    ) async throws
        -> [ControllerKeystrokeReport]
    {
        var rows: [ControllerKeystrokeReport] = []
        var scope = 0
        var sequence = await controller.currentUpdate.sequence
        for (k, keystroke) in trace.keystrokes.enumerated() {
            if keystroke.kind != .scope && keystroke.scope != scope {
                // A scope chosen while the box was empty (a trace file can do that): selected
                // before the keystroke, untimed.
                let update = try await controller.settledUpdate(
                    for: try controller.selectScope(trace.scopes[keystroke.scope])
                )
                sequence = update.sequence
            }
            scope = keystroke.scope

            let faultsBefore = minorPageFaults()
            let start = monotonicNanoseconds()
            let generation =
                keystroke.kind == .scope
                ? try controller.selectScope(trace.scopes[keystroke.scope]) : controller.setText(keystroke.text)
            let update = try await controller.settledUpdate(for: generation)
            let settled = monotonicNanoseconds()
            let resultRows = update.tables.results.rowCount
            let resultSections = update.tables.results.numberOfSections
            let originalRows = update.tables.original.rowCount
            let resultsChanges = ChangeCounts(walking: update.resultsChanges)
            let originalChanges = ChangeCounts(walking: update.originalChanges)
            // The first screen of results, as a table view asks for its visible cells.
            let firstScreen = update.tables.results.rows(numbered: 0..<min(screenRows, resultRows))
            let end = monotonicNanoseconds()
            let faults = minorPageFaults() - faultsBefore
            precondition(firstScreen.count == min(screenRows, resultRows))

            rows.append(
                ControllerKeystrokeReport(
                    text: keystroke.text,
                    scope: trace.scopes[keystroke.scope],
                    kind: keystroke.kind.rawValue,
                    settledNanoseconds: settled - start,
                    readingNanoseconds: end - settled,
                    totalNanoseconds: end - start,
                    state: describe(update.state),
                    reason: "\(update.reason)",
                    updates: Int(update.sequence - sequence),
                    searchedNanoseconds: update.timing?.searched.nanoseconds,
                    controllerTotalNanoseconds: update.timing?.total.nanoseconds,
                    minorPageFaults: faults,
                    resultRows: resultRows,
                    resultSections: resultSections,
                    originalRows: originalRows,
                    resultsChanges: resultsChanges,
                    originalChanges: originalChanges
                )
            )
            sequence = update.sequence
            progress?.set(k + 1)
        }
        return rows
    }
}

/// The process's minor page faults so far (`getrusage`): a keystroke that writes memory malloc
/// got fresh from the kernel pays one per 4 KB page, which is how a narrow keystroke over a
/// million records once spent most of its time.
private func minorPageFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

/// Rows of the results table read after each settled update: a phone's screen of cells.
let screenRows = 20

private func describe(_ state: SearchState) -> String {
    switch state {
    case .results: return "results"
    case .inactive: return "inactive"
    case .tooShort(let needed): return "tooShort(\(needed))"
    case .awaitingSubmit: return "awaitingSubmit"
    case .searching: return "searching"
    case .failed(let message): return "failed: \(message)"
    }
}

extension ChangeCounts {
    /// Counts a change set's entries by walking each list (whatever its element type). Reading
    /// an update's `resultsChanges` works out a new query's change set, the first time.
    init(walking changes: TableChangeSet) {
        func walk<S: Sequence>(_ entries: S) -> Int {
            var count = 0
            for _ in entries { count += 1 }
            return count
        }
        self.init(
            deletedSections: walk(changes.deletedSections),
            insertedSections: walk(changes.insertedSections),
            deletedRows: walk(changes.deletedRows),
            insertedRows: walk(changes.insertedRows),
            movedRows: walk(changes.movedRows),
            reloadedRows: walk(changes.reloadedRows),
            requiresReload: changes.requiresReload
        )
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

// MARK: - Async from synchronous code

/// The result of a detached task, handed to the thread that waits for it.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// Runs `body` in a detached task and blocks the calling thread until it ends (the command is
/// synchronous; the controller is an actor). The caller must not be a thread of Swift's
/// cooperative pool, which the task needs.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            box.result = .success(try await body())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}
