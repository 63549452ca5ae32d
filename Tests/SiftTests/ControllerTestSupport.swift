import Foundation
import Testing

@testable import Sift

// MARK: - Fixtures

enum ControllerFixtures {
    static let names = [
        "São Paulo", "Paris", "Kraków", "Zürich", "Malmö", "Ñuñoa", "Nuuk", "Saint-Paul", "Lapa", "Parma", "Pau",
        "Oslo", "Lyon", "Porto", "Straße", "Åse", "Ávila", "Nîmes", "Bogotá", "Quito",
    ]
    static let continents = [
        "SA", "EU", "EU", "EU", "EU", "SA", "NA", "AF", "SA", "EU", "EU", "EU", "EU", "EU", "EU",
        "EU", "EU", "EU", "SA", "SA",
    ]

    static var records: [Record] {
        names.enumerated().map { i, name in
            Record(
                id: "c\(i)",
                fields: ["name": name, "continent": continents[i], "code": String(name.prefix(2)).uppercased()]
            )
        }
    }

    static let scopes = [
        Scope(name: "All"), Scope(name: "Name", fields: ["name"]),
        Scope(name: "Code", fields: ["code"], minimumLength: 2),
        Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
    ]

    static func indexConfiguration(locale: String = "es") -> IndexConfiguration {
        IndexConfiguration(searchFields: ["name", "code"], collation: Collation(locale: locale), scopes: scopes)
    }
}

// MARK: - Recording updates

/// What a registering waiter does: wait, go on at once, or stop (cancelled before it registered).
enum WaitOutcome { case wait, ready, cancelled }

/// A thread-safe list, for logs written by sources and consumers, that a test can wait on.
///
/// Waiting suspends until the list grows; it never polls and has no deadline of its own, so a
/// long parallel test run that starves the writer only delays the wait. A hang is caught by the
/// suite's time limit, which cancels the waiting task.
final class SharedList<Element: Sendable>: Sendable {
    private struct State: WaitableState {
        var elements: [Element] = []
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextTicket = 0
        var cancelled: Set<Int> = []

        mutating func removeWait(_ ticket: Int) -> CheckedContinuation<Void, any Error>? {
            waiters.removeValue(forKey: ticket)
        }
    }

    private let state = Locked(State())
    init() {}

    func append(_ element: Element) {
        let waiters = state.withLock { state in
            state.elements.append(element)
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    var elements: [Element] { state.withLock { $0.elements } }
    var count: Int { state.withLock { $0.elements.count } }

    /// Suspends until the list holds more than `count` elements.
    private func grown(beyond count: Int) async throws {
        try await state.wait(isReady: { $0.elements.count > count }, keep: { $0.waiters[$1] = $2 })
    }

    /// Waits until `condition` holds for the whole list, and returns the list then.
    @discardableResult
    func wait(
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([Element]) -> Bool
    ) async throws -> [Element] {
        while true {
            let elements = self.elements
            if condition(elements) { return elements }
            do { try await grown(beyond: elements.count) } catch {
                Issue.record("cancelled while waiting: \(what) never happened", sourceLocation: sourceLocation)
                throw error
            }
        }
    }

    /// Waits for the first element at or after position `start` that satisfies `predicate`.
    func first(
        from start: Int = 0,
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        where predicate: (Element) -> Bool
    ) async throws -> Element {
        var checked = start
        while true {
            let elements = self.elements
            if checked < elements.count, let found = elements[checked...].first(where: predicate) { return found }
            checked = max(checked, elements.count)
            do { try await grown(beyond: elements.count) } catch {
                Issue.record("cancelled while waiting: no \(what) arrived", sourceLocation: sourceLocation)
                throw error
            }
        }
    }
}

/// Collects every update of a controller, in the order the stream delivers them.
///
/// By default the stream holds every update unmerged (`.newest(.max)`), so that the history
/// has no gaps however the recorder's task is scheduled; `.all` merges what it has not taken.
final class UpdateRecorder: Sendable {
    let updates = SharedList<SearchUpdate>()
    private let consumer = Locked<Task<Void, Never>?>(nil)

    init(_ controller: SearchController, buffering: UpdateBuffering = .newest(.max)) async {
        let stream = await controller.updates(buffering: buffering)
        let updates = self.updates
        consumer.withLock { $0 = Task { for await update in stream { updates.append(update) } } }
    }

    deinit { consumer.withLock { $0?.cancel() } }

    var all: [SearchUpdate] { updates.elements }
    var last: SearchUpdate? { updates.elements.last }

    /// Waits for the first update at or after position `start` that satisfies `predicate`. It
    /// suspends until updates arrive: no polling, no clock.
    @discardableResult
    func wait(
        from start: Int = 0,
        _ what: String = "update",
        sourceLocation: SourceLocation = #_sourceLocation,
        until predicate: (SearchUpdate) -> Bool
    ) async throws -> SearchUpdate {
        try await updates.first(from: start, what, sourceLocation: sourceLocation, where: predicate)
    }

    /// Waits for the answer (or any settled state) of generation `generation`.
    @discardableResult
    func settled(_ generation: UInt64, sourceLocation: SourceLocation = #_sourceLocation) async throws -> SearchUpdate {
        try await wait("settled update of generation \(generation)", sourceLocation: sourceLocation) {
            $0.generation == generation && $0.state.isSettled
        }
    }

    /// Waits until the recorder holds the controller's latest update.
    func caughtUp(with controller: SearchController, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sequence = await controller.currentUpdate.sequence
        try await wait(from: 0, "update \(sequence)", sourceLocation: sourceLocation) { $0.sequence == sequence }
    }
}

// MARK: - Sources

/// The local index, logging every query it answers.
struct RecordingSource: SearchSource {
    let log = SharedList<String>()
    var supportsEditing: Bool { true }

    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        log.append(request.query.text)
        return try await LocalIndexSource().search(request, in: index, isolation: isolation)
    }
}

/// A "remote" source: answers from the index after a latency measured on a manual clock, with
/// the deadline fixed when the query arrives (before it logs "start"). It either stops when cancelled or (stubbornly) keeps
/// going and answers anyway, late.
struct LatencySource: SearchSource {
    let clock: ManualClock
    let latency: @Sendable (Query) -> Duration
    var honoursCancellation = true
    var reportsProgress = false
    let log = SharedList<String>()

    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        let text = request.query.text
        let deadline = clock.now.advanced(by: latency(request.query))
        log.append("start \(text)")
        if reportsProgress { request.reportProgress(0.5) }
        do {
            if honoursCancellation {
                try await clock.sleep(until: deadline, tolerance: nil)
            } else {
                let clock = self.clock
                try await Task { try await clock.sleep(until: deadline, tolerance: nil) }.value
            }
        } catch {
            log.append("cancelled \(text)")
            throw error
        }
        log.append("answer \(text)")
        let result = try index.search(request.query)
        return SearchAnswer(ids: try result.rows.map { try index.id(of: $0) }, in: index, scopeCounts: [:])
    }
}

/// Spins synchronously on the controller's actor for one query text, until that query is
/// superseded: a stand-in for a long scan of a big index. It holds one of the cooperative pool's
/// threads (two on a 2-core machine) until it sees a newer generation, so whatever supersedes it
/// must not need a pool thread: `supersede(_:)` waits for the spin and types on a thread of its
/// own.
struct SpinningSource: SearchSource {
    let spinningText: String
    let log = SharedList<String>()
    private let started = Gate()

    init(spinningText: String) { self.spinningText = spinningText }

    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        if request.query.text == spinningText {
            log.append("spinning")
            started.open()
            while !request.isCancelled() {}
            log.append("cancelled")
            try request.checkCancellation()
        }
        return SearchAnswer(try index.search(request.query, isCancelled: request.isCancelled))
    }

    /// Once the spin has started, runs `input` (a keystroke) on a dedicated thread, off the
    /// cooperative pool, and returns its generation.
    func supersede(_ input: @escaping @Sendable () -> UInt64) async -> UInt64 {
        await started.wait()
        return await onDedicatedThread(input)
    }
}

/// Runs `body` on a new thread of its own, off Swift concurrency's cooperative pool, and
/// returns its result: for work that blocks, or that must happen while every pool thread is busy.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread(block: { continuation.resume(returning: body()) })
        thread.start()
    }
}

/// A one-shot gate a test opens to let a source go on.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    init() {}

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiter = state.withLock { state in
            state.open = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

/// The local index, holding its first answer at a gate after computing it, so that a test can
/// edit the index while the answer is on its way.
struct GatedLocalSource: SearchSource {
    let gate = Gate()
    let log = SharedList<String>()
    var supportsEditing: Bool { true }

    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        let answer = SearchAnswer(try index.search(request.query, isCancelled: request.isCancelled))
        log.append("computed \(request.query.text) at \(index.revision)")
        if log.count == 1 { await gate.wait() }
        return answer
    }
}

/// The local index, but the answer is computed after a suspension of the actor, so edits can
/// slip in between the query and its answer.
struct YieldingLocalSource: SearchSource {
    var supportsEditing: Bool { true }

    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        let result = try index.search(request.query, isCancelled: request.isCancelled)
        await Task.yield()
        return SearchAnswer(result)
    }
}

// MARK: - Expected tables

/// A table's shape: section titles and row ids (handles differ between indexes).
struct TableShape: Equatable, CustomStringConvertible {
    var sections: [(title: String?, ids: [String])]

    init(_ table: RecordTable) { sections = table.everySection.map { ($0.title, $0.rows.map(\.id)) } }

    static func == (a: TableShape, b: TableShape) -> Bool {
        a.sections.count == b.sections.count
            && zip(a.sections, b.sections).allSatisfy { $0.title == $1.title && $0.ids == $1.ids }
    }

    var description: String {
        sections.map { "\($0.title ?? "-"): \($0.ids.joined(separator: ","))" }.joined(separator: " | ")
    }
}

extension RecordTable {
    /// The table a fresh index of `records` shows for these handles, in this layout.
    static func expected(_ handles: [RecordHandle], in index: SearchIndex, layout: TableLayout) throws -> RecordTable {
        RecordTable(
            rows: try handles.map { try index.tableRow(for: $0) },
            layout: layout,
            sectionTitles: index.sectionTitles
        )
    }
}

// MARK: - Checks

/// Every update's change sets turn the previous update's tables into exactly its own tables;
/// sequence numbers have no gaps (or, for a `merged` history, as a stream with `.all` buffering
/// delivers it to a subscriber that may fall behind, only grow); generations never decrease.
func expectConsistentHistory(
    _ updates: [SearchUpdate],
    merged: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for (previous, update) in zip(updates, updates.dropFirst()) {
        if merged {
            #expect(update.sequence > previous.sequence, sourceLocation: sourceLocation)
        } else {
            #expect(update.sequence == previous.sequence + 1, sourceLocation: sourceLocation)
        }
        #expect(
            update.generation >= previous.generation,
            "older generation after a newer one",
            sourceLocation: sourceLocation
        )
        let original = try update.originalChanges.apply(
            to: previous.tables.original,
            dataSource: update.tables.original
        )
        #expect(
            original == update.tables.original,
            "original table, update \(update.sequence)",
            sourceLocation: sourceLocation
        )
        let results = try update.resultsChanges.apply(to: previous.tables.results, dataSource: update.tables.results)
        #expect(
            results == update.tables.results,
            "results table, update \(update.sequence)",
            sourceLocation: sourceLocation
        )
    }
}

/// The controller's current tables (and badges) are those a brand-new index of `records` gives.
func expectMatchesFreshIndex(
    _ controller: SearchController,
    records: [Record],
    configuration: IndexConfiguration,
    checkBadges: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let update = await controller.currentUpdate
    let content = await controller.content
    let options = controller.options
    let fresh = try SearchIndex(configuration: configuration, records: records)
    let original = try RecordTable.expected(
        fresh.handles(in: options.originalTable.order),
        in: fresh,
        layout: options.originalTable
    )
    #expect(TableShape(update.tables.original) == TableShape(original), sourceLocation: sourceLocation)
    let handles: [RecordHandle]
    switch content {
    case .empty: handles = []
    case .allRecords: handles = fresh.handles(in: options.resultsTable.order == .sorted ? .sorted : .original)
    case .matches(let query): handles = try fresh.search(query).rows
    }
    let results = try RecordTable.expected(handles, in: fresh, layout: options.resultsTable)
    #expect(TableShape(update.tables.results) == TableShape(results), "\(content)", sourceLocation: sourceLocation)
    #expect(update.resultsQuery == content.query, sourceLocation: sourceLocation)
    if checkBadges {
        let counts = try content.query.map { try fresh.search($0).scopeCounts.map(\.count) }
        #expect(
            update.scopes.map(\.count) == (counts ?? update.scopes.map { _ in nil }),
            sourceLocation: sourceLocation
        )
    }
}

extension SearchUpdate {
    var resultTitles: [String] { tables.results.everyRow.map(\.title) }
    var resultIDs: [String] { tables.results.everyRow.map(\.id) }
}

extension RecordTable {
    /// Every row, made now: O(*m*), which the tests pay on purpose to compare whole tables (the
    /// public `rows` is deprecated for that cost).
    var everyRow: [TableRow] { rows(numbered: 0..<rowCount) }

    /// The path of every row: O(*m*), as `everyRow`.
    var everyIndexPath: [TableIndexPath] { (0..<rowCount).map { indexPath(forRowNumber: $0)! } }

    /// Every section with its rows, made now: O(*m*), as `everyRow`.
    var everySection: [TableSection] {
        (0..<numberOfSections).map {
            TableSection(key: key(ofSection: $0), title: title(ofSection: $0), rows: rows(inSection: $0))
        }
    }
}
