import SiftStorage
internal import Synchronization

/// The headless search display controller: the object a search bar talks to on every keystroke,
/// and the two tables the display shows.
///
/// Inputs are synchronous and never wait: `setText(_:)` on every keystroke, `selectScope(_:)`
/// for the scope buttons, `submit()` for the Search button and `cancel()` for Cancel. Each starts
/// a new *generation*; queries then run in the background, on the controller's actor, through a
/// `SearchSource` (the local index by default), and every state of the display arrives as a
/// `SearchUpdate` on `updates(buffering:)` or on a callback on the actor of your choice.
///
/// ```swift
/// let controller = try SearchController(
///     configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
///     records: cities,
///     options: .init(debounce: .milliseconds(150), originalTable: TableLayout(order: .sorted, isSectioned: true)))
/// let updates = await controller.updates()
/// controller.setText("sao")
/// for await update in updates where update.state == .results {
///     print(update.tables.results.rows.map(\.title))   // ["São Paulo"]
///     break
/// }
/// ```
///
/// **Ordering.** An update for generation *g* is never delivered after an update for a newer
/// generation: the controller publishes an answer only if its generation is still the latest
/// input's, checked on the actor at the moment of publishing, and all updates go out from the
/// actor in order.
///
/// **Cancellation.** A new input cancels the search in flight: its task is cancelled, and since
/// inputs register under a lock rather than on the actor, a scan that is running synchronously on
/// the actor sees the newer generation through `SearchRequest.isCancelled` at its next poll and
/// stops, so the new keystroke does not wait behind it.
///
/// **Tables.** The original table holds every record; the results table the current matches
/// (what it holds when no query is answered: nothing when inactive, and below a scope's minimum
/// length whatever `BelowThresholdPolicy` says). Edits — insert, delete, move, update, through
/// either table — change the index incrementally, re-evaluate only the edited record against the
/// query the results table shows, and come with change sets for both tables. A new query's
/// results come with a change set against the previous results.
///
/// **Sources.** With a read-only source (the default for `SearchSource`) edits throw; the
/// original table and the thresholds still come from the controller's index.
public actor SearchController {
    /// How the controller searches and lays out its tables.
    public nonisolated let options: Options
    /// The index's scopes, in button order.
    public nonisolated let scopes: [Scope]

    let index: SearchIndex
    /// The actor whose executor the controller runs on, which owns the index: the controller's
    /// own, or one that several controllers share (`SharedSearchIndex`).
    let host: SharedSearchIndex
    let source: any SearchSource
    let clock: ControllerClock
    /// The search bar, written by the (nonisolated) inputs.
    let inputs: Mutex<InputState>

    // MARK: State published in updates
    var tables: SearchTables
    package var content = ResultsContent.empty
    var state = SearchState.inactive
    /// The query of the latest processed input.
    var query: Query
    /// Badge counts per scope, for `content.query`.
    var scopeCounts: [Int?]
    /// Whether the tables' rows took new handles (the index renumbered its slots) since the last
    /// update: the next update's change sets then say `requiresReload`.
    var tablesRenumbered = false
    /// Whether a record moved in the original order since the last update: rows that both
    /// tables keep may then change their relative order (see `UpdateMailbox`).
    var recordMoved = false

    // MARK: Generations and delivery
    /// The generation of the latest input the actor has processed; it only grows.
    var processedGeneration: UInt64 = 0
    var latestUpdate: SearchUpdate
    var subscribers: [Int: UpdateSubscriber] = [:]
    var nextSubscriber = 0
    var searchTask: Task<Void, Never>?
    /// Callers of `settledUpdate(for:)` still waiting, by ticket.
    var settleWaiters: [Int: SettleWaiter] = [:]
    var nextSettleTicket = 0
    /// When the latest processed input was processed.
    var inputMark: ControllerClock.Mark
    /// The results table's layout: the options' one, in the order of the latest input.
    var resultsLayout: TableLayout

    /// The host's executor: every controller of one index runs on it, so they never run at the
    /// same time as each other or the index's edits.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { host.unownedExecutor }

    /// A controller over an existing index.
    ///
    /// - Parameters:
    ///   - index: the records; the controller owns it from now on.
    ///   - options: trigger, debounce, threshold policy, mode and table layouts.
    ///   - source: where answers come from; the index itself by default.
    ///   - clock: the clock for debouncing and timing (tests inject a `TestClock`).
    /// - Throws: `SiftError.invalidConfiguration` for a `.ranked` original table.
    /// - Complexity: O(1) for the original table's rows, which read the index's original or sorted
    ///   order in place (a sectioned table in original order groups them by section, O(*n*));
    ///   O(*s* log *n*) to find the *s* sections of a sorted one; the first sorted or sectioned
    ///   table sorts the index, O(*n* log *n*).
    public init(
        index: sending SearchIndex,
        options: Options = Options(),
        source: any SearchSource = LocalIndexSource(),
        clock: any Clock<Duration> = ContinuousClock()
    ) throws(SiftError) {
        try self.init(host: SharedSearchIndex(index), options: options, source: source, clock: clock)
    }

    /// A controller over the host's index. Call it on the host's executor
    /// (`SharedSearchIndex.makeController(options:source:clock:)`): it reads the index.
    init(
        host: SharedSearchIndex,
        options: Options,
        source: any SearchSource,
        clock: any Clock<Duration>
    ) throws(SiftError) {
        let index = host.index
        guard options.originalTable.order != .ranked else {
            throw .invalidConfiguration("the original table is in original or sorted order, not ranked")
        }
        self.options = options
        scopes = index.scopes
        self.index = index
        self.host = host
        self.source = source
        self.clock = ControllerClock(base: clock)
        inputs = Mutex(
            InputState(
                scope: index.scopes[0].name,
                mode: options.mode,
                typos: options.typos,
                order: options.resultsTable.order
            )
        )
        resultsLayout = options.resultsTable
        query = Query(
            "",
            scope: index.scopes[0].name,
            mode: options.mode,
            order: options.resultsTable.order,
            syntax: options.syntax,
            typos: options.typos
        )
        scopeCounts = [Int?](repeating: nil, count: index.scopes.count)
        let source = index.tableRowSource(
            withSections: options.originalTable.isSectioned || options.resultsTable.isSectioned,
            displayFields: options.displayFields
        )
        tables = SearchTables(
            original: RecordTable(
                rows: index.rowsInOrder(options.originalTable.order),
                layout: options.originalTable,
                sectionTitles: index.sectionTitles,
                source: source,
                groupedBySection: options.originalTable.order == .sorted
            ),
            results: RecordTable(
                handles: [],
                layout: options.resultsTable,
                sectionTitles: index.sectionTitles,
                source: source,
                groupedBySection: true
            )
        )
        inputMark = self.clock.mark()
        latestUpdate = SearchUpdate(
            sequence: 0,
            generation: 0,
            reason: .initial,
            query: query,
            state: .inactive,
            scopes: index.scopes.map { ScopeButton(name: $0.name, minimumLength: $0.minimumLength, count: nil) },
            resultsQuery: nil,
            tables: tables,
            originalChanges: LazyChangeSet(),
            resultsChanges: LazyChangeSet()
        )
        host.register(self)
    }

    /// A controller over a new index of `records`.
    ///
    /// - Throws: what `SearchIndex.init(configuration:records:)` throws, and
    ///   `SiftError.invalidConfiguration` for a `.ranked` original table.
    /// - Complexity: O(*n*) in the size of the records.
    public init(
        configuration: IndexConfiguration,
        records: [Record],
        options: Options = Options(),
        source: any SearchSource = LocalIndexSource(),
        clock: any Clock<Duration> = ContinuousClock()
    ) throws(SiftError) {
        try self.init(
            index: try SearchIndex(configuration: configuration, records: records),
            options: options,
            source: source,
            clock: clock
        )
    }

    deinit {
        searchTask?.cancel()
        for subscriber in subscribers.values { subscriber.finish() }
    }

    // MARK: - Inputs

    /// The search text changed (call it on every keystroke). Activates the search.
    ///
    /// - Returns: the input's generation.
    /// - Complexity: O(1); the actor processes the input later (cancelling the query in flight).
    @discardableResult
    public nonisolated func setText(_ text: String) -> UInt64 {
        registerInput { input in
            input.isActive = true
            input.text = text
            input.isSubmitted = false
            return .text
        }
    }

    /// A scope button was selected. Activates the search.
    ///
    /// - Returns: the input's generation.
    /// - Complexity: O(1); the actor processes the input later (cancelling the query in flight).
    /// - Throws: `SiftError.unknownScope` when the index has no such scope.
    @discardableResult
    public nonisolated func selectScope(_ name: String) throws(SiftError) -> UInt64 {
        guard scopes.contains(where: { $0.name == name }) else { throw .unknownScope(name) }
        return registerInput { input in
            input.isActive = true
            input.scope = name
            return .scope
        }
    }

    /// The query options changed: how the text matches, the typos it tolerates, and the order
    /// of the results table (nil keeps an option as it is). Activates the search when it is
    /// active; an inactive search only takes the options for its next query.
    ///
    /// - Returns: the input's generation.
    /// - Complexity: O(1); the actor processes the input later (cancelling the query in flight).
    @discardableResult
    public nonisolated func setQueryOptions(
        mode: MatchMode? = nil,
        typos: TypoTolerance? = nil,
        order: ResultOrder? = nil
    ) -> UInt64 {
        registerInput { input in
            if let mode { input.mode = mode }
            if let typos { input.typos = typos }
            if let order { input.order = order }
            return .options
        }
    }

    /// The Search button: queries the current text now, without debouncing. Activates the search.
    ///
    /// - Returns: the input's generation.
    /// - Complexity: O(1); the actor processes the input later (cancelling the query in flight).
    @discardableResult
    public nonisolated func submit() -> UInt64 {
        registerInput { input in
            input.isActive = true
            input.isSubmitted = true
            return .submit
        }
    }

    /// The Cancel button: clears the text and ends the search; the display goes back to the
    /// original table and the results table empties. The selected scope stays.
    ///
    /// - Returns: the input's generation.
    /// - Complexity: O(1); the actor processes the input later (cancelling the query in flight).
    @discardableResult
    public nonisolated func cancel() -> UInt64 {
        registerInput { input in
            input.isActive = false
            input.text = ""
            input.isSubmitted = false
            return .cancel
        }
    }

    /// The generation of the latest input, processed or not. It is read under the inputs' lock,
    /// not on the actor, so a query running on the actor can see that it is superseded.
    public nonisolated var latestGeneration: UInt64 { inputs.withSanitizerVisibleLock { $0.generation } }

    /// Records an input under the lock, then has the actor process it.
    private nonisolated func registerInput(_ change: (inout InputState) -> InputState.Change) -> UInt64 {
        let generation = inputs.withSanitizerVisibleLock { input in input.record(change(&input)) }
        Task { await self.processInputs() }
        return generation
    }

    // MARK: - Reading

    /// The latest update.
    public var currentUpdate: SearchUpdate { latestUpdate }

    /// The record a row shows, as it is now (found by id when the row's handle is from before an
    /// update of the record).
    ///
    /// - Throws: `SiftError.unknownRecord` when the record was deleted.
    /// - Complexity: O(*f*) for *f* fields.
    public func record(_ row: TableRow) throws(SiftError) -> Record {
        try index.record(try currentHandle(of: row))
    }

    /// The ranges the query the results table shows matches in each searched field of a row's
    /// record (empty when it shows no query's matches), for highlighting the row.
    ///
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    public func highlights(of row: TableRow) throws -> [String: [Range<String.Index>]] {
        guard let query = content.query else { return [:] }
        return try index.highlights(of: try currentHandle(of: row), for: query)
    }

    func currentHandle(of row: TableRow) throws(SiftError) -> RecordHandle {
        if tables.original.contains(row.handle) { return row.handle }
        guard let handle = index.handle(forID: row.id) else { throw .unknownRecord(id: row.id) }
        return handle
    }
}
