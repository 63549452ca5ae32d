internal import SiftStorage

extension SearchIndex {
    /// A column that a rebuild runs in (see `advanceCompaction()`).
    enum RebuildingColumn: Equatable {
        /// `foldings[folding].columns[field]`.
        case folded(folding: Int, field: Int)
        /// `values[position]`.
        case values(Int)
        case ids
    }

    /// Compaction in the background of edits: every insert, update and remove calls this once,
    /// and it copies a bounded piece (`rebuildStepBytes` of a folded column, four times as many
    /// of a text column) of one column into that column's
    /// rebuild, or starts the rebuild of a column whose dead bytes have passed an eighth of it.
    ///
    /// One column rebuilds at a time, so that at most one column's copy exists. A rebuild copies
    /// the column in slot order while queries keep reading the column; edits of slots already
    /// copied are copied again at its end (folded columns) or written to both (text columns);
    /// then the copy takes the column's place, without dead bytes and with every record's
    /// segment at its slot's number again. A column is copied once per eighth of it that died,
    /// eight bytes copied per dead byte: the dead bytes an edit leaves are copied away by a few
    /// steps, so rebuilds keep up with any sequence of edits.
    ///
    /// - Complexity: O(`rebuildStepBytes`) amortized, plus O(*c*) to look for a column to
    ///   rebuild among *c* columns when none rebuilds.
    func advanceCompaction() {
        if folded.rebuilding == nil {
            folded.rebuilding = columnWantingRebuild()
            switch folded.rebuilding {
            case .folded(let folding, let field): folded.foldings[folding].columns[field].startRebuild()
            case .values(let position): records.values[position].startRebuild()
            case .ids: records.ids.startRebuild()
            case nil: return
            }
        }
        let finished: Bool
        switch folded.rebuilding {
        case .folded(let folding, let field):
            finished = folded.foldings[folding].columns[field].continueRebuild(budget: knobs.rebuildStepBytes)
        // Text is copied a group at a time (one copy of up to eight values), four times cheaper a
        // byte than folded segments, and edits leave four times more of it dead (a value that
        // outgrows its group's slack moves the whole group).
        case .values(let position):
            finished = records.values[position].continueRebuild(budget: 4 * knobs.rebuildStepBytes)
        case .ids: finished = records.ids.continueRebuild(budget: 4 * knobs.rebuildStepBytes)
        case nil: finished = true
        }
        if finished {
            folded.rebuilding = nil
            folded.rebuildsFinished += 1
        }
    }

    /// Finishes every rebuild in progress and compacts every column with dead bytes at once.
    ///
    /// - Complexity: O(*n*) in the size of the columns.
    func compactNow() {
        defer { checkAfterMutation() }
        while folded.rebuilding != nil { advanceCompaction() }
        for folding in folded.foldings { folding.columns.forEachStored { $0.rebuildNow() } }
        records.values.forEachStored { $0.rebuildNow() }
        records.ids.rebuildNow()
    }

    /// The first column whose dead bytes call for a rebuild.
    private func columnWantingRebuild() -> RebuildingColumn? {
        for (number, folding) in folded.foldings.enumerated() {
            if let field = folding.columns.firstIndexWantingRebuild {
                return .folded(folding: number, field: field)
            }
        }
        if records.ids.wantsRebuild { return .ids }
        return records.values.firstIndexWantingRebuild.map { .values($0) }
    }
}
