internal import CSiftKernels
internal import SiftStorage

/// The fields a scope searches under one folding: scopes with equal field sets match the same records
/// (before their category filters).
struct FieldSet: Hashable {
    var folding: Int
    var fields: [Int]
}

/// A query folded under one collation.
enum FoldedQuery {
    /// No collation elements at all (empty, or only ignorable characters): every record matches.
    case everything
    /// Some element never occurs in the index: nothing can match.
    case nothing
    /// One pattern (contains, prefix) or one per query word (words), with its text.
    case patterns([(bytes: [UInt8], text: String)])
    /// A words query with operators (see `QueryExpression`).
    case expression(FoldedExpression)
}

extension SearchIndex {
    /// Answers a query: the matching records in result order, and a match count for every scope.
    ///
    /// The query's text is folded with the scope's collator; each searched field is then scanned
    /// for the folded pattern. When a cached pattern is a prefix of this one (the user typed one
    /// more character), only its candidates are scanned; an identical cached pattern (backspace)
    /// answers at once. Reuse happens only where it is provably exact under the collator: the
    /// cached pattern's collation elements must be a prefix of the new pattern's, so Danish `a` →
    /// `aa` (one element `å`) or Czech `c` → `ch` rescan the whole field. A `.words` query read
    /// with operators (`Query.syntax`, see `QueryExpression`) scans, narrows and caches each of
    /// its terms' patterns the same way, then combines their records.
    ///
    /// - Parameters:
    ///   - query: text, scope, mode and order.
    ///   - isCancelled: polled during long scans; when it returns true the search throws
    ///     `CancellationError`.
    /// A query past the index's `queryLimits` (its length, distinct terms, or words that tolerate
    /// typos) is refused with `SiftError.queryTooLarge` before any scan. `isCancelled` is polled
    /// during scans, between the terms of an expression, the words of a query and their typo
    /// levels, and while folding a long query.
    ///
    /// - Throws: `SiftError.unknownScope`, `SiftError.queryTooLarge`, an ICU failure, or
    ///   `CancellationError`.
    /// - Complexity: O(*n*) in the folded size of the searched fields for a full scan; O(*k*) in
    ///   the size of the *k* candidate records when narrowing; O(1) per field on a cache hit; plus
    ///   O(*m* log *m*) to order *m* results; for `.ranked`, the first pattern's scans anchored at
    ///   a field start and a word start (served, narrowed or scanned like any pattern's; where the
    ///   query's own scan of a field is a full scan, one sweep finds all three anchors); plus,
    ///   after single-record edits of Thai, Chinese, Japanese and other dictionary-segmented text,
    ///   the word starts they left out (at most 64 records'). In `.fuzzy` mode a full scan reads
    ///   every segment of the fields, a narrowed one every candidate's (a fuzzy key always narrows
    ///   from a cached fuzzy result it extends); `.ranked` adds a scoring pass over the results'
    ///   fields, O(*s*) per result, and a counting sort, O(*m* + *k*) for *k* distinct scores.
    ///   With typo tolerance (`Query.typos`), a query word long enough for an edit adds a typo scan
    ///   per field (`TypoTolerance`: a full sweep reads every field's bytes and computes a bounded
    ///   edit distance at the word starts that pass an exact filter; a narrowed one reads the
    ///   candidates of the shorter word's typo result with the same budget), and `.ranked` adds
    ///   the scans of the smaller budgets and O(*n* / 64) bitset work per word and typo count.
    public func search(_ query: Query, isCancelled: () -> Bool = { false }) throws -> SearchResult {
        try withoutActuallyEscaping(isCancelled) { isCancelled in
            var run = QueryRun(query: query, isCancelled: isCancelled)
            return try search(&run)
        }
    }

    /// `search(_:isCancelled:)` for one run.
    private func search(_ run: inout QueryRun) throws -> SearchResult {
        let query = run.query
        try checkLength(query)
        try addDeferredWordStarts()
        guard let selected = folded.scopePlans.firstIndex(where: { $0.scope.name == query.scope }) else {
            throw SiftError.unknownScope(query.scope)
        }
        let length = query.text.count
        var foldedQueries: [Int: FoldedQuery] = [:]
        // Scopes that search the same fields (say, one per category) share one union of field results.
        var fieldSetMatches: [FieldSet: Bitset] = [:]
        var counts: [SearchResult.ScopeCount] = []
        var selectedBits: Bitset? = nil
        var selectedCount = 0
        var selectedState = SearchResult.State.all
        let selectedPlan = folded.scopePlans[selected]
        caches.scoresFuzzyMatches = query.order == .ranked && query.mode == .fuzzy
        defer { caches.scoresFuzzyMatches = false }
        if query.order == .ranked, query.mode == .contains || query.mode == .words, length > 0,
            length >= selectedPlan.scope.minimumLength
        {
            let folded = try foldQuery(query, folding: selectedPlan.folding, run.isCancelled)
            foldedQueries[selectedPlan.folding] = folded
            if let ranking = folded.rankingPattern(mode: query.mode) {
                try sweepRankingAnchors(
                    selectedPlan,
                    firstPattern: ranking.pattern,
                    mode: ranking.mode,
                    &run
                )
            }
        }
        for (index, plan) in folded.scopePlans.enumerated() {
            let state: SearchResult.State =
                length == 0
                ? .all : length < plan.scope.minimumLength ? .tooShort(needed: plan.scope.minimumLength) : .matches
            var bits: Bitset? = nil
            var count = 0
            switch state {
            case .all:
                bits = filterMembers(plan)
                count = bits!.count
            case .tooShort:
                bits = nil
            case .matches:
                let folded =
                    try foldedQueries[plan.folding]
                    ?? foldQuery(query, folding: plan.folding, run.isCancelled)
                foldedQueries[plan.folding] = folded
                let fieldSet = FieldSet(folding: plan.folding, fields: plan.fields)
                let matches =
                    try fieldSetMatches[fieldSet]
                    ?? scopeMatches(plan, folded, mode: query.mode, typos: query.typos, &run)
                fieldSetMatches[fieldSet] = matches
                (bits, count) = Bitset.combining(matches, and: filterMembers(plan))
            }
            counts.append(.init(scope: plan.scope.name, count: bits == nil ? nil : count))
            if index == selected {
                selectedBits = bits
                selectedCount = count
                selectedState = state
            }
        }
        var rows = ResultRows()
        if let bits = selectedBits {
            let plan = folded.scopePlans[selected]
            if query.order == .ranked, selectedState == .matches, query.mode == .fuzzy,
                case .patterns(let patterns)? = foldedQueries[plan.folding]
            {
                rows = try cachedFuzzyRankedRows(bits, plan: plan, pattern: patterns[0], &run)
            } else if query.order != .original, selectedState == .matches, let kept = cachedOrderedRows(.query(query)) {
                // The same query, answered since the last edit: a backspace or a query typed again.
                rows = kept
            } else if query.order == .ranked, selectedState == .matches, let folded = foldedQueries[plan.folding],
                !folded.rankingAlternatives(mode: query.mode).isEmpty
            {
                rows = try cachedRankedRows(
                    (bits, selectedCount),
                    plan: plan,
                    query: query,
                    folded: folded,
                    &run
                )
            } else {
                rows = try resultRows(
                    [(bits, selectedCount)],
                    order: query.order == .ranked ? .original : query.order,
                    isCancelled: run.isCancelled
                )
                if query.order == .sorted, selectedState == .matches { keepOrderedRows(rows, for: .query(query)) }
            }
        }
        return SearchResult(
            query: query,
            state: selectedState,
            resultRows: rows,
            scopeCounts: counts,
            revision: revision,
            statistics: run.statistics
        )
    }

    /// The matches of a ranked query by their number of typos (element 0: the exact ones), where
    /// typo tolerance applies to it: a literal `.words` or `.prefix` query with a pattern long
    /// enough for an edit (`typoCounts`), or an operator expression with such a positive word
    /// (`expressionTypoCounts`). Nil otherwise.
    ///
    /// - Complexity: as `typoCounts` or `expressionTypoCounts`.
    func typoTotals(
        _ bits: Bitset,
        plan: ScopePlan,
        query: Query,
        _ folded: FoldedQuery?,
        _ run: inout QueryRun
    ) throws -> [Bitset]? {
        if let patterns = Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) {
            return try typoCounts(
                bits,
                plan: plan,
                patterns: patterns,
                mode: query.mode,
                tolerance: query.typos,
                &run
            )
        }
        if case .expression(let expression)? = folded, expression.hasTypoPatterns(query.typos) {
            return try expressionTypoCounts(
                bits,
                plan: plan,
                expression: expression,
                tolerance: query.typos,
                &run
            )
        }
        return nil
    }

    /// Whether one record matches a query in the query's scope (for re-evaluating edited records
    /// against a live query without searching everything).
    ///
    /// - Throws: `SiftError.staleHandle`, `SiftError.unknownScope`, `SiftError.queryTooLarge`
    ///   (see `queryLimits`), or an ICU failure.
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    public func matches(_ handle: RecordHandle, _ query: Query) throws -> Bool {
        try checkLength(query)
        try addDeferredWordStarts()
        let slot = try resolve(handle)
        let plan = try scopePlan(of: query)
        if !filterMembers(plan).contains(slot) { return false }
        let length = query.text.count
        if length == 0 { return true }
        if length < plan.scope.minimumLength { return false }
        switch try foldQuery(query, folding: plan.folding) {
        case .everything: return true
        case .nothing: return false
        case .expression(let expression):
            return expressionMatches(plan, expression, slot: slot, tolerance: query.typos)
        case .patterns(let patterns):
            if query.typos != .off, Self.typoAnchor(for: query.mode) != nil {
                return typoCount(slot: slot, plan: plan, patterns: patterns, mode: query.mode, tolerance: query.typos)
                    != nil
            }
            let anchor = Self.anchor(for: query.mode)
            return patterns.allSatisfy { pattern in
                plan.fields.contains { field in
                    evaluate(key(plan, field, anchor, pattern), slot: slot).matched
                }
            }
        }
    }

    // MARK: - Scope and field results

    private func scopeMatches(
        _ plan: ScopePlan,
        _ folded: FoldedQuery,
        mode: MatchMode,
        typos: TypoTolerance,
        _ run: inout QueryRun
    ) throws -> Bitset {
        switch folded {
        case .everything: return records.live
        case .nothing: return Bitset()
        case .expression(let expression):
            return try expressionMatches(plan, expression, tolerance: typos, &run)
        case .patterns(let patterns):
            var result: Bitset? = nil
            for pattern in patterns {
                try run.checkCancellation()
                // Exact field results, then (with typo tolerance) the fields' typo results.
                let fieldSets = try fieldResults(
                    plan,
                    pattern,
                    mode: mode,
                    tolerance: typos,
                    &run
                )
                let (first, second) = Self.pairForCombining(fieldSets)
                result =
                    result.map { Bitset.combining(first, or: second, and: $0).bits }
                    ?? (second == nil ? first : Bitset.combining(first, or: second).bits)
            }
            return result ?? records.live
        }
    }

    /// The records one field pattern matches: from the cache, by narrowing a cached shorter
    /// pattern's candidates, or by a full scan of the column.
    func fieldMatch(
        _ key: MatchKey,
        _ run: inout QueryRun
    ) throws
        -> FieldMatch
    {
        if let match = try cachedOrNarrowed(key, &run) { return match }
        run.statistics.fullScans += 1
        return store(try fullScan(key, run.isCancelled), for: key)
    }

    /// Stores a scan's result in the cache and returns it as stored: an exact key's sets of at
    /// most `sparseSlotLimit` members as lists, so that the keystrokes that narrow, combine and
    /// rank from them cost what their members cost (fuzzy and typo results stay bits, which
    /// their kernels read).
    ///
    /// - Complexity: O(*n* / 64 + *k*) to count and list *k* members of a dense set.
    @discardableResult
    func store(_ result: FieldMatch, for key: MatchKey) -> FieldMatch {
        var result = result
        if key.strategy == .exact {
            result.matched.makeSparse(ifAtMost: sparseSlotLimit)
            result.candidates.makeSparse(ifAtMost: sparseSlotLimit)
        }
        caches.matches.store(result, for: key)
        return result
    }

    /// The records a field pattern matches when they come without a full scan: from the cache,
    /// or by narrowing a cached shorter pattern's candidates (then stored); nil when only a full
    /// scan can answer.
    ///
    /// - Complexity: O(*c*) for *c* cached results, plus O(*k*) in the size of *k* candidate
    ///   records when narrowing.
    func cachedOrNarrowed(
        _ key: MatchKey,
        _ run: inout QueryRun
    ) throws -> FieldMatch? {
        // (The closures are written out at each call: a closure held in a variable escapes, and
        // would allocate its context on every keystroke.)
        if let hit = caches.matches.lookup(key, evaluate: { self.evaluate($0, slot: $1) }) {
            run.statistics.cacheHits += 1
            return hit
        }
        if let posted = postingsMatch(key) {
            run.statistics.postingsHits += 1
            return posted
        }
        guard let candidates = narrowingCandidates(for: key) else { return nil }
        run.statistics.narrowedScans += 1
        return store(try narrowedScan(key, candidates: candidates, &run), for: key)
    }

    /// The cached candidates a scan of `key` should narrow, if any: those of the longest cached
    /// pattern it extends (`MatchCache.narrowingBase`), when the key's strategy says narrowing
    /// them beats a full scan (`narrowsFrom(_:)`).
    ///
    /// - Complexity: O(*c* + *n* / 64) for *c* cached results and *n* slots.
    private func narrowingCandidates(for key: MatchKey) -> Bitset? {
        guard
            let base = caches.matches.narrowingBase(for: key, evaluate: { self.evaluate($0, slot: $1) })
                ?? postingsOfFirstElement(key)
        else {
            return nil
        }
        return narrowsFrom(key, base.candidates) ? base.candidates : nil
    }

    /// Empties the query cache: the next keystroke of every query scans its fields afresh. The cache
    /// holds at most `IndexConfiguration.cacheCapacity` field results; this releases them (for
    /// example under memory pressure, or to time cold keystrokes).
    ///
    /// - Complexity: O(*c*) for *c* cached results.
    public func discardCachedResults() {
        caches.matches.removeAll()
        caches.wholeFieldMatches = [:]
        caches.keptRows = []
        caches.keptFuzzyScores = []
    }
}
