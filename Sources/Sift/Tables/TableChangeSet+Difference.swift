extension TableChangeSet {
    /// The change set that turns `old` into `new`, matching rows by record handle: what a new
    /// query's results table animates against the previous one.
    ///
    /// Sections are matched by title; rows of a section present in both tables stay put when they
    /// keep their relative order, and the fewest rows possible are reported as moved (the rows
    /// off one longest increasing subsequence of old positions). Typing one more letter narrows
    /// the results, which gives deletes only; a backspace gives inserts only.
    ///
    /// - Complexity: O(*n* + *m*) in the sizes of the two tables, plus O(*k* log *k*) for the *k*
    ///   rows whose relative order is examined; each row lookup is O(1).
    public init(from old: RecordTable, to new: RecordTable) {
        self.init()
        guard old.layout.isSectioned == new.layout.isSectioned, old.layout.isSectioned || old.sections.count == 1,
            new.layout.isSectioned || new.sections.count == 1
        else {
            deletedSections = Array(old.sections.indices)
            insertedSections = Array(new.sections.indices)
            return
        }
        var isDeletedSection = [Bool](repeating: false, count: old.sections.count)
        for (s, section) in old.sections.enumerated() where new.section(ofKey: section.key) == nil {
            isDeletedSection[s] = true
            deletedSections.append(s)
        }
        var isInsertedSection = [Bool](repeating: false, count: new.sections.count)
        for (t, section) in new.sections.enumerated() where old.section(ofKey: section.key) == nil {
            isInsertedSection[t] = true
            insertedSections.append(t)
        }

        // Old rows that leave: gone from `new`, or gone to a section that is inserted.
        for (s, section) in old.sections.enumerated() where !isDeletedSection[s] {
            for (r, row) in section.rows.enumerated() {
                if let path = new.indexPath(of: row.handle), !isInsertedSection[path.section] { continue }
                deletedRows.append(TableIndexPath(section: s, row: r))
            }
        }

        // New rows: inserted, moved in from another section, or candidates to stay.
        for (t, section) in new.sections.enumerated() where !isInsertedSection[t] {
            let home = old.section(ofKey: section.key)!
            var candidates: [(newRow: Int, oldRow: Int)] = []
            for (r, row) in section.rows.enumerated() {
                let to = TableIndexPath(section: t, row: r)
                guard let from = old.indexPath(of: row.handle), !isDeletedSection[from.section] else {
                    insertedRows.append(to)
                    continue
                }
                if from.section == home {
                    candidates.append((r, from.row))
                } else {
                    addMove(from: from, to: to, changed: old[from] != row)
                }
            }
            var stays = [Bool](repeating: false, count: candidates.count)
            for i in longestIncreasingSubsequence(candidates.map(\.oldRow)) { stays[i] = true }
            for (i, candidate) in candidates.enumerated() {
                let from = TableIndexPath(section: home, row: candidate.oldRow)
                let to = TableIndexPath(section: t, row: candidate.newRow)
                let changed = old[from] != new[to]
                if stays[i] {
                    if changed { reloadedRows.append(from) }
                } else {
                    addMove(from: from, to: to, changed: changed)
                }
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
