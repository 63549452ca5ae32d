/// Edits go through the controller, which changes its index and patches both tables.
///
/// Table paths are in the coordinates of the controller's current tables (those of
/// `currentUpdate`). A UI that may lag behind them (updates still on their way to it) edits by
/// record id instead: `deleteRecord(id:)`, `update(_:)`, `moveRecord(id:toOriginalPosition:)`.
/// Each edit publishes one update, with reason `.edit`, before the call returns.
extension SearchController {
    // MARK: - Editing through a table

    /// Inserts a record into the original list just before the record shown at `path` of
    /// `table` (so that, in a table in original order, it appears at `path`). A path one past the
    /// last row of a section inserts just after that row's record; `[0, 0]` in an empty table
    /// appends. Whether the record shows in the results depends on whether it matches.
    ///
    /// - Throws: `SiftError.positionOutOfRange` for any other path, what `SearchIndex.insert`
    ///   throws, and `SiftError.invalidConfiguration` with a read-only source.
    /// - Complexity: see `insert(_:atOriginalPosition:)`.
    public func insert(_ record: Record, at path: TableIndexPath, in table: TableKind) throws {
        let rows = tables[table]
        let position: Int
        if let row = rows.row(at: path) {
            position = try index.position(of: row.handle)
        } else if path.row > 0, path.row == rows.numberOfRows(inSection: path.section),
            let last = rows.row(at: TableIndexPath(section: path.section, row: path.row - 1))
        {
            position = try index.position(of: last.handle) + 1
        } else if rows.rowCount == 0 && path == TableIndexPath(section: 0, row: 0) {
            position = index.count
        } else {
            throw SiftError.positionOutOfRange(path.row, count: rowCount(ofSection: path.section, in: rows))
        }
        try insert(record, atOriginalPosition: position)
    }

    /// Deletes the record shown at `path` of `table` (deleting a results row deletes the record
    /// from the original table too).
    ///
    /// - Returns: the deleted record.
    /// - Throws: `SiftError.positionOutOfRange`, or `SiftError.invalidConfiguration` with a
    ///   read-only source.
    /// - Complexity: see `deleteRecord(id:)`.
    @discardableResult
    public func deleteRow(at path: TableIndexPath, in table: TableKind) throws -> Record {
        let row = try row(at: path, in: table)
        let record = try index.record(row.handle)
        try deleteRecord(id: row.id)
        return record
    }

    /// Moves the record shown at `source` of `table` in the original list, to where the record
    /// shown at `destination` is, as a table view's reordering control does. In a table in
    /// original order the row ends up at `destination`; in a sorted or sectioned table only the
    /// original order changes and the row stays where collation puts it.
    ///
    /// - Throws: `SiftError.positionOutOfRange`, or `SiftError.invalidConfiguration` with a
    ///   read-only source.
    /// - Complexity: see `moveRecord(id:toOriginalPosition:)`.
    public func moveRow(at source: TableIndexPath, to destination: TableIndexPath, in table: TableKind) throws {
        let moving = try row(at: source, in: table)
        let target = try row(at: destination, in: table)
        try moveRecord(id: moving.id, toOriginalPosition: try index.position(of: target.handle))
    }

    /// Replaces the fields of the record shown at `path` of `table`, keeping its id and its
    /// original position.
    ///
    /// - Throws: `SiftError.positionOutOfRange`, what `SearchIndex.update` throws, or
    ///   `SiftError.invalidConfiguration` with a read-only source.
    /// - Complexity: see `update(_:)`.
    public func updateRow(at path: TableIndexPath, in table: TableKind, fields: [String: String]) throws {
        let row = try row(at: path, in: table)
        try update(Record(id: row.id, fields: fields))
    }

    // MARK: - Editing by record

    /// Inserts a record at a position of the original list (at the end when nil).
    ///
    /// - Throws: what `SearchIndex.insert(_:at:)` throws, or `SiftError.invalidConfiguration`
    ///   with a read-only source.
    /// - Complexity: O(*s*) in the record's size to index it and to match it once per scope with
    ///   a badge, O(log *m*) order lookups to place it in each table, plus O(*m*) to shift the
    ///   rows of the sections it enters.
    public func insert(_ record: Record, atOriginalPosition position: Int? = nil) throws {
        renumberSlotsIfWorthwhile()
        try edit(replacing: nil) { index in try index.insert(record, at: position) }
    }

    /// Deletes the record with this id.
    ///
    /// - Throws: `SiftError.unknownRecord`, or `SiftError.invalidConfiguration` with a read-only
    ///   source.
    /// - Complexity: as `insert(_:atOriginalPosition:)`.
    public func deleteRecord(id: String) throws {
        renumberSlotsIfWorthwhile()
        guard let handle = index.handle(forID: id) else { throw SiftError.unknownRecord(id: id) }
        try edit(replacing: handle) { index in
            try index.remove(handle)
            return nil
        }
    }

    /// Replaces the record that has `record.id`, keeping its original position. Its rows are
    /// reloaded in place, or move (as a delete and an insert) when its new title sorts elsewhere,
    /// and enter or leave the results as it now matches or not.
    ///
    /// - Throws: `SiftError.unknownRecord`, what `SearchIndex.update(_:)` throws, or
    ///   `SiftError.invalidConfiguration` with a read-only source.
    /// - Complexity: as `insert(_:atOriginalPosition:)`.
    public func update(_ record: Record) throws {
        renumberSlotsIfWorthwhile()
        guard let handle = index.handle(forID: record.id) else { throw SiftError.unknownRecord(id: record.id) }
        try edit(replacing: handle) { index in try index.update(record) }
    }

    /// Moves the record with this id to a position of the original list.
    ///
    /// - Throws: `SiftError.unknownRecord`, `SiftError.positionOutOfRange`, or
    ///   `SiftError.invalidConfiguration` with a read-only source.
    /// - Complexity: as `insert(_:atOriginalPosition:)`.
    public func moveRecord(id: String, toOriginalPosition position: Int) throws {
        renumberSlotsIfWorthwhile()
        guard let handle = index.handle(forID: id) else { throw SiftError.unknownRecord(id: id) }
        let from = try index.position(of: handle)
        recordMoved = true
        try edit(replacing: handle) { index in
            try index.move(from: from, to: position)
            return handle
        }
    }

    // MARK: - The edit

    /// Lets the index renumber its slots before an edit when that is worthwhile (see
    /// `SearchIndex.renumberSlotsIfWorthwhile()`), then gives both tables the same rows under
    /// their new handles. The next update's change sets say `requiresReload` (every row has a
    /// new handle); tables of earlier updates keep the handles they had, which the index still
    /// resolves.
    ///
    /// - Complexity: O(1) when the index does not renumber; else that of the renumbering, plus
    ///   O(*m* log *n*) for the *m* rows of the tables.
    private func renumberSlotsIfWorthwhile() {
        guard source.supportsEditing else { return }
        host.assumeIsolated { host in host.renumberSlotsIfWorthwhile() }
    }

    /// Gives both tables the rows they show under the handles the index's renumbering gave them.
    ///
    /// - Complexity: O(*m* log *n*) for the *m* rows of the tables (O(1) for a table that reads
    ///   the index's order in place).
    func retableAfterRenumbering() {
        let source = index.tableRowSource(withSections: rowsNeedSections, displayFields: options.displayFields)
        func renumbered(_ table: RecordTable, order: ResultOrder) -> RecordTable {
            if table.records.isIndexOrder {
                return RecordTable(
                    rows: index.rowsInOrder(order),
                    layout: table.layout,
                    sectionTitles: index.sectionTitles,
                    source: source,
                    groupedBySection: order == .sorted
                )
            }
            // Rows of the tables are live records, so each has a handle now.
            let handles = table.records.handles.compactMap { try? index.currentHandle($0) }
            return RecordTable(
                handles: handles,
                layout: table.layout,
                sectionTitles: index.sectionTitles,
                source: source,
                groupedBySection: true
            )
        }
        tables.original = renumbered(tables.original, order: options.originalTable.order)
        tables.results = renumbered(tables.results, order: resultsLayout.order)
        tablesRenumbered = true
    }

    /// Applies one edit of one record to the index through the host, which has every controller
    /// of the index (this one among them) patch its tables and badges.
    ///
    /// - Parameters:
    ///   - oldHandle: the record's handle before the edit (nil when inserting).
    ///   - change: the index edit; returns the record's handle after it (nil when deleting).
    private func edit(replacing oldHandle: RecordHandle?, _ change: (SearchIndex) throws -> RecordHandle?) throws {
        guard source.supportsEditing else {
            throw SiftError.invalidConfiguration(
                "the search source is read-only: edits need a source that follows the index"
            )
        }
        nonisolated(unsafe) let change = change
        try host.assumeIsolated { host in try host.edit(replacing: oldHandle, change) }
    }

    /// What a controller knows of a record before an edit changes it: where its rows are and
    /// which badges count it.
    struct EditOrigin: Sendable {
        var badges: [Bool]?
        var counted: Query?
        var originalRow: Int?
        var resultsRow: Int?
    }

    /// Finds where the record shows before the index changes it (every row of both tables is
    /// still live in the index).
    ///
    /// - Complexity: O(log *m*) order lookups per table, plus a match per scope with a badge.
    func prepareEdit(replacing oldHandle: RecordHandle?) throws -> EditOrigin {
        let counted = content.query
        return EditOrigin(
            badges: try oldHandle.map { try badgeMemberships(of: $0, for: counted) },
            counted: counted,
            originalRow: try oldHandle.flatMap { try tables.original.locate($0, precedes: originalOrder()) },
            resultsRow: try oldHandle.flatMap { try tables.results.locate($0, precedes: resultsOrder()) }
        )
    }

    /// Patches both tables and the badges after the index changed a record, and publishes an
    /// update with reason `.edit`.
    ///
    /// - Parameters:
    ///   - origin: what `prepareEdit(replacing:)` found before the change.
    ///   - newHandle: the record's handle after the change (nil when it was deleted).
    /// - Complexity: O(log *m*) order lookups to place the record in each table, O(*m*) to shift
    ///   the rows of the sections it enters, plus a match per scope with a badge.
    func finishEdit(_ origin: EditOrigin, newHandle: RecordHandle?) throws {
        let counted = origin.counted
        let before = origin.badges
        let oldOriginal = origin.originalRow
        let oldResults = origin.resultsRow
        let source = index.tableRowSource(withSections: rowsNeedSections, displayFields: options.displayFields)
        // An original table that reads the index's order in place takes the order as the edit
        // left it.
        let originalChanges = try tables.original.replaceRow(
            number: oldOriginal,
            with: newHandle,
            source: source,
            rowsAfter: tables.original.records.isIndexOrder ? index.rowsInOrder(options.originalTable.order) : nil,
            precedes: originalOrder()
        )
        let isResult = try newHandle.map { try showsInResults($0) } ?? false
        let resultsChanges = try tables.results.replaceRow(
            number: oldResults,
            with: isResult ? newHandle : nil,
            source: source,
            precedes: resultsOrder()
        )
        let after = try newHandle.map { try badgeMemberships(of: $0, for: counted) }
        for i in scopes.indices {
            guard let count = scopeCounts[i] else { continue }
            scopeCounts[i] = count + (after?[i] == true ? 1 : 0) - (before?[i] == true ? 1 : 0)
        }
        publish(.edit, original: originalChanges, results: resultsChanges)
    }

    /// Per scope, whether a record counts towards its badge for the query the badges count.
    private func badgeMemberships(of handle: RecordHandle, for counted: Query?) throws -> [Bool] {
        try scopes.indices.map { i in
            guard let counted, scopeCounts[i] != nil else { return false }
            var query = counted
            query.scope = scopes[i].name
            return try index.matches(handle, query)
        }
    }

    /// Whether the results table shows a record, for what it holds now.
    private func showsInResults(_ handle: RecordHandle) throws -> Bool {
        switch content {
        case .empty: return false
        case .allRecords: return true
        case .matches(let query): return try index.matches(handle, query)
        }
    }

    /// The original table's order on records.
    private func originalOrder() -> (RecordHandle, RecordHandle) throws -> Bool {
        order(options.originalTable.order == .sorted ? .sorted : .original, query: nil)
    }

    /// The results table's order on records, for what it holds now.
    private func resultsOrder() -> (RecordHandle, RecordHandle) throws -> Bool {
        switch content {
        case .empty, .allRecords: return order(resultsLayout.order == .sorted ? .sorted : .original, query: nil)
        case .matches(let query): return order(query.order, query: query)
        }
    }

    /// A strict order on records: original or collation order, or, for `.ranked`, the ranking
    /// key of `query` (group, deciding field's length, tie-break) then original order (as
    /// `SearchIndex.search` orders results).
    private func order(_ order: ResultOrder, query: Query?) -> (RecordHandle, RecordHandle) throws -> Bool {
        let index = self.index
        switch order {
        case .original:
            return { a, b in try index.position(of: a) < index.position(of: b) }
        case .sorted:
            return { a, b in try index.sortedPosition(of: a) < index.sortedPosition(of: b) }
        case .ranked:
            guard let query else { return { a, b in try index.position(of: a) < index.position(of: b) } }
            let unranked = RankingKey(group: 0, length: 0, tieBreak: 0)
            return { a, b in
                let keyA = try index.rankingKey(of: a, for: query) ?? unranked
                let keyB = try index.rankingKey(of: b, for: query) ?? unranked
                if keyA != keyB { return keyA < keyB }
                return try index.position(of: a) < index.position(of: b)
            }
        }
    }

    private func row(at path: TableIndexPath, in table: TableKind) throws(SiftError) -> TableRow {
        let rows = tables[table]
        guard let row = rows.row(at: path) else {
            throw .positionOutOfRange(path.row, count: rowCount(ofSection: path.section, in: rows))
        }
        return row
    }

    private func rowCount(ofSection section: Int, in table: RecordTable) -> Int {
        table.numberOfRows(inSection: section)
    }
}
