internal import SiftStorage

/// Short queries from postings: a one-element exact pattern (a first letter, in most scripts)
/// is answered from its column's `ColumnPostings` in O(1) instead of a pass over the column, and
/// a longer pattern narrows its first element's candidates when they are few.
extension SearchIndex {
    /// The result of an exact one-element key from its column's postings (built first when the
    /// column is large enough to have them and has none), or nil when postings do not answer it:
    /// several elements, an element with a code of three bytes or more, a fuzzy or typo key, or
    /// identical strength (whose hits are also checked for canonical equality, see
    /// `evaluateVerifyingEachHit`).
    ///
    /// - Complexity: O(1) for postings up to date (see `ElementPostings.match`).
    func postingsMatch(_ key: MatchKey) -> FieldMatch? {
        guard key.strategy == .exact, key.identicalText == nil, let code = ColumnPostings.code(ofPattern: key.pattern)
        else { return nil }
        let column = folded.foldings[key.folding].columns[key.field]
        guard
            folded.postings.holds(folding: key.folding, field: key.field)
                || column.slotCount >= knobs.postingsMinimumRecords
        else { return nil }
        return folded.postings.match(
            code: code,
            anchor: key.anchor,
            folding: key.folding,
            field: key.field,
            column: column,
            capacity: slotCapacity,
            sparseLimit: sparseSlotLimit
        )
    }

    /// The postings of the first element of a longer exact key, as its narrowing base when they
    /// are held (see `postingsMatch`).
    ///
    /// - Complexity: as `postingsMatch`.
    func postingsOfFirstElement(_ key: MatchKey) -> FieldMatch? {
        guard key.strategy == .exact, key.identicalText == nil, key.pattern.count > 1,
            folded.postings.holds(folding: key.folding, field: key.field)
        else { return nil }
        var first = key
        first.pattern = Array(key.pattern.prefix(key.pattern[0] < 0x80 ? 1 : 2))
        return postingsMatch(first)
    }

    /// Notes, before an edit changes a slot's folded texts, the elements the slot holds in every
    /// column that keeps postings (see `ElementPostings.captureElements`).
    ///
    /// - Complexity: O(*s*) in the size of the slot's folded texts; O(1) without postings.
    func capturePostedElements(of slot: Int32) {
        guard !folded.postings.isEmpty else { return }
        for (number, folding) in folded.foldings.enumerated() {
            for field in folding.columns.indices {
                folded.postings.captureElements(of: slot, folding: number, field: field, column: folding.columns[field])
            }
        }
    }

    /// Builds, on all cores, the postings of every column that lacks them, when the index holds
    /// enough records for them (`TuningKnobs.postingsMinimumRecords`): after a bulk insert, a
    /// snapshot load or a renumbering, so that the first short keystroke need not.
    ///
    /// - Complexity: O(*n*) in the folded size of the columns built.
    func buildMissingPostings() {
        guard records.live.count >= max(1, knobs.postingsMinimumRecords) else { return }
        try? addDeferredWordStarts()  // postings read word starts; a failure leaves them to the first query
        guard folded.slotsAwaitingWordStarts.isEmpty else { return }
        var missing: [(folding: Int, field: Int)] = []
        for (number, folding) in folded.foldings.enumerated() {
            for field in folding.columns.indices
            where !folded.postings.holds(folding: number, field: field)
                && folding.columns[field].slotCount >= knobs.postingsMinimumRecords
            {
                missing.append((number, field))
            }
        }
        guard !missing.isEmpty else { return }
        let columns = missing.map { folded.foldings[$0.folding].columns[$0.field] }
        let built = ColumnPostings.build(
            columns,
            capacity: slotCapacity,
            version: folded.postings.version,
            workers: knobs.scanWorkers
        )
        for (task, postings) in built.enumerated() {
            folded.postings.store(postings, folding: missing[task].folding, field: missing[task].field)
        }
    }
}
