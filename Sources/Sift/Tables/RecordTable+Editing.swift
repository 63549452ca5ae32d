extension RecordTable {
    /// Replaces the row of one record (if the table shows it) by a new row (if the table should
    /// show it), at the place `precedes` orders it, and says how, in table-view terms.
    ///
    /// This is the one edit primitive behind inserts, deletes, updates and moves: the old row is
    /// taken out, the new one (same record, maybe a new handle and title) goes in at its place in
    /// its section. The change set is a delete, an insert, a move, a reload or nothing; a row
    /// leaving an emptied section or entering a new one is a section delete or insert, and a row
    /// that both moves and changes is a delete plus an insert (UIKit cannot move and reload the same
    /// row in one batch).
    ///
    /// - Parameters:
    ///   - oldHandle: the record's handle before the edit, or nil for a new record.
    ///   - newRow: the record's row after the edit, or nil when the table no longer shows it.
    ///   - precedes: the table's strict order on the records it shows, as of after the edit.
    /// - Complexity: O(*s*) in the size of the affected sections, plus O(log *s*) calls of `precedes`.
    mutating func replaceRow(
        of oldHandle: RecordHandle?, with newRow: TableRow?, precedes: (RecordHandle, RecordHandle) throws -> Bool
    ) rethrows -> TableChangeSet {
        var oldPath: TableIndexPath? = nil
        var oldRow: TableRow? = nil
        var removedSection = false
        if let oldHandle, let path = indexPath(of: oldHandle) {
            oldPath = path
            (oldRow, removedSection) = removeRow(at: path)
        }
        var newPath: TableIndexPath? = nil
        var insertedSection = false
        if let newRow {
            let index = try insertionIndex(of: newRow, precedes: precedes)
            (newPath, insertedSection) = insert(newRow, atRow: index)
        }

        var changes = TableChangeSet()
        if let oldPath {
            if removedSection { changes.deletedSections = [oldPath.section] }
        }
        if let newPath {
            if insertedSection { changes.insertedSections = [newPath.section] }
        }
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

    /// The row index `row` takes in its section: after every row that precedes it.
    ///
    /// - Complexity: O(log *s*) calls of `precedes` for a section of *s* rows.
    func insertionIndex(of row: TableRow, precedes: (RecordHandle, RecordHandle) throws -> Bool) rethrows -> Int {
        guard let section = section(ofKey: key(of: row)) else { return 0 }
        let rows = sections[section].rows
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if try precedes(rows[middle].handle, row.handle) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
