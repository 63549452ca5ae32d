internal import CSiftKernels
internal import SiftStorage

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
            ids: records.ids.withoutRebuild,
            titles: orders.sortFieldPosition < records.values.count
                ? records.values[orders.sortFieldPosition].withoutRebuild : TextColumn(),
            sections: withSections ? orders.sectionOfSlot : []
        )
    }

    /// The row a table shows for a record: its id, the value of the sort field and its
    /// AlphabeticIndex bucket.
    ///
    /// - Complexity: O(1).
    package func tableRow(for handle: RecordHandle) throws(SiftError) -> TableRow {
        let sortField = configuration.sortField ?? configuration.searchFields[0]
        return TableRow(
            id: try id(of: handle),
            title: try value(of: sortField, for: handle),
            handle: handle,
            bucket: Int32(try section(of: handle))
        )
    }

    /// The group a matching record falls in when `query` orders its results `.ranked` (lower
    /// first; see `ResultOrder.ranked` and `RankingRule`): its typos, the best way the query
    /// matches a searched field (0 whole field, 1 field start, 2 word start, 3 inside a word, 4
    /// none of the ranking alternatives) and the first field that matches so, combined in the
    /// order of the bucket rules (`RankingPlan.groupKey`); nil when the query does not rank
    /// (empty or too-short text, text of ignorable characters only), so that results keep their
    /// original order. In `.fuzzy` mode the group orders as the score does, best first, then the
    /// field reaching it (earlier first): (`SIFT_FUZZY_SCORE_LIMIT` − score) × the number of
    /// fields + the field's position.
    ///
    /// This is the grouping `search(_:isCancelled:)` applies to `.ranked` results, for one record:
    /// with it (and `position(of:)` within a group) an edited record finds its place among ranked
    /// results without ranking them all again.
    ///
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    func rankingGroup(of handle: RecordHandle, for query: Query) throws -> Int? {
        try rankingBuckets(of: handle, for: query)?.group
    }

    /// `rankingGroup(of:for:)` with the record's bucket values (typos, way, field position; nil
    /// in `.fuzzy` mode).
    ///
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    func rankingBuckets(
        of handle: RecordHandle,
        for query: Query
    ) throws -> (group: Int, values: (typos: Int, way: Int, field: Int)?)? {
        let slot = try resolve(handle)
        let plan = try scopePlan(of: query)
        let length = query.text.count
        guard length > 0, length >= plan.scope.minimumLength else { return nil }
        let folded = try foldQuery(query, folding: plan.folding)
        if query.mode == .fuzzy {
            guard case .patterns(let patterns) = folded, let first = patterns.first,
                let best = fuzzyScore(slot: slot, plan: plan, pattern: first)
            else { return nil }
            return ((Int(SIFT_FUZZY_SCORE_LIMIT) - best.score) * plan.fields.count + best.field, nil)
        }
        guard !folded.rankingAlternatives(mode: query.mode).isEmpty,
            let values = rankingValues(slot: slot, plan: plan, query: query, folded: folded)
        else { return nil }
        return (orders.rankingPlan.groupKey(typos: values.typos, way: values.way, field: values.field), values)
    }
}
