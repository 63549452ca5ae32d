extension TableChangeSet {
    /// The change set that turns `old` into `new`, matching rows by record handle: what a new
    /// query's results table animates against the previous one.
    ///
    /// - Complexity: see `init(from:to:limit:)`.
    public init(from old: RecordTable, to new: RecordTable) {
        self.init(from: old, to: new, limit: nil)
    }

    /// The change set that turns `old` into `new`, matching rows by record handle, or a reload
    /// when more than `limit` rows change.
    ///
    /// Sections are matched by title. Between two tables in the same original or collation order
    /// (the results of two queries, say) the rows that stay keep their relative order, so the
    /// change is a set difference: rows of `old` missing from `new` are deleted, rows of `new`
    /// missing from `old` inserted. Only where the order itself may change (ranked results, or
    /// tables that were not made from an index) are rows that stay compared by position, and the
    /// fewest possible reported as moved (the rows off one longest increasing subsequence of old
    /// positions). Typing one more letter narrows the results, which gives deletes only; a
    /// backspace gives inserts only.
    ///
    /// - Parameters:
    ///   - old: the table as it was (a table view's current rows).
    ///   - new: the table as it is now.
    ///   - limit: the most rows to list (deleted, inserted and moved); past it the change set only
    ///     says `requiresReload`. Nil lists every change.
    /// - Complexity: O(*n* + *m*) in the sizes of the two tables, with O(1) lookups per row (each
    ///   table maps its rows once, on first use); O(1) when the row counts alone differ by more
    ///   than `limit`; plus O(*k* log *k*) for the *k* rows whose relative order is examined
    ///   (ranked tables).
    public init(from old: RecordTable, to new: RecordTable, limit: Int?) {
        self.init(from: old, to: new, limit: limit, rowsKeepTheirOrder: true)
    }

    /// `init(from:to:limit:)`, told whether rows of two tables made from an index in the same
    /// original or collation order keep their relative order.
    ///
    /// They do between two tables made at the same state of the index's order, and across any
    /// edits but moves (an updated record takes a new handle). With `rowsKeepTheirOrder` false
    /// (a record moved in the original order in between) the rows that stay are compared by
    /// position, as in ranked tables.
    ///
    /// - Complexity: as `init(from:to:limit:)`; with `rowsKeepTheirOrder` false, plus O(*k*) for
    ///   the *k* rows that stay when they kept their order, O(*k* log *k*) otherwise.
    init(from old: RecordTable, to new: RecordTable, limit: Int?, rowsKeepTheirOrder: Bool) {
        self.init()
        guard old.layout.isSectioned == new.layout.isSectioned,
            old.layout.isSectioned || old.numberOfSections == 1,
            new.layout.isSectioned || new.numberOfSections == 1
        else {
            deletedSections = Array(0..<old.numberOfSections)
            insertedSections = Array(0..<new.numberOfSections)
            return
        }
        let limit = limit ?? Int.max
        if abs(old.rowCount - new.rowCount) > limit {
            self = .reload
            return
        }
        var isDeletedSection = [Bool](repeating: false, count: old.numberOfSections)
        for s in 0..<old.numberOfSections where new.section(ofKey: old.key(ofSection: s)) == nil {
            isDeletedSection[s] = true
            deletedSections.append(s)
        }
        var isInsertedSection = [Bool](repeating: false, count: new.numberOfSections)
        for t in 0..<new.numberOfSections where old.section(ofKey: new.key(ofSection: t)) == nil {
            isInsertedSection[t] = true
            insertedSections.append(t)
        }
        // Rows with equal handles are equal, and sit in sections of the same key, when both tables
        // come from one index; in the same non-ranked order they also keep their relative order.
        let fromIndex = old.isSnapshot && new.isSnapshot
        let sameOrder =
            fromIndex && rowsKeepTheirOrder && old.layout.order == new.layout.order && old.layout.order != .ranked
        let inNew = new.rowNumberLookup()
        let inOld = old.rowNumberLookup()
        // Read once: `handles` may take a lock (rows kept as bitsets) and retains the list.
        let (oldHandles, newHandles) = (inOld.handles, inNew.handles)
        var listed = 0

        // Old rows that leave: gone from `new`, or gone to a section that is inserted.
        for s in 0..<old.numberOfSections where !isDeletedSection[s] {
            let first = old.rowNumbers(inSection: s).lowerBound
            for number in old.rowNumbers(inSection: s) {
                if let to = inNew.rowNumber(of: oldHandles[number]) {
                    if fromIndex || !isInsertedSection[new.indexPath(forRowNumber: to)!.section] { continue }
                }
                deletedRows.append(TableIndexPath(section: s, row: number - first))
                listed += 1
                if listed > limit {
                    self = .reload
                    return
                }
            }
        }

        // New rows: inserted, moved in from another section, or candidates to stay.
        for t in 0..<new.numberOfSections where !isInsertedSection[t] {
            let home = old.section(ofKey: new.key(ofSection: t))!
            let first = new.rowNumbers(inSection: t).lowerBound
            var candidates: [(newRow: Int, oldRow: Int)] = []
            for number in new.rowNumbers(inSection: t) {
                let to = TableIndexPath(section: t, row: number - first)
                guard let fromNumber = inOld.rowNumber(of: newHandles[number]) else {
                    insertedRows.append(to)
                    listed += 1
                    if listed > limit {
                        self = .reload
                        return
                    }
                    continue
                }
                if sameOrder { continue }
                let from = old.indexPath(forRowNumber: fromNumber)!
                if isDeletedSection[from.section] {
                    insertedRows.append(to)
                    listed += 1
                } else if from.section == home {
                    candidates.append((to.row, from.row))
                } else {
                    addMove(from: from, to: to, changed: !fromIndex && old[from] != new[to])
                    listed += 1
                }
            }
            guard !candidates.isEmpty else { continue }
            var stays = [Bool](repeating: false, count: candidates.count)
            for i in longestIncreasingSubsequence(candidates.map(\.oldRow)) { stays[i] = true }
            for (i, candidate) in candidates.enumerated() {
                let from = TableIndexPath(section: home, row: candidate.oldRow)
                let to = TableIndexPath(section: t, row: candidate.newRow)
                let changed = !fromIndex && old[from] != new[to]
                if stays[i] {
                    if changed { reloadedRows.append(from) }
                } else {
                    addMove(from: from, to: to, changed: changed)
                    listed += 1
                }
            }
            if listed > limit {
                self = .reload
                return
            }
        }
        deletedRows.sort()
        insertedRows.sort()
        reloadedRows.sort()
        movedRows.sort { $0.to < $1.to }
    }

    /// A row that changes place: a move, or a delete and an insert when its content changed too.
    private mutating func addMove(from: TableIndexPath, to: TableIndexPath, changed: Bool) {
        if changed {
            deletedRows.append(from)
            insertedRows.append(to)
        } else {
            movedRows.append(Move(from: from, to: to))
        }
    }
}

/// Positions (into `values`) of one longest strictly increasing subsequence of `values`.
///
/// - Complexity: O(*k*) when `values` is already increasing (typing narrows results without
///   reordering them), else O(*k* log *k*).
func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
    if zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) { return Array(values.indices) }
    // tails[l]: position of the smallest last value of an increasing subsequence of length l + 1.
    var tails: [Int] = []
    var previous = [Int](repeating: -1, count: values.count)
    for (i, value) in values.enumerated() {
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { previous[i] = tails[low - 1] }
        if low == tails.count { tails.append(i) } else { tails[low] = i }
    }
    var result: [Int] = []
    var i = tails.last ?? -1
    while i >= 0 {
        result.append(i)
        i = previous[i]
    }
    return result.reversed()
}
