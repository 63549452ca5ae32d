import Foundation
import Sift
import SiftDataset

/// One REPL session over a dataset: the search controller, the search bar as the user left it,
/// the latest update, and the edits and reconfigurations, shared by line mode and live mode.
///
/// Inputs go straight to the controller's nonisolated inputs and return at once; updates arrive
/// on the main actor (`onUpdate`), and `settled(_:)` waits for the first settled update of a
/// generation. Records are mirrored in original order (the same edits are applied to the mirror),
/// so that a configuration change can re-index them.
@MainActor
final class ReplSession {
    private(set) var dataset: Dataset
    private(set) var settings: DatasetSettings
    private(set) var controller: SearchController
    let descriptionFile: String?
    /// The query limits of the command line: every index the session builds has them.
    let queryLimits: QueryLimits
    private let buffering: UpdateBuffering

    // MARK: The search bar
    private(set) var text = ""
    private(set) var scope: String
    private(set) var isActive = false
    private(set) var isSubmitted = false

    // MARK: Updates
    /// The latest update of the current controller.
    private(set) var latest: SearchUpdate
    /// Called with every update the session receives (live mode redraws).
    var onUpdate: ((SearchUpdate) -> Void)?
    private var delivery: Task<Void, Never>?
    /// Incremented by every new controller, so that updates of an old one are ignored.
    private var epoch = 0
    private var waiters: [(generation: UInt64, continuation: CheckedContinuation<SearchUpdate, Never>)] = []

    // MARK: Statistics (`:stats`)
    private let clock = ContinuousClock()
    private(set) var indexDurations: [Duration]
    /// The phases of the first load and how long each took (reading, parsing, records,
    /// indexing, tables).
    let loadPhases: [(phase: String, duration: Duration)]
    /// One keystroke, as the display saw it.
    struct Keystroke {
        /// The index's time to answer (nil when the keystroke ran no search: too short, say).
        var searched: Duration?
        /// From the text input to the display showing its settled update.
        var total: Duration
    }
    /// Every text input and scope switch that the display showed the answer of, in order.
    private(set) var keystrokes: [Keystroke] = []
    private var pendingKeystroke: (generation: UInt64, start: ContinuousClock.Instant)?
    /// The latest answer's query and timing.
    private(set) var lastAnswer: (query: Query, timing: SearchTiming)?

    init(_ opened: ReplLoader.Opened, buffering: UpdateBuffering) async {
        dataset = opened.dataset
        settings = opened.settings
        controller = opened.controller
        descriptionFile = opened.descriptionFile
        queryLimits = opened.queryLimits
        indexDurations = [opened.indexDuration]
        loadPhases = opened.phases
        self.buffering = buffering
        scope = opened.settings.scopes[0].name
        latest = await opened.controller.currentUpdate
        Self.mapRows(of: latest.tables.original)
        await subscribe()
    }

    /// Maps the rows of the original table by record now, O(*n*) once, rather than on the first
    /// row shown: reading a row's record finds it there (and the map is shared with the
    /// controller's copy of the table).
    private static func mapRows(of table: RecordTable) {
        guard let first = table.row(at: TableIndexPath(section: 0, row: 0)) else { return }
        _ = table.contains(first.handle)
    }

    private func subscribe() async {
        epoch += 1
        let epoch = self.epoch
        delivery?.cancel()
        delivery = await controller.deliverUpdatesOnMainActor(buffering: buffering) { [weak self] update in
            self?.receive(update, epoch: epoch)
        }
    }

    private func receive(_ update: SearchUpdate, epoch: Int) {
        guard epoch == self.epoch, update.sequence >= latest.sequence else { return }
        let isNew = update.sequence > latest.sequence || update.sequence == 0
        latest = update
        if update.state.isSettled {
            if update.reason == .answer, let timing = update.timing { lastAnswer = (update.query, timing) }
            let ready = waiters.filter { update.generation >= $0.generation }
            waiters.removeAll { update.generation >= $0.generation }
            for waiter in ready { waiter.continuation.resume(returning: update) }
        }
        if isNew { onUpdate?(update) }
    }

    /// The first settled update of `generation` (or a later one): what the display shows once
    /// the input's query, if any, has been answered.
    func settled(_ generation: UInt64) async -> SearchUpdate {
        if latest.generation >= generation && latest.state.isSettled { return latest }
        return await withCheckedContinuation { waiters.append((generation, $0)) }
    }

    /// The display shows `update` now: if it settles the pending text input, that keystroke's
    /// time is taken (see ``keystrokes``).
    func showing(_ update: SearchUpdate) {
        guard update.state.isSettled, let pending = pendingKeystroke, update.generation >= pending.generation else {
            return
        }
        let answered = update.reason == .answer && update.generation == pending.generation
        let searched = answered ? update.timing?.searched : nil
        keystrokes.append(Keystroke(searched: searched, total: pending.start.duration(to: clock.now)))
        pendingKeystroke = nil
    }

    /// The latest update, once the latest input is settled.
    func settledLatest() async -> SearchUpdate { await settled(controller.latestGeneration) }

    // MARK: - Inputs

    /// The search text changed (a keystroke, a backspace or a whole line).
    @discardableResult
    func setText(_ text: String) -> UInt64 {
        self.text = text
        isActive = true
        isSubmitted = false
        let start = clock.now
        let generation = controller.setText(text)
        pendingKeystroke = (generation, start)
        return generation
    }

    /// A text edit in live mode's search field: like `setText(_:)`, except that erasing the whole
    /// text in a scope without a category ends the search, so that the display goes back to the
    /// list it opened with (the original table, in its layout: sorted, in sections), not to every
    /// record as results.
    @discardableResult
    func edit(_ text: String) -> UInt64 {
        let category = settings.scopes.first { $0.name == scope }?.filter != nil
        guard text.isEmpty, !category, !isSubmitted || settings.trigger == .asYouType else { return setText(text) }
        return cancel()
    }

    @discardableResult
    func selectScope(_ name: String) throws -> UInt64 {
        let generation = try controller.selectScope(name)
        scope = name
        isActive = true
        // A scope switch is timed like a keystroke: the display shows its search's times.
        pendingKeystroke = (generation, clock.now)
        return generation
    }

    /// Switches how queries match and order their results, at once and without re-indexing
    /// (`SearchController.setQueryOptions`); the settings keep them for a later re-index.
    @discardableResult
    func setQueryOptions(mode: MatchMode? = nil, typos: TypoTolerance? = nil, order: ResultOrder? = nil) -> UInt64 {
        if let mode { settings.mode = mode }
        if let typos { settings.typos = typos }
        if let order { settings.order = order }
        let generation = controller.setQueryOptions(mode: mode, typos: typos, order: order)
        if isActive { pendingKeystroke = (generation, clock.now) }
        return generation
    }

    @discardableResult
    func submit() -> UInt64 {
        isActive = true
        isSubmitted = true
        return controller.submit()
    }

    @discardableResult
    func cancel() -> UInt64 {
        text = ""
        isActive = false
        isSubmitted = false
        return controller.cancel()
    }

    // MARK: - Tables

    /// Which table the display shows for an update: the results while a search is active, else
    /// the original table; and the original table too while the text is too short for the scope
    /// (the controller's results then hold every record, in the results table's order, which is
    /// not the order a person expects of the whole list). Row numbers in edit commands refer to
    /// this table.
    static func visibleKind(_ update: SearchUpdate) -> TableKind {
        switch update.state {
        case .inactive, .tooShort: .original
        default: .results
        }
    }

    var visibleKind: TableKind { Self.visibleKind(latest) }

    /// A table of an update as the display shows it (sorted tables backwards for a descending sort).
    func shown(_ kind: TableKind, of update: SearchUpdate) -> ShownTable {
        ShownTable(update.tables[kind], descending: settings.descending)
    }

    private func visiblePath(_ number: Int) throws -> (TableKind, TableIndexPath, TableRow) {
        let kind = visibleKind
        let table = shown(kind, of: latest)
        guard let path = table.path(ofRow: number) else {
            throw ToolError("row \(number) is out of range: the \(kind.name) table has \(Self.rows(table.rowCount))")
        }
        return (kind, path, table.table[path])
    }

    static func rows(_ count: Int) -> String { count == 1 ? "1 row" : "\(count) rows" }

    /// Records and highlights of rows of a table of `update`, for display.
    func contents(of rows: [TableRow], in kind: TableKind, of update: SearchUpdate) async -> [RowContent] {
        guard !rows.isEmpty else { return [] }
        return await controller.displayContents(of: rows.map { ($0, kind) }, from: update.sequence)
    }

    // MARK: - Edits (through the controller's table APIs; the mirror follows)

    /// What an edit did: the record and where it is in each table afterwards.
    struct EditOutcome {
        var record: Record
        var update: SearchUpdate
        /// The record's 1-based position in the original order (file order, with edits), after
        /// the edit; nil when deleted.
        var position: Int?
        /// The record's row number as shown in each table, before and after the edit (nil where
        /// a table does not show it).
        var rows: [TableKind: (before: Int?, after: Int?)] = [:]
    }

    /// Inserts a record before the visible table's row `number` (one past the last row: after
    /// it), or at the end of the original list when `number` is nil.
    func insert(fields: [String: String], before number: Int?) async throws -> EditOutcome {
        var fields = try checkedFields(fields)
        let id: String
        if let idField = dataset.idField, let given = fields[idField] {
            id = given
        } else {
            var next = dataset.records.count + 1
            let ids = Set(dataset.records.map(\.id))
            while ids.contains(String(next)) { next += 1 }
            id = String(next)
            if let idField = dataset.idField { fields[idField] = id }
        }
        guard !dataset.records.contains(where: { $0.id.isSameID(as: id) }) else {
            throw ToolError("a record with id '\(id)' already exists")
        }
        let record = Record(id: id, fields: fields)
        var position = dataset.records.count
        do {
            if let number {
                let kind = visibleKind
                let shown = shown(kind, of: latest)
                let table = shown.table
                let path: TableIndexPath
                if let found = shown.path(ofRow: number) {
                    path = found
                    position = try mirrorPosition(of: table[found].id)
                } else if number == table.rowCount + 1, shown.isReversed, let first = shown.path(ofRow: table.rowCount)
                {
                    // After the last row shown: before the table's first row.
                    path = first
                    position = try mirrorPosition(of: table[first].id)
                } else if number == table.rowCount + 1, table.rowCount > 0 {
                    // After the table's last row, in its last section.
                    let section = table.numberOfSections - 1
                    let rows = table.numberOfRows(inSection: section)
                    path = TableIndexPath(section: section, row: rows)
                    position = try mirrorPosition(of: table[TableIndexPath(section: section, row: rows - 1)].id) + 1
                } else if number == 1 && table.rowCount == 0 {
                    path = TableIndexPath(section: 0, row: 0)
                } else {
                    throw ToolError(
                        "row \(number) is out of range: the \(kind.name) table has \(Self.rows(table.rowCount))"
                            + " (insert before rows 1 to \(table.rowCount + 1))"
                    )
                }
                try await controller.insert(record, at: path, in: kind)
            } else {
                try await controller.insert(record)
            }
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        dataset.records.insert(record, at: position)
        return outcome(record, before: nil, update: await editUpdate(), position: position + 1)
    }

    /// Deletes the record at the visible table's row `number`.
    func delete(row number: Int) async throws -> EditOutcome {
        let (kind, path, row) = try visiblePath(number)
        let position = try mirrorPosition(of: row.id)
        let before = latest
        let record: Record
        do {
            record = try await controller.deleteRow(at: path, in: kind)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        dataset.records.remove(at: position)
        return outcome(record, before: (row.handle, before), update: await editUpdate(), position: nil)
    }

    /// Deletes the record with this id (live mode, whose screen may lag the latest update,
    /// deletes by id).
    func delete(id: String) async throws -> EditOutcome {
        let position = try mirrorPosition(of: id)
        do {
            try await controller.deleteRecord(id: id)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        let record = dataset.records.remove(at: position)
        return EditOutcome(record: record, update: await editUpdate(), position: nil)
    }

    /// Moves the record at the visible table's row `from` to where the record at row `to` is in
    /// the original list.
    func move(row from: Int, to: Int) async throws -> EditOutcome {
        let (kind, source, moving) = try visiblePath(from)
        let (_, destination, target) = try visiblePath(to)
        let sourcePosition = try mirrorPosition(of: moving.id)
        let targetPosition = try mirrorPosition(of: target.id)
        let before = latest
        do {
            try await controller.moveRow(at: source, to: destination, in: kind)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        let record = dataset.records.remove(at: sourcePosition)
        dataset.records.insert(record, at: targetPosition)
        let update = await editUpdate()
        return outcome(record, before: (moving.handle, before), update: update, position: targetPosition + 1)
    }

    /// Changes fields of the record at the visible table's row `number` (an empty value removes
    /// the field); its id and original position stay.
    func update(row number: Int, fields changes: [String: String]) async throws -> EditOutcome {
        let changes = try checkedFields(changes, allowEmpty: true)
        let (kind, path, row) = try visiblePath(number)
        let position = try mirrorPosition(of: row.id)
        var fields = dataset.records[position].fields
        if let idField = dataset.idField, let value = changes[idField], value != row.id {
            throw ToolError("cannot change the id field '\(idField)'")
        }
        for (field, value) in changes { fields[field] = value.isEmpty ? nil : value }
        let before = latest
        do {
            try await controller.updateRow(at: path, in: kind, fields: fields)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        let record = Record(id: row.id, fields: fields)
        dataset.records[position] = record
        return outcome(record, before: (row.handle, before), update: await editUpdate(), position: position + 1)
    }

    /// An edit's outcome, with the record's row numbers before and after it in each table: before,
    /// by its handle in the tables of the update before the edit; after, from the edit's change
    /// sets (the record is where a row was inserted or moved to or reloaded, or where it was, in a
    /// table the edit left alone). Nothing reads more than a few rows.
    private func outcome(
        _ record: Record,
        before: (handle: RecordHandle, update: SearchUpdate)?,
        update: SearchUpdate,
        position: Int?
    ) -> EditOutcome {
        var rows: [TableKind: (before: Int?, after: Int?)] = [:]
        for kind in TableKind.allCases {
            let oldPath = before.flatMap { $0.update.tables[kind].indexPath(of: $0.handle) }
            let old = before.flatMap { shown(kind, of: $0.update).rowNumber(of: $0.handle) }
            var new: Int? = nil
            if position != nil {
                let table = update.tables[kind]
                let changes = kind == .original ? update.originalChanges : update.resultsChanges
                let candidates =
                    changes.insertedRows + changes.movedRows.map(\.to) + changes.reloadedRows
                    + changes.insertedSections.map { TableIndexPath(section: $0, row: 0) }
                    + (oldPath.map { [$0] } ?? [])
                if let path = candidates.first(where: { table.row(at: $0)?.id.isSameID(as: record.id) == true }) {
                    new = shown(kind, of: update).rowNumber(of: path)
                } else if changes.requiresReload, let path = Self.path(of: record.id, in: table) {
                    // A change set too large to list (or an index that renumbered its records:
                    // every row has a new handle) names no row: look the record up, once.
                    new = shown(kind, of: update).rowNumber(of: path)
                }
            }
            rows[kind] = (old, new)
        }
        return EditOutcome(record: record, update: update, position: position, rows: rows)
    }

    /// Where a table shows the record with this id, by reading its rows.
    ///
    /// - Complexity: O(*m*) for *m* rows.
    private static func path(of id: String, in table: RecordTable) -> TableIndexPath? {
        for section in 0..<table.numberOfSections {
            for row in 0..<table.numberOfRows(inSection: section) {
                let path = TableIndexPath(section: section, row: row)
                if table.row(at: path)?.id.isSameID(as: id) == true { return path }
            }
        }
        return nil
    }

    /// The update an edit published (edits publish before they return).
    private func editUpdate() async -> SearchUpdate {
        let update = await controller.currentUpdate
        receive(update, epoch: epoch)
        return update
    }

    private func mirrorPosition(of id: String) throws -> Int {
        guard let position = dataset.records.firstIndex(where: { $0.id.isSameID(as: id) }) else {
            throw ToolError("no record with id '\(id)'")
        }
        return position
    }

    private func checkedFields(_ fields: [String: String], allowEmpty: Bool = false) throws -> [String: String] {
        guard !fields.isEmpty else { throw ToolError("expected field=value") }
        for field in fields.keys.sorted() where !dataset.columns.contains(field) {
            throw ToolError("unknown field '\(shownName(field))' (fields: \(shownNames(dataset.columns)))")
        }
        return allowEmpty ? fields : fields.filter { !$0.value.isEmpty }
    }

    // MARK: - Reconfiguring

    /// Applies a configuration change: builds a new index of the current records (edits
    /// included, with the session's query limits) and a new controller, then puts the search
    /// bar back as it was.
    ///
    /// - Returns: how long indexing took.
    @discardableResult
    func reconfigure(_ change: (inout DatasetSettings) throws -> Void) async throws -> Duration {
        var settings = self.settings
        try change(&settings)
        let start = clock.now
        let name = (dataset.file as NSString).lastPathComponent
        let phases = LoadPhases(bar: ProgressBar.standardError(title: "Re-indexing \(name)"))
        defer { phases.finish() }
        let controller = try ReplLoader.makeController(
            settings: settings,
            records: dataset.records,
            queryLimits: queryLimits,
            phases: phases
        )
        let duration = start.duration(to: clock.now)
        indexDurations.append(duration)
        self.settings = settings
        self.controller = controller
        pendingKeystroke = nil
        latest = await controller.currentUpdate
        Self.mapRows(of: latest.tables.original)
        await subscribe()
        // The search bar as it was (selecting a scope activates the search: cancel ends it again).
        if scope != settings.scopes[0].name { try controller.selectScope(scope) }
        if isActive {
            controller.setText(text)
            if isSubmitted { controller.submit() }
        } else if scope != settings.scopes[0].name {
            controller.cancel()
        }
        _ = await settledLatest()
        return duration
    }
}

/// What a row shows: its record (nil if it was deleted meanwhile) and the ranges to highlight.
struct RowContent: Sendable {
    var record: Record?
    var highlights: [String: [Range<String.Index>]]
}

extension SearchController {
    /// The records of table rows, with the ranges matched by the query the results table shows
    /// (only for rows among the results), read in one visit to the actor so that they agree.
    func displayContents(of rows: [(row: TableRow, kind: TableKind)], from sequence: UInt64) -> [RowContent] {
        displayContentsAndQuery(of: rows, from: sequence).contents
    }

    /// The same, with the query the highlights are for (the results table's query at the time).
    ///
    /// - Parameters:
    ///   - rows: rows of the tables of the update numbered `sequence`, and the table of each.
    /// - Complexity: O(*k*) for *k* rows of the results table when `sequence` is still the
    ///   current update's (they are among the results); otherwise the first row asked about
    ///   maps the current results table's rows, O(*m*).
    func displayContentsAndQuery(
        of rows: [(row: TableRow, kind: TableKind)],
        from sequence: UInt64
    ) -> (query: Query?, contents: [RowContent]) {
        let update = currentUpdate
        let results = update.tables.results
        let current = update.sequence == sequence
        let contents = rows.map { row, kind in
            let record = try? record(row)
            let isResult = (current && kind == .results) || results.contains(row.handle)
            let highlights = isResult ? (try? highlights(of: row)) ?? [:] : [:]
            return RowContent(record: record, highlights: highlights)
        }
        return (update.resultsQuery, contents)
    }
}

extension TableKind {
    var name: String { self == .original ? "original" : "results" }
}
