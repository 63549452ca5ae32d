extension RecordTable {
    /// Replaces the row numbered `oldNumber` (if any) by a row for `newHandle` (if any), at the
    /// place `precedes` orders it, takes `source` as the table's snapshot, and says how the table
    /// changed, in table-view terms.
    ///
    /// This is the one edit primitive behind inserts, deletes, updates and moves: the old row is
    /// taken out, the new one (same record, maybe a new handle and title) goes in at its place in
    /// its section. The change set is a delete, an insert, a move, a reload or nothing; a row
    /// leaving an emptied section or entering a new one is a section delete or insert, and a row
    /// that both moves and changes is a delete plus an insert (UIKit cannot move and reload the same
    /// row in one batch).
    ///
    /// - Parameters:
    ///   - oldNumber: the record's row before the edit (see `locate(_:precedes:)`), or nil.
    ///   - newHandle: the record's handle after the edit, or nil when the table no longer shows it.
    ///   - source: the index's rows after the edit.
    ///   - precedes: the table's strict order on the records it shows, as of after the edit.
    ///   - rowsAfter: the table's rows as they are after the edit, when the caller has them (an
    ///     original table reads the index's order in place: it takes the order after the edit
    ///     instead of editing a copy of it).
    /// - Precondition: the table's rows come from a snapshot of the same index; `rowsAfter`, when
    ///   given, are exactly the rows this edit leaves.
    /// - Complexity: O(log *r*) calls of `precedes` in a section of *r* rows, plus O(*m*) to move
    ///   the handles after the changed rows (a memory move), or O(log *r* log *b*) reads of
    ///   `rowsAfter` in *b* blocks instead.
    mutating func replaceRow(
        number oldNumber: Int?,
        with newHandle: RecordHandle?,
        source: TableRowSource,
        rowsAfter: ResultRows? = nil,
        precedes: (RecordHandle, RecordHandle) throws -> Bool
    ) rethrows -> TableChangeSet {
        precondition(isSnapshot, "only tables made from an index are edited")
        let oldRow = oldNumber.map { row(number: $0) }
        var oldPath: TableIndexPath? = nil
        var removedSection = false
        if let oldNumber {
            (oldPath, removedSection) = removeRow(number: oldNumber, keepingRecords: rowsAfter != nil)
        }
        if let rowsAfter { records = rowsAfter }
        var newPath: TableIndexPath? = nil
        var insertedSection = false
        if let newHandle {
            (newPath, insertedSection) = try insert(
                newHandle,
                source: source,
                recordsHoldIt: rowsAfter != nil,
                precedes: precedes
            )
        } else {
            replaceSource(source)
        }
        precondition(
            numberOfSections == 0 ? rowCount == 0 : rowCount == rowNumbers(inSection: numberOfSections - 1).upperBound,
            "rowsAfter are the rows the edit leaves"
        )
        let newRow = newHandle.map { source.row(for: $0) }

        var changes = TableChangeSet()
        if let oldPath, removedSection { changes.deletedSections = [oldPath.section] }
        if let newPath, insertedSection { changes.insertedSections = [newPath.section] }
        switch (oldPath, newPath) {
        case (nil, nil):
            break
        case (let old?, nil):
            if !removedSection { changes.deletedRows = [old] }
        case (nil, let new?):
            if !insertedSection { changes.insertedRows = [new] }
        case (let old?, let new?):
            if removedSection || insertedSection {
                if !removedSection { changes.deletedRows = [old] }
                if !insertedSection { changes.insertedRows = [new] }
            } else if old == new {
                if oldRow != newRow { changes.reloadedRows = [old] }
            } else if oldRow == newRow {
                changes.movedRows = [TableChangeSet.Move(from: old, to: new)]
            } else {
                changes.deletedRows = [old]
                changes.insertedRows = [new]
            }
        }
        return changes
    }
}
