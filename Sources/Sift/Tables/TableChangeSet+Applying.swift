extension TableChangeSet {
    /// Why a change set cannot be applied to a table: what a table view would raise
    /// `NSInternalInconsistencyException` for.
    public struct InconsistencyError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is inconsistent.
        public var description: String
    }

    /// Replays the change set on `old` the way a table view performs a batch update, and returns
    /// the table it ends up showing.
    ///
    /// As in a table view, the rows of `old` that are not deleted or moved keep their relative
    /// order; moved rows take their content from `old`; inserted sections, inserted rows and
    /// reloaded rows take theirs from `dataSource`, the table the app's data source now describes.
    /// The number of sections and of rows per section must come out as `dataSource` has them.
    /// When the change set is right, the result equals `dataSource`; when it misses a change, it
    /// does not (a missed reload keeps the old row, a missed move leaves a row in place).
    ///
    /// - Throws: `InconsistencyError` when a path is out of range, listed twice, in a deleted or
    ///   inserted section where it may not be, or when the counts do not add up.
    /// - Complexity: O(*n* + *m*) in the sizes of the two tables (every row is made), plus
    ///   O(*c* log *c*) for *c* changes. A change set that `requiresReload` gives `dataSource`.
    public func apply(to old: RecordTable, dataSource new: RecordTable) throws(InconsistencyError) -> RecordTable {
        func fail(_ message: String) -> InconsistencyError { InconsistencyError(description: message) }
        if requiresReload { return new }
        let oldCount = old.numberOfSections
        let deletedSections = Set(deletedSections)
        let insertedSections = Set(insertedSections)
        guard deletedSections.count == self.deletedSections.count,
            deletedSections.allSatisfy({ (0..<oldCount).contains($0) })
        else { throw fail("deleted sections \(self.deletedSections) are not distinct sections of \(oldCount)") }
        let newCount = oldCount - deletedSections.count + insertedSections.count
        guard newCount == new.numberOfSections else {
            throw fail(
                "\(oldCount) sections - \(deletedSections.count) + \(insertedSections.count) != \(new.numberOfSections)"
            )
        }
        guard insertedSections.count == self.insertedSections.count,
            insertedSections.allSatisfy({ (0..<newCount).contains($0) })
        else { throw fail("inserted sections \(self.insertedSections) are not distinct sections of \(newCount)") }

        // What happens to each old row, and what fills each new path explicitly.
        func isOldRow(_ path: TableIndexPath) -> Bool {
            old.rowNumber(of: path) != nil && !deletedSections.contains(path.section)
        }
        func isNewPath(_ path: TableIndexPath) -> Bool {
            (0..<newCount).contains(path.section) && !insertedSections.contains(path.section) && path.row >= 0
        }
        var leaving = Set<TableIndexPath>()
        for path in deletedRows {
            guard isOldRow(path), leaving.insert(path).inserted else { throw fail("cannot delete row \(path)") }
        }
        var arriving: [TableIndexPath: TableRow] = [:]
        for path in insertedRows {
            guard isNewPath(path), let row = new.row(at: path), arriving.updateValue(row, forKey: path) == nil else {
                throw fail("cannot insert row \(path)")
            }
        }
        for move in movedRows {
            guard isOldRow(move.from), leaving.insert(move.from).inserted else {
                throw fail("cannot move from \(move.from)")
            }
            guard isNewPath(move.to), arriving.updateValue(old[move.from], forKey: move.to) == nil else {
                throw fail("cannot move to \(move.to)")
            }
        }
        var reloaded = Set<TableIndexPath>()
        for path in reloadedRows {
            guard isOldRow(path), !leaving.contains(path), reloaded.insert(path).inserted else {
                throw fail("cannot reload row \(path)")
            }
        }

        // Surviving old sections fill the new section indices that are not inserted, in order.
        var arrivalsBySection: [Int: [Int: TableRow]] = [:]
        for (path, row) in arriving { arrivalsBySection[path.section, default: [:]][path.row] = row }
        var sections: [(key: Int32, rows: [TableRow])] = []
        var oldSection = 0
        for section in 0..<newCount {
            if insertedSections.contains(section) {
                sections.append(
                    (new.key(ofSection: section), new.rowNumbers(inSection: section).map { new.row(number: $0) })
                )
                continue
            }
            while deletedSections.contains(oldSection) { oldSection += 1 }
            var survivors: [(row: TableRow, reload: Bool)] = []
            for r in 0..<old.numberOfRows(inSection: oldSection) {
                let path = TableIndexPath(section: oldSection, row: r)
                if !leaving.contains(path) { survivors.append((old[path], reloaded.contains(path))) }
            }
            let arrivals = arrivalsBySection[section] ?? [:]
            let count = survivors.count + arrivals.count
            guard count == new.numberOfRows(inSection: section) else {
                throw fail(
                    "section \(section): \(count) rows after the update, the data source has \(new.numberOfRows(inSection: section))"
                )
            }
            var rows: [TableRow] = []
            rows.reserveCapacity(count)
            var next = survivors.makeIterator()
            for r in 0..<count {
                let path = TableIndexPath(section: section, row: r)
                if let row = arrivals[r] {
                    rows.append(row)
                } else if let survivor = next.next() {
                    rows.append(survivor.reload ? new[path] : survivor.row)
                } else {
                    throw fail("an inserted or moved row lies beyond the end of section \(section)")
                }
            }
            sections.append((old.key(ofSection: oldSection), rows))
            oldSection += 1
        }
        return RecordTable(sections: sections, layout: new.layout, sectionIndexTitles: new.sectionIndexTitles)
    }
}
