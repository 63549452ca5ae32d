internal import CSiftKernels

extension SearchIndex {
    /// What tables need to show rows, as of now: a snapshot that later edits do not change.
    ///
    /// The columns are copy-on-write arrays, so the snapshot costs a few retains; an edit made
    /// while a snapshot is alive copies the arrays it writes to (once per snapshot). A column's
    /// rebuild in progress stays out of the snapshot, so that it never has to be copied.
    ///
    /// - Parameter withSections: whether rows carry their AlphabeticIndex section (sectioned
    ///   tables need it); without it the index is not sorted for it.
    /// - Complexity: O(1) once the sorted order is built; the first call with sections sorts the
    ///   index.
    func tableRowSource(withSections: Bool) -> TableRowSource {
        if withSections { _ = sorted }
        return TableRowSource(
            ids: ids.withoutRebuild,
            titles: sortFieldPosition < values.count ? values[sortFieldPosition].withoutRebuild : TextColumn(),
            sections: withSections ? sectionOfSlot : []
        )
    }

    /// The row a table shows for a record: its id, the value of the sort field and its
    /// AlphabeticIndex bucket.
    ///
    /// - Complexity: O(1).
    func tableRow(for handle: RecordHandle) throws(SiftError) -> TableRow {
        let sortField = configuration.sortField ?? configuration.searchFields[0]
        return TableRow(
            id: try id(of: handle),
            title: try value(of: sortField, for: handle),
            handle: handle,
            bucket: Int32(try section(of: handle))
        )
    }

    /// The group a matching record falls in when `query` orders its results `.ranked` (lower
    /// first; see `ResultOrder.ranked`): the best way the query matches in any searched field
    /// (whole field, field start, word start, inside a word) times the number of searched fields,
    /// plus the first field that matches so; nil when the query does not rank (`.prefix` mode, empty or too-short text, text of
    /// ignorable characters only), so that results keep their original order.
    /// In `.fuzzy` mode the group orders as the score does, best first, then the field reaching
    /// it (earlier first): (`SIFT_FUZZY_SCORE_LIMIT` − score) × the number of fields + the
    /// field's position. With typo tolerance (`Query.typos`) applying to the query, exact matches
    /// keep these groups (in `.prefix` mode all are group 0) and a match with *t* typos is in
    /// group 5 × the number of fields + *t* (`.prefix` mode: *t*).
    ///
    /// This is the grouping `search(_:isCancelled:)` applies to `.ranked` results, for one record:
    /// with it (and `position(of:)` within a group) an edited record finds its place among ranked
    /// results without ranking them all again.
    ///
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    func rankingGroup(of handle: RecordHandle, for query: Query) throws -> Int? {
        let slot = try resolve(handle)
        let plan = try scopePlan(of: query)
        let length = query.text.count
        guard length > 0, length >= plan.scope.minimumLength else { return nil }
        let folded = try foldQuery(query, folding: plan.folding)
        if let patterns = Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) {
            guard
                let typos = typoCount(
                    slot: slot,
                    plan: plan,
                    patterns: patterns,
                    mode: query.mode,
                    tolerance: query.typos
                )
            else { return nil }
            // After every exact group (ways 0 to 4 times the fields, in `.words` mode), by typos.
            if typos > 0 { return (query.mode == .words ? 5 * plan.fields.count : 0) + typos }
            if query.mode == .prefix { return 0 }
            return rankingGroup(
                slot: slot,
                plan: plan,
                firstPattern: patterns[0],
                isOnlyPattern: patterns.count == 1,
                mode: query.mode
            )
        }
        guard query.mode != .prefix else { return nil }
        // An expression's matches that need typos come after every exact group, by typos.
        if case .expression(let expression) = folded, expression.hasTypoPatterns(query.typos),
            !expressionMatches(plan, expression, slot: slot)
        {
            guard let typos = expressionTypoCount(plan, expression, slot: slot, tolerance: query.typos) else {
                return nil
            }
            return 5 * plan.fields.count + max(1, typos)
        }
        if query.mode == .fuzzy {
            guard case .patterns(let patterns) = folded, let first = patterns.first,
                let best = fuzzyScore(slot: slot, plan: plan, pattern: first)
            else { return nil }
            return (Int(SIFT_FUZZY_SCORE_LIMIT) - best.score) * plan.fields.count + best.field
        }
        guard let ranking = folded.rankingPattern(mode: query.mode) else { return nil }
        return rankingGroup(
            slot: slot,
            plan: plan,
            firstPattern: ranking.pattern,
            isOnlyPattern: folded.isOnePattern,
            mode: ranking.mode
        )
    }
}
