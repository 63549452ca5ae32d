import Foundation
import Sift

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
    /// From each text input to its first settled update, as the session saw it.
    private(set) var keystrokeLatencies: [Duration] = []
    private var pendingKeystroke: (generation: UInt64, start: ContinuousClock.Instant)?
    /// The latest answer's query and timing.
    private(set) var lastAnswer: (query: Query, timing: SearchTiming)?

    init(_ opened: ReplLoader.Opened, buffering: UpdateBuffering) async {
        dataset = opened.dataset
        settings = opened.settings
        controller = opened.controller
        descriptionFile = opened.descriptionFile
        indexDurations = [opened.indexDuration]
        self.buffering = buffering
        scope = opened.settings.scopes[0].name
        latest = await opened.controller.currentUpdate
        await subscribe()
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
            if let pending = pendingKeystroke, update.generation >= pending.generation {
                keystrokeLatencies.append(pending.start.duration(to: clock.now))
                pendingKeystroke = nil
            }
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

    /// The latest update, once the latest input is settled.
    func settledLatest() async -> SearchUpdate { await settled(controller.latestGeneration) }

    // MARK: - Inputs

    /// The search text changed (a keystroke, a backspace or a whole line).
    @discardableResult
    func setText(_ text: String) -> UInt64 {
        self.text = text
        isActive = true
        isSubmitted = false
        let generation = controller.setText(text)
        pendingKeystroke = (generation, clock.now)
        return generation
    }

    @discardableResult
    func selectScope(_ name: String) throws -> UInt64 {
        let generation = try controller.selectScope(name)
        scope = name
        isActive = true
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

    /// Records and highlights of rows of the latest update's tables, for display.
    func contents(of rows: [TableRow]) async -> [RowContent] {
        guard !rows.isEmpty else { return [] }
        return await controller.displayContents(of: rows)
    }

    // MARK: - Edits (through the controller's table APIs; the mirror follows)

    /// What an edit did: the record and where it is in each table afterwards.
    struct EditOutcome {
        var record: Record
        var update: SearchUpdate
        /// The record's 1-based position in the original order (file order, with edits), after
        /// the edit; nil when deleted.
        var position: Int?
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
        guard !dataset.records.contains(where: { $0.id == id }) else {
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
                } else if number == table.rowCount + 1, shown.isReversed, let first = shown.path(ofRow: table.rowCount) {
                    // After the last row shown: before the table's first row.
                    path = first
                    position = try mirrorPosition(of: table[first].id)
                } else if number == table.rowCount + 1, let last = table.sections.last, let lastRow = last.rows.last {
                    path = TableIndexPath(section: table.sections.count - 1, row: last.rows.count)
                    position = try mirrorPosition(of: lastRow.id) + 1
                } else if number == 1 && table.rowCount == 0 {
                    path = TableIndexPath(section: 0, row: 0)
                } else {
                    throw ToolError(
                        "row \(number) is out of range: the \(kind.name) table has \(Self.rows(table.rowCount))"
                            + " (insert before rows 1 to \(table.rowCount + 1))")
                }
                try await controller.insert(record, at: path, in: kind)
            } else {
                try await controller.insert(record)
            }
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        dataset.records.insert(record, at: position)
        return EditOutcome(record: record, update: await editUpdate(), position: position + 1)
    }

    /// Deletes the record at the visible table's row `number`.
    func delete(row number: Int) async throws -> EditOutcome {
        let (kind, path, row) = try visiblePath(number)
        let position = try mirrorPosition(of: row.id)
        let record: Record
        do {
            record = try await controller.deleteRow(at: path, in: kind)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        dataset.records.remove(at: position)
        return EditOutcome(record: record, update: await editUpdate(), position: nil)
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
        do {
            try await controller.moveRow(at: source, to: destination, in: kind)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        let record = dataset.records.remove(at: sourcePosition)
        dataset.records.insert(record, at: targetPosition)
        return EditOutcome(record: record, update: await editUpdate(), position: targetPosition + 1)
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
        do {
            try await controller.updateRow(at: path, in: kind, fields: fields)
        } catch let error as SiftError {
            throw ToolError(error.description)
        }
        let record = Record(id: row.id, fields: fields)
        dataset.records[position] = record
        return EditOutcome(record: record, update: await editUpdate(), position: position + 1)
    }

    /// The update an edit published (edits publish before they return).
    private func editUpdate() async -> SearchUpdate {
        let update = await controller.currentUpdate
        receive(update, epoch: epoch)
        return update
    }

    private func mirrorPosition(of id: String) throws -> Int {
        guard let position = dataset.records.firstIndex(where: { $0.id == id }) else {
            throw ToolError("no record with id '\(id)'")
        }
        return position
    }

    private func checkedFields(_ fields: [String: String], allowEmpty: Bool = false) throws -> [String: String] {
        guard !fields.isEmpty else { throw ToolError("expected field=value") }
        for field in fields.keys.sorted() where !dataset.columns.contains(field) {
            throw ToolError("unknown field '\(field)' (fields: \(dataset.columns.joined(separator: ", ")))")
        }
        return allowEmpty ? fields : fields.filter { !$0.value.isEmpty }
    }

    // MARK: - Reconfiguring

    /// Applies a configuration change: builds a new index of the current records (edits
    /// included) and a new controller, then puts the search bar back as it was.
    ///
    /// - Returns: how long indexing took.
    @discardableResult
    func reconfigure(_ change: (inout DatasetSettings) throws -> Void) async throws -> Duration {
        var settings = self.settings
        try change(&settings)
        let start = clock.now
        let controller: SearchController
        do {
            controller = try SearchController(
                configuration: settings.configuration, records: dataset.records, options: settings.controllerOptions)
        } catch {
            throw ToolError("\(error)")
        }
        let duration = start.duration(to: clock.now)
        indexDurations.append(duration)
        self.settings = settings
        self.controller = controller
        pendingKeystroke = nil
        latest = await controller.currentUpdate
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
    func displayContents(of rows: [TableRow]) -> [RowContent] { displayContentsAndQuery(of: rows).contents }

    /// The same, with the query the highlights are for (the results table's query at the time).
    func displayContentsAndQuery(of rows: [TableRow]) -> (query: Query?, contents: [RowContent]) {
        let update = currentUpdate
        let results = update.tables.results
        let contents = rows.map { row in
            let record = try? record(row)
            let highlights = results.contains(row.handle) ? (try? highlights(of: row)) ?? [:] : [:]
            return RowContent(record: record, highlights: highlights)
        }
        return (update.resultsQuery, contents)
    }
}

extension TableKind {
    var name: String { self == .original ? "original" : "results" }
}
