import Clocks
import Synchronization
import Testing

@testable import Sift

// MARK: - Fixtures

enum ControllerFixtures {
    static let names = [
        "São Paulo", "Paris", "Kraków", "Zürich", "Malmö", "Ñuñoa", "Nuuk", "Saint-Paul", "Lapa", "Parma", "Pau",
        "Oslo", "Lyon", "Porto", "Straße", "Åse", "Ávila", "Nîmes", "Bogotá", "Quito",
    ]
    static let continents = ["SA", "EU", "EU", "EU", "EU", "SA", "NA", "AF", "SA", "EU", "EU", "EU", "EU", "EU", "EU",
                             "EU", "EU", "EU", "SA", "SA"]

    static var records: [Record] {
        names.enumerated().map { i, name in
            Record(id: "c\(i)", fields: ["name": name, "continent": continents[i], "code": String(name.prefix(2)).uppercased()])
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

/// A thread-safe list, for logs written by sources and consumers.
final class SharedList<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])
    init() {}
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var elements: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Collects every update of a controller, in the order the stream delivers them.
final class UpdateRecorder: Sendable {
    let updates = SharedList<SearchUpdate>()
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    init(_ controller: SearchController, buffering: UpdateBuffering = .all) async {
        let stream = await controller.updates(buffering: buffering)
        let updates = self.updates
        consumer.withLock { $0 = Task { for await update in stream { updates.append(update) } } }
    }

    deinit { consumer.withLock { $0?.cancel() } }

    var all: [SearchUpdate] { updates.elements }
    var last: SearchUpdate? { updates.elements.last }

    /// Waits for the first update at or after position `start` that satisfies `predicate`, without
    /// letting real time matter: it only yields (and, with a test clock, re-runs its due sleepers,
    /// for sleeps that registered right after an advance). A wall-clock limit only turns a hang
    /// into a failure; it is generous (2 minutes) because on a 2-core machine the whole parallel
    /// test run can starve these tasks for tens of seconds.
    ///
    /// - Parameter step: how far to advance the clock between looks (zero: only run due sleepers).
    @discardableResult
    func wait(
        from start: Int = 0, sweeping clock: TestClock<Duration>? = nil, advancingBy step: Duration = .zero,
        _ what: String = "update", sourceLocation: SourceLocation = #_sourceLocation,
        until predicate: (SearchUpdate) -> Bool
    ) async throws -> SearchUpdate {
        let limit = ContinuousClock.now.advanced(by: .seconds(120))
        while ContinuousClock.now < limit {
            let updates = self.updates.elements
            if start < updates.count, let found = updates[start...].first(where: predicate) { return found }
            if let clock { await clock.advance(by: step) } else { await Task.yield() }
        }
        Issue.record("no \(what) arrived", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Waits for the answer (or any settled state) of generation `generation`.
    @discardableResult
    func settled(
        _ generation: UInt64, sweeping clock: TestClock<Duration>? = nil, advancingBy step: Duration = .zero,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> SearchUpdate {
        try await wait(
            sweeping: clock, advancingBy: step, "settled update of generation \(generation)",
            sourceLocation: sourceLocation
        ) { $0.generation == generation && $0.state.isSettled }
    }

    /// Waits until the recorder holds the controller's latest update.
    func caughtUp(with controller: SearchController, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sequence = await controller.currentUpdate.sequence
        try await wait(from: 0, "update \(sequence)", sourceLocation: sourceLocation) { $0.sequence == sequence }
    }
}

/// Waits until a condition holds (polled with yields only).
func waitUntil(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let limit = ContinuousClock.now.advanced(by: .seconds(120))
    while ContinuousClock.now < limit {
        if condition() { return }
        await Task.yield()
    }
    Issue.record("\(what) never happened", sourceLocation: sourceLocation)
    throw CancellationError()
}

// MARK: - Sources

/// The local index, logging every query it answers.
struct RecordingSource: SearchSource {
    let log = SharedList<String>()
    var supportsEditing: Bool { true }

    func search(_ request: SearchRequest, in index: SearchIndex, isolation: isolated any Actor) async throws
        -> SearchAnswer
    {
        log.append(request.query.text)
        return try await LocalIndexSource().search(request, in: index, isolation: isolation)
    }
}

/// A "remote" source: answers from the index after a latency measured on a test clock, with the
/// deadline fixed when the query arrives. It either stops when cancelled or (stubbornly) keeps
/// going and answers anyway, late.
struct LatencySource: SearchSource {
    let clock: TestClock<Duration>
    let latency: @Sendable (Query) -> Duration
    var honoursCancellation = true
    var reportsProgress = false
    let log = SharedList<String>()

    func search(_ request: SearchRequest, in index: SearchIndex, isolation: isolated any Actor) async throws
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
/// superseded: a stand-in for a long scan of a big index.
struct SpinningSource: SearchSource {
    let spinningText: String
    let log = SharedList<String>()

    func search(_ request: SearchRequest, in index: SearchIndex, isolation: isolated any Actor) async throws
        -> SearchAnswer
    {
        if request.query.text == spinningText {
            log.append("spinning")
            var spins = 0
            let limit = ContinuousClock.now.advanced(by: .seconds(120))
            while !request.isCancelled() {
                spins += 1
                if spins & 0xFFFF == 0 && ContinuousClock.now > limit { break }
            }
            log.append(request.isCancelled() ? "cancelled" : "gave up")
            try request.checkCancellation()
        }
        return SearchAnswer(try index.search(request.query, isCancelled: request.isCancelled))
    }
}

/// A one-shot gate a test opens to let a source go on.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
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

    func search(_ request: SearchRequest, in index: SearchIndex, isolation: isolated any Actor) async throws
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

    func search(_ request: SearchRequest, in index: SearchIndex, isolation: isolated any Actor) async throws
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

    init(_ table: RecordTable) { sections = table.sections.map { ($0.title, $0.rows.map(\.id)) } }

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
        RecordTable(rows: try handles.map { try index.tableRow(for: $0) }, layout: layout, sectionTitles: index.sectionTitles)
    }
}

// MARK: - Checks

/// Every update's change sets turn the previous update's tables into exactly its own tables;
/// sequence numbers have no gaps; generations never decrease.
func expectConsistentHistory(_ updates: [SearchUpdate], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for (previous, update) in zip(updates, updates.dropFirst()) {
        #expect(update.sequence == previous.sequence + 1, sourceLocation: sourceLocation)
        #expect(update.generation >= previous.generation, "older generation after a newer one", sourceLocation: sourceLocation)
        let original = try update.originalChanges.apply(to: previous.tables.original, dataSource: update.tables.original)
        #expect(original == update.tables.original, "original table, update \(update.sequence)", sourceLocation: sourceLocation)
        let results = try update.resultsChanges.apply(to: previous.tables.results, dataSource: update.tables.results)
        #expect(results == update.tables.results, "results table, update \(update.sequence)", sourceLocation: sourceLocation)
    }
}

/// The controller's current tables (and badges) are those a brand-new index of `records` gives.
func expectMatchesFreshIndex(
    _ controller: SearchController, records: [Record], configuration: IndexConfiguration, checkBadges: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let update = await controller.currentUpdate
    let content = await controller.content
    let options = controller.options
    let fresh = try SearchIndex(configuration: configuration, records: records)
    let original = try RecordTable.expected(
        fresh.handles(in: options.originalTable.order), in: fresh, layout: options.originalTable)
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
        #expect(update.scopes.map(\.count) == (counts ?? update.scopes.map { _ in nil }), sourceLocation: sourceLocation)
    }
}

extension SearchUpdate {
    var resultTitles: [String] { tables.results.rows.map(\.title) }
    var resultIDs: [String] { tables.results.rows.map(\.id) }
}
