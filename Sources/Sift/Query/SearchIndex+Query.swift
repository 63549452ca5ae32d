internal import CSiftKernels

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
        try checkLength(query)
        try addDeferredWordStarts()
        guard let selected = scopePlans.firstIndex(where: { $0.scope.name == query.scope }) else {
            throw SiftError.unknownScope(query.scope)
        }
        let length = query.text.count
        var statistics = QueryStatistics()
        var foldedQueries: [Int: FoldedQuery] = [:]
        // Scopes that search the same fields (say, one per category) share one union of field results.
        var fieldSetMatches: [FieldSet: Bitset] = [:]
        var counts: [SearchResult.ScopeCount] = []
        var selectedBits: Bitset? = nil
        var selectedCount = 0
        var selectedState = SearchResult.State.all
        let selectedPlan = scopePlans[selected]
        scoresFuzzyMatches = query.order == .ranked && query.mode == .fuzzy
        defer { scoresFuzzyMatches = false }
        if query.order == .ranked, query.mode == .contains || query.mode == .words, length > 0,
            length >= selectedPlan.scope.minimumLength
        {
            let folded = try foldQuery(query, folding: selectedPlan.folding, isCancelled)
            foldedQueries[selectedPlan.folding] = folded
            if let ranking = folded.rankingPattern(mode: query.mode) {
                try sweepRankingAnchors(
                    selectedPlan,
                    firstPattern: ranking.pattern,
                    mode: ranking.mode,
                    &statistics,
                    isCancelled
                )
            }
        }
        for (index, plan) in scopePlans.enumerated() {
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
                    ?? foldQuery(query, folding: plan.folding, isCancelled)
                foldedQueries[plan.folding] = folded
                let fieldSet = FieldSet(folding: plan.folding, fields: plan.fields)
                let matches =
                    try fieldSetMatches[fieldSet]
                    ?? scopeMatches(plan, folded, mode: query.mode, typos: query.typos, &statistics, isCancelled)
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
            let plan = scopePlans[selected]
            if query.order == .ranked, selectedState == .matches, query.mode == .fuzzy,
                case .patterns(let patterns)? = foldedQueries[plan.folding]
            {
                rows = try cachedFuzzyRankedRows(bits, plan: plan, pattern: patterns[0], &statistics, isCancelled)
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
                    &statistics,
                    isCancelled
                )
            } else {
                rows = try resultRows(
                    [(bits, selectedCount)],
                    order: query.order == .ranked ? .original : query.order,
                    isCancelled: isCancelled
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
            statistics: statistics
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
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> [Bitset]? {
        if let patterns = Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) {
            return try typoCounts(
                bits,
                plan: plan,
                patterns: patterns,
                mode: query.mode,
                tolerance: query.typos,
                &statistics,
                isCancelled
            )
        }
        if case .expression(let expression)? = folded, expression.hasTypoPatterns(query.typos) {
            return try expressionTypoCounts(
                bits,
                plan: plan,
                expression: expression,
                tolerance: query.typos,
                &statistics,
                isCancelled
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

    // MARK: - Folding the query

    /// The plan of the query's scope.
    ///
    /// - Throws: `SiftError.unknownScope`.
    /// - Complexity: O(*p*) for *p* scopes.
    func scopePlan(of query: Query) throws(SiftError) -> ScopePlan {
        guard let plan = scopePlans.first(where: { $0.scope.name == query.scope }) else {
            throw .unknownScope(query.scope)
        }
        return plan
    }

    /// Refuses a query whose text is longer than `queryLimits.maximumLength` UTF-8 bytes.
    ///
    /// - Throws: `SiftError.queryTooLarge`.
    /// - Complexity: O(1) for a native string.
    func checkLength(_ query: Query) throws(SiftError) {
        let length = query.text.utf8.count
        guard length <= queryLimits.maximumLength else {
            throw .queryTooLarge(limit: QueryLimits.lengthName, size: length, maximum: queryLimits.maximumLength)
        }
    }

    /// `query`'s text folded under one folding, in its mode, syntax and typo tolerance (see
    /// `foldQuery(_:mode:syntax:typos:folding:)`), refused past `queryLimits`: its length is
    /// checked before folding, its distinct terms and words that tolerate typos after.
    ///
    /// - Throws: `SiftError.queryTooLarge`, an ICU failure, or `CancellationError`.
    func foldQuery(_ query: Query, folding index: Int, _ isCancelled: () -> Bool = { false }) throws -> FoldedQuery {
        try checkLength(query)
        let codeCount = foldings[index].codeBook.count
        if let memo = foldedQueryMemo,
            memo.answers(query, folding: index, revision: revision, codeCount: codeCount, limits: queryLimits)
        {
            return memo.folded
        }
        let (folded, terms, typoWords) = try foldQueryCountingTerms(
            query.text,
            mode: query.mode,
            syntax: query.syntax,
            typos: query.typos,
            folding: index,
            isCancelled
        )
        let limits = queryLimits
        guard terms <= limits.maximumTerms else {
            throw SiftError.queryTooLarge(limit: QueryLimits.termsName, size: terms, maximum: limits.maximumTerms)
        }
        guard typoWords <= limits.maximumTypoWords else {
            throw SiftError.queryTooLarge(
                limit: QueryLimits.typoWordsName,
                size: typoWords,
                maximum: limits.maximumTypoWords
            )
        }
        foldedQueryMemo = FoldedQueryMemo(
            text: query.text,
            mode: query.mode,
            syntax: query.syntax,
            typos: query.typos,
            folding: index,
            revision: revision,
            codeCount: codeCount,
            limits: limits,
            folded: folded
        )
        return folded
    }

    /// The query folded under one folding: its patterns (one per query word in `.words` mode),
    /// `.nothing` when some element never occurs in the index, `.everything` without elements.
    /// With typo tolerance (`.words` and `.prefix` modes), a pattern long enough for an edit may
    /// hold elements the index has never seen (an edit can replace or drop them): they take the
    /// code after the code book's last (`CodeBook.encodeForTypos`), which no record holds.
    /// A word repeated after folding (its codes equal; at identical strength its text too) is
    /// one pattern.
    func foldQuery(
        _ text: String,
        mode: MatchMode,
        syntax: QuerySyntax = .literal,
        typos: TypoTolerance = .off,
        folding index: Int
    ) throws -> FoldedQuery {
        try foldQueryCountingTerms(text, mode: mode, syntax: syntax, typos: typos, folding: index).folded
    }

    /// `foldQuery(_:mode:syntax:typos:folding:)`, with the number of distinct terms the query
    /// searches for (what `QueryLimits.maximumTerms` counts): its distinct words in `.words`
    /// mode (those that occur nowhere included), its distinct terms with operators, otherwise 1
    /// (0 for a text without collation elements); and the number of those words that tolerate
    /// typos (what `QueryLimits.maximumTypoWords` counts). Words are told apart by their
    /// collation elements, not their codes: a word encoded for typos
    /// (`CodeBook.encodeForTypos`) gives every element no record holds the same code, so two
    /// distinct words (`search`, `searhc` in an index without `s`) can share a pattern. They are
    /// evaluated once but counted as the two words they are, so that what a query counts does
    /// not depend on the index's contents or on its typo tolerance. Polls `isCancelled` every
    /// 64 words.
    ///
    /// - Complexity: O(*n*) in the length of the text, plus ICU's word breaking and folding.
    func foldQueryCountingTerms(
        _ text: String,
        mode: MatchMode,
        syntax: QuerySyntax = .literal,
        typos: TypoTolerance = .off,
        folding index: Int,
        _ isCancelled: () -> Bool = { false }
    ) throws -> (folded: FoldedQuery, terms: Int, typoWords: Int) {
        let identical = foldings[index].collation.strength == .identical
        if mode == .words, syntax == .operators, let expression = try foldOperators(text, folding: index, isCancelled) {
            if case .expression(let folded) = expression {
                return (expression, folded.termCount(identical: identical), folded.typoWordCount(typos))
            }
            return (expression, 0, 0)
        }
        let folding = foldings[index]
        let pieces: [String] = mode == .words ? try folding.folder.queryWords(text).map(String.init) : [text]
        var patterns: [(bytes: [UInt8], text: String)] = []
        var seen = Set<FoldedExpression.PatternKey>()
        // Words with an element no record holds, by their elements: the query matches nothing,
        // but they count as terms all the same.
        var nowhere = Set<String>()
        // Words encoded for typos, by their elements: their codes are lossy, so they are counted
        // here rather than by their patterns.
        var encodedForTypos = Set<String>()
        // Patterns of words the code book encodes exactly (codes and elements correspond one to
        // one), and how many of those tolerate typos.
        var exactPatterns = 0
        var exactTypoPatterns = 0
        for (position, piece) in pieces.enumerated() {
            if position & 63 == 63, isCancelled() { throw CancellationError() }
            let elements = try folding.folder.patternElements(piece)
            if elements.isEmpty { continue }
            let forgiving = Self.typoAnchor(for: mode) != nil && typos.edits(forElements: elements.count) > 0
            let bytes: [UInt8]
            let isExact: Bool
            if let exact = folding.codeBook.encode(elements) {
                (bytes, isExact) = (exact, true)
            } else if forgiving {
                isExact = false
                bytes = folding.codeBook.encodeForTypos(elements)
                encodedForTypos.insert(Self.elementsText(elements, identical ? piece : nil))
            } else {
                nowhere.insert(Self.elementsText(elements, identical ? piece : nil))
                continue
            }
            if seen.insert(.init(bytes: bytes, text: identical ? piece : nil)).inserted {
                patterns.append((bytes, piece))
                if isExact {
                    exactPatterns += 1
                    if forgiving { exactTypoPatterns += 1 }
                }
            }
        }
        let terms = exactPatterns + encodedForTypos.count + nowhere.count
        if !nowhere.isEmpty { return (.nothing, terms, 0) }
        let typoWords = exactTypoPatterns + encodedForTypos.count
        return (patterns.isEmpty ? .everything : .patterns(patterns), terms, typoWords)
    }

    static func anchor(for mode: MatchMode) -> Anchor {
        switch mode {
        case .contains: return .anywhere
        case .prefix: return .fieldStart
        case .words: return .wordStart
        case .fuzzy: return .fuzzy
        }
    }

    func key(_ plan: ScopePlan, _ field: Int, _ anchor: Anchor, _ pattern: (bytes: [UInt8], text: String)) -> MatchKey {
        // A fuzzy match is not contiguous: no canonical-equality check (see `MatchMode.fuzzy`).
        let identical = foldings[plan.folding].collation.strength == .identical && anchor != .fuzzy
        return MatchKey(
            folding: plan.folding,
            field: field,
            anchor: anchor,
            pattern: pattern.bytes,
            identicalText: identical ? pattern.text : nil
        )
    }

    // MARK: - Scope and field results

    private func scopeMatches(
        _ plan: ScopePlan,
        _ folded: FoldedQuery,
        mode: MatchMode,
        typos: TypoTolerance,
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> Bitset {
        switch folded {
        case .everything: return live
        case .nothing: return Bitset()
        case .expression(let expression):
            return try expressionMatches(plan, expression, tolerance: typos, &statistics, isCancelled)
        case .patterns(let patterns):
            var result: Bitset? = nil
            for pattern in patterns {
                if isCancelled() { throw CancellationError() }
                // Exact field results, then (with typo tolerance) the fields' typo results.
                let fieldSets = try fieldResults(
                    plan,
                    pattern,
                    mode: mode,
                    tolerance: typos,
                    &statistics,
                    isCancelled
                )
                let (first, second) = Self.pairForCombining(fieldSets)
                result =
                    result.map { Bitset.combining(first, or: second, and: $0).bits }
                    ?? (second == nil ? first : Bitset.combining(first, or: second).bits)
            }
            return result ?? live
        }
    }

    /// The records one field pattern matches: from the cache, by narrowing a cached shorter
    /// pattern's candidates, or by a full scan of the column.
    func fieldMatch(
        _ key: MatchKey,
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws
        -> FieldMatch
    {
        if let match = try cachedOrNarrowed(key, &statistics, isCancelled) { return match }
        statistics.fullScans += 1
        return store(try fullScan(key, isCancelled), for: key)
    }

    /// Stores a scan's result in the cache and returns it as stored: an exact key's sets of at
    /// most `sparseSlotLimit` members as lists, so that the keystrokes that narrow, combine and
    /// rank from them cost what their members cost (fuzzy and typo results stay bits, which
    /// their kernels read).
    ///
    /// - Complexity: O(*n* / 64 + *k*) to count and list *k* members of a dense set.
    @discardableResult
    private func store(_ result: FieldMatch, for key: MatchKey) -> FieldMatch {
        var result = result
        if key.typos == 0 && key.anchor != .fuzzy {
            result.matched.makeSparse(ifAtMost: sparseSlotLimit)
            result.candidates.makeSparse(ifAtMost: sparseSlotLimit)
        }
        cache.store(result, for: key)
        return result
    }

    /// The records a field pattern matches when they come without a full scan: from the cache,
    /// or by narrowing a cached shorter pattern's candidates (then stored); nil when only a full
    /// scan can answer.
    ///
    /// - Complexity: O(*c*) for *c* cached results, plus O(*k*) in the size of *k* candidate
    ///   records when narrowing.
    private func cachedOrNarrowed(
        _ key: MatchKey,
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> FieldMatch? {
        // (The closures are written out at each call: a closure held in a variable escapes, and
        // would allocate its context on every keystroke.)
        if let hit = cache.lookup(key, evaluate: { self.evaluate($0, slot: $1) }) {
            statistics.cacheHits += 1
            return hit
        }
        guard let candidates = narrowingCandidates(for: key) else { return nil }
        statistics.narrowedScans += 1
        return store(try narrowedScan(key, candidates: candidates, &statistics, isCancelled), for: key)
    }

    /// The cached candidates a scan of `key` should narrow, if any: those of the longest cached
    /// pattern it extends, when they are few (or the index fits in cache); past a twentieth of a
    /// large index a sequential sweep of the whole column (memory speed, SIMD) beats visiting
    /// scattered candidates, whose every visit is a cache miss. Both are exact. A fuzzy or typo
    /// scan visits every segment's bytes either way, so it always narrows.
    ///
    /// - Complexity: O(*c* + *n* / 64) for *c* cached results and *n* slots.
    private func narrowingCandidates(for key: MatchKey) -> Bitset? {
        guard let base = cache.narrowingBase(for: key, evaluate: { self.evaluate($0, slot: $1) }) else { return nil }
        if key.typos > 0 { return base.candidates }
        // A fuzzy sweep reads 64 bytes at a time (`sift_fuzzy_sweep`): past a quarter of a large
        // index's records, faster than visiting each candidate.
        if key.anchor == .fuzzy {
            let swept = order.count >= fuzzySweepMinimumRecords && base.candidates.count * 4 > order.count
            return swept ? nil : base.candidates
        }
        guard order.count < 4096 || base.candidates.count * 20 < order.count else { return nil }
        return base.candidates
    }

    /// Empties the query cache: the next keystroke of every query scans its fields afresh. The cache
    /// holds at most `IndexConfiguration.cacheCapacity` field results; this releases them (for
    /// example under memory pressure, or to time cold keystrokes).
    ///
    /// - Complexity: O(*c*) for *c* cached results.
    public func discardCachedResults() {
        cache.removeAll()
        wholeFieldMatches = [:]
        keptRows = []
        keptFuzzyScores = []
    }

    /// Candidate and match status of one slot for a field pattern.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluate(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        if key.typos > 0 { return evaluateTypos(key, slot: slot) }
        if key.anchor == .fuzzy { return evaluateFuzzy(key, slot: slot) }
        let folding = foldings[key.folding]
        if key.identicalText != nil { return evaluateVerifyingEachHit(key, slot: slot) }
        // The C kernel, on the column in place (a copy of the column would retain and release each
        // of its buffers) and without allocating, so that an edit can re-check dozens of cached
        // patterns.
        let status = withKernelPattern(key) { pattern in
            folding.columns[key.field].scanOne(slot: slot, pattern: pattern, anchoredAtStart: key.anchor == .fieldStart)
        }
        return (status & 1 != 0, status & 2 != 0)
    }

    /// `evaluate` at identical strength, where every hit is also checked by canonical equality.
    @inline(never)  // keeps the column copy it makes out of `evaluate`, which runs per cached pattern on edits
    private func evaluateVerifyingEachHit(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        let column = foldings[key.folding].columns[key.field]
        guard let segment = column.segment(ofSlot: slot) else { return (false, false) }
        return SegmentScanner(column: column, segment: segment, pattern: key.pattern, anchor: key.anchor)
            .scan(verify: verifier(key, slot: slot, segment: segment))
    }

    /// At identical strength, ICU also requires the matched text to be canonically equal to the
    /// pattern; this checks a hit (a segment-relative byte offset) against the record's text.
    func verifier(_ key: MatchKey, slot: Int32, segment: Int) -> ((Int) -> Bool)? {
        guard let patternText = key.identicalText else { return nil }
        let folding = foldings[key.folding]
        let column = folding.columns[key.field]
        let text = value(at: key.field, slot: slot)
        let offsets = LazyBox { self.elementOffsets(key, text: text) }  // folded again on the first hit only
        return { offset in
            let (start, _) = column.bounds(ofSegment: segment)
            var element = 0
            for i in start..<(start + offset) where CodeBook.isLead(column.codes[i]) { element += 1 }
            var patternElements = 0
            for byte in key.pattern where CodeBook.isLead(byte) { patternElements += 1 }
            let (lows, limits) = offsets.value
            let last = element + patternElements - 1
            guard last < limits.count else { return false }
            return folding.folder.canonicallyEqual(text, utf16Range: lows[element], limits[last], pattern: patternText)
        }
    }

    /// Every segment of the key's column swept for the pattern. A column of many segments is
    /// split among the machine's cores (see `ParallelSweep`); this thread sweeps the first part and
    /// alone asks `isCancelled`.
    func fullScan(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        if key.typos > 0 {
            var match = try sweep(key, .typos(maxEdits: key.typos), isCancelled)[0]
            match.candidates = match.matched
            return match
        }
        if key.identicalText != nil { return try fullScanVerifyingEachHit(key, isCancelled) }
        if key.anchor == .fuzzy, scoresFuzzyMatches { return try fuzzyScoringFullScan(key, isCancelled) }
        if key.anchor == .fuzzy {
            var match = try sweep(key, .fuzzy, isCancelled)[0]
            match.candidates = match.matched
            return match
        }
        return try sweep(key, .one(atFieldStart: key.anchor == .fieldStart), isCancelled)[0]
    }

    /// The key's column swept by a `ParallelSweep` finding `anchors`.
    func sweep(
        _ key: MatchKey,
        _ anchors: ParallelSweep.Anchors,
        _ isCancelled: () -> Bool
    ) throws -> [FieldMatch] {
        let column = foldings[key.folding].columns[key.field]
        let chunk = max(1, scanChunkBytes / 16)
        return try column.withKernelView { view in
            try withKernelPattern(key) { pattern in
                try ParallelSweep(
                    view: view,
                    pattern: pattern,
                    anchors: anchors,
                    slotCapacity: slotCapacity,
                    segmentsPerWorker: parallelScanSegments,
                    maximumWorkers: scanWorkers
                ).run(chunk: chunk, isCancelled)
            }
        }
    }

    /// For a ranked query: the first pattern's field results anywhere, at a word start and at the
    /// field's start from one sweep of each field, where the query's own result for that field
    /// would come from a full scan (nothing cached to serve or narrow it). The ranking groups'
    /// anchored scans, which could not have been narrowed either (their base, the pattern's matches
    /// anywhere, would be as large), are then cache hits: one pass over the column, not three.
    ///
    /// - Complexity: O(*n*) in the folded size of the fields it sweeps; O(*c*) per field for *c*
    ///   cached results otherwise.
    private func sweepRankingAnchors(
        _ plan: ScopePlan,
        firstPattern: (bytes: [UInt8], text: String),
        mode: MatchMode,
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws {
        for field in plan.fields {
            let anchors: [Anchor] = [.anywhere, .wordStart, .fieldStart]
            let keys = anchors.map { key(plan, field, $0, firstPattern) }
            let own = keys[mode == .words ? 1 : 0]
            // Served or narrowed here (and stored) when it can be: the query's own scan of the
            // field then finds it in the cache; the anchored ones narrow from it.
            guard own.identicalText == nil, try cachedOrNarrowed(own, &statistics, isCancelled) == nil else {
                continue
            }
            let results = try rankedFullScan(own, isCancelled)
            statistics.fullScans += 1
            for (key, result) in zip(keys, results) { store(result, for: key) }
        }
    }

    /// What `fullScan` gives for the key's pattern anywhere, at a word start and at the field's
    /// start (in that order, whatever the key's anchor), from one sweep of the column.
    ///
    /// - Complexity: O(*n*) in the folded size of the field, divided among the cores.
    func rankedFullScan(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> [FieldMatch] {
        precondition(key.identicalText == nil, "identical strength verifies each hit: scan each anchor")
        return try sweep(key, .ranked, isCancelled)
    }

    /// The full scan at identical strength, where every accepted hit is also checked for
    /// canonical equality with the query (ICU's extra test at that strength).
    private func fullScanVerifyingEachHit(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        let column = foldings[key.folding].columns[key.field]
        var matched = Bitset(capacity: slotCapacity)
        var candidates = Bitset(capacity: slotCapacity)
        for segment in 0..<column.segmentCount {
            guard let owner = column.owner(ofSegment: segment) else { continue }
            let (candidate, match) = evaluate(key, slot: owner)
            if candidate { candidates.insert(owner) }
            if match { matched.insert(owner) }
            if segment & 0x3FFF == 0, isCancelled() { throw CancellationError() }
        }
        return FieldMatch(matched: matched, candidates: candidates)
    }

    private func narrowedScan(
        _ key: MatchKey,
        candidates base: Bitset,
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> FieldMatch {
        if key.typos > 0 {
            let edits = Int32(key.typos)
            return try matchesOnlyNarrowedScan(key, candidates: base, &statistics, isCancelled) {
                sift_typo_scan_candidates(&$0, &$1, $2, $3, $4, $5, edits, $6)
            }
        }
        if key.anchor == .fuzzy, scoresFuzzyMatches {
            return try fuzzyScoringNarrowedScan(key, candidates: base, &statistics, isCancelled)
        }
        if key.anchor == .fuzzy {
            return try matchesOnlyNarrowedScan(key, candidates: base, &statistics, isCancelled) {
                sift_fuzzy_scan_candidates(&$0, &$1, $2, $3, $4, $5, $6)
            }
        }
        // A base of few candidates is a list already (`store(_:for:)` made it one).
        if key.identicalText == nil, let slots = base.sparseMembers {
            return try narrowedScanOfList(key, candidates: slots, &statistics, isCancelled)
        }
        let column = foldings[key.folding].columns[key.field]
        var matched = Bitset(capacity: slotCapacity)
        var candidates = Bitset(capacity: slotCapacity)
        var examined = 0
        if key.identicalText != nil {
            try base.forEachMember { slot in
                let (candidate, match) = evaluate(key, slot: slot)
                if candidate { candidates.insert(slot) }
                if match { matched.insert(slot) }
                examined += 1
                if examined & 0x3FFF == 0, isCancelled() { throw CancellationError() }
            }
        } else {
            try column.withKernelView { view in
                try withKernelPattern(key) { pattern in
                    try base.words.withUnsafeBufferPointer { baseWords in
                        try matched.withUnsafeMutableWords { matchedWords in
                            try candidates.withUnsafeMutableWords { candidateWords in
                                var view = view
                                var pattern = pattern
                                examined = try scanCandidateChunks(baseWords, isCancelled) { first, last in
                                    sift_scan_candidates(
                                        &view,
                                        &pattern,
                                        column.slotCount,
                                        baseWords.baseAddress!,
                                        first,
                                        last,
                                        key.anchor == .fieldStart ? 1 : 0,
                                        matchedWords,
                                        candidateWords
                                    )
                                }
                            }
                        }
                    }
                }
            }
        }
        statistics.candidatesExamined += examined
        return FieldMatch(matched: matched, candidates: candidates)
    }

    /// A narrowed scan of a few candidates (`slots`, ascending), read as a list, with sparse
    /// results: what `narrowedScan` finds, in time and memory for the candidates, not for every
    /// slot (a narrow keystroke over a million records would otherwise write and page in two
    /// fresh 125 KB bitsets per field and anchor).
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    private func narrowedScanOfList(
        _ key: MatchKey,
        candidates slots: [Int32],
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> FieldMatch {
        guard !slots.isEmpty else {
            let none = Bitset(sparse: [], capacity: slotCapacity)
            return FieldMatch(matched: none, candidates: none)
        }
        let column = foldings[key.folding].columns[key.field]
        var matchedCount = 0
        var candidateCount = 0
        var examined = 0
        var candidates: [Int32] = []
        let matched = column.withKernelView { view in
            withKernelPattern(key) { pattern in
                slots.withUnsafeBufferPointer { slots in
                    [Int32](unsafeUninitializedCapacity: slots.count) { matched, written in
                        candidates = [Int32](unsafeUninitializedCapacity: slots.count) { candidates, found in
                            var view = view
                            var pattern = pattern
                            examined = sift_scan_slots(
                                &view,
                                &pattern,
                                column.slotCount,
                                slots.baseAddress!,
                                slots.count,
                                key.anchor == .fieldStart ? 1 : 0,
                                matched.baseAddress!,
                                &matchedCount,
                                candidates.baseAddress!,
                                &candidateCount
                            )
                            found = candidateCount
                        }
                        written = matchedCount
                    }
                }
            }
        }
        statistics.candidatesExamined += examined
        if isCancelled() { throw CancellationError() }
        return FieldMatch(
            matched: Bitset(sparse: matched, capacity: slotCapacity),
            candidates: Bitset(sparse: candidates, capacity: slotCapacity)
        )
    }

    /// A narrowed scan whose kernel sets only matches (fuzzy and typo keys: their candidates are
    /// their matches): `kernel` checks the candidates of words `first..<last` of `base`, given the
    /// column's view, the pattern and the column's slot count, sets the matches' bits and returns
    /// how many candidates it examined.
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    func matchesOnlyNarrowedScan(
        _ key: MatchKey,
        candidates base: Bitset,
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool,
        _ kernel: (
            inout sift_column_view, inout sift_scan_pattern, Int, UnsafePointer<UInt64>, Int, Int,
            UnsafeMutablePointer<UInt64>
        ) -> Int
    ) throws -> FieldMatch {
        let column = foldings[key.folding].columns[key.field]
        var matched = Bitset(capacity: slotCapacity)
        var examined = 0
        try column.withKernelView { view in
            try withKernelPattern(key) { pattern in
                try base.words.withUnsafeBufferPointer { baseWords in
                    try matched.withUnsafeMutableWords { matchedWords in
                        var view = view
                        var pattern = pattern
                        examined = try scanCandidateChunks(baseWords, isCancelled) { first, last in
                            kernel(&view, &pattern, column.slotCount, baseWords.baseAddress!, first, last, matchedWords)
                        }
                    }
                }
            }
        }
        statistics.candidatesExamined += examined
        return FieldMatch(matched: matched, candidates: matched)
    }

    /// Calls `scan` over a candidate bitset's words 1,024 at a time (65,536 slots), asking
    /// `isCancelled` between two calls: the loop of every narrowed scan, whatever its kernel.
    /// Returns the sum of what `scan` returns (the candidates it examined).
    ///
    /// - Complexity: O(*n* / 64) for *n* slots, plus what `scan` does.
    func scanCandidateChunks(
        _ base: UnsafeBufferPointer<UInt64>,
        _ isCancelled: () -> Bool,
        _ scan: (_ firstWord: Int, _ lastWord: Int) -> Int
    ) throws -> Int {
        var examined = 0
        var word = 0
        while word < base.count {
            let next = min(base.count, word + 1024)
            examined += scan(word, next)
            word = next
            if isCancelled() { throw CancellationError() }
        }
        return examined
    }

    /// The kernels' view of a folded pattern.
    func withKernelPattern<R>(_ key: MatchKey, _ body: (sift_scan_pattern) throws -> R) rethrows -> R {
        try key.pattern.withUnsafeBufferPointer { bytes in
            var lastLead = bytes.count - 1
            while lastLead > 0 && !CodeBook.isLead(bytes[lastLead]) { lastLead -= 1 }
            return try body(
                sift_scan_pattern(
                    bytes: bytes.baseAddress!,
                    length: bytes.count,
                    lastLead: lastLead,
                    requireWordStart: key.anchor == .wordStart ? 1 : 0
                )
            )
        }
    }

    // MARK: - Ordering

    /// The members of `groups` in `order`, one group after the other, as `orderedRows` lists
    /// them; kept as the groups' bitsets, to be made when read (`ResultRows`), where that order
    /// is slot order (original order while it follows the slots, not `.sorted`), no generation
    /// is counted yet, and the rows would take more memory than the bitsets; kept as positions
    /// in the order (`OrderSubsetRows`) for one group of at least an eighth of an order held in
    /// blocks and at least `orderSubsetMinimumRows`.
    ///
    /// - Complexity: O(*g*) for *g* groups when kept as bitsets; O(*n*) for *n* slots when kept
    ///   as positions; else as `orderedRows`.
    func resultRows(
        _ groups: [(bits: Bitset, count: Int)],
        order: ResultOrder,
        isCancelled: () -> Bool
    ) throws -> ResultRows {
        let total = groups.reduce(0) { $0 + $1.count }
        let bitsetWords = groups.reduce(0) { $0 + $1.bits.wordCount }
        if order != .sorted, orderFollowsSlots, !generations.isMaterialized, total > bitsetWords {
            return ResultRows(groups: groups, tag: handleTag)
        }
        // A broad answer in an order held in blocks (sorted, or an original order that edits
        // moved): its positions in that order, one bit each, where the list would be millions.
        let sequence = order == .sorted ? sorted : self.order
        if groups.count == 1, !sequence.isAscending, total >= orderSubsetMinimumRows, total * 8 >= sequence.count,
            total > bitsetWords
        {
            return ResultRows(
                subsetOf: sequence.slotsInOrder,
                members: groups[0].bits,
                generations: generations.isMaterialized ? generations : nil,
                tag: handleTag
            )
        }
        return ResultRows(try orderedRows(groups, order: order, isCancelled: isCancelled))
    }

    /// The members of each of `groups` (with its member count) in original or sorted order, one
    /// group after the other.
    func orderedRows(
        _ groups: [(bits: Bitset, count: Int)],
        order: ResultOrder,
        isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        if order != .sorted && orderFollowsSlots { return try rowsInSlotOrder(groups, isCancelled: isCancelled) }
        return try rowsInSequenceOrder(groups, order == .sorted ? sorted : self.order, isCancelled: isCancelled)
    }

    /// The members of each of `groups` in `sequence`'s order, one group after the other, written
    /// as handles into one array: a dense group in one pass over the sequence's blocks with no
    /// list of slots in between (`SlotSequence.handles(of:generations:tag:entriesPerThread:into:)`), a sparse one
    /// from its members' sorted labels.
    ///
    /// - Complexity: O(*n*) per dense group for *n* slots; O(*m* log *m*) per sparse group of *m*.
    private func rowsInSequenceOrder(
        _ groups: [(bits: Bitset, count: Int)],
        _ sequence: SlotSequence,
        isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        let total = groups.reduce(0) { $0 + $1.count }
        let tag = handleTag
        return try generations.withUnsafeBufferPointer { generations in
            // One entry of room more than the rows: the kernel writes each entry it reads.
            try [RecordHandle](unsafeUninitializedCapacity: total + 1) { buffer, initialized in
                try UnsafeMutableRawPointer(buffer.baseAddress!).withMemoryRebound(to: UInt64.self, capacity: total + 1)
                {
                    out in
                    for (bits, count) in groups where count > 0 {
                        if sequence.writesHandles(ofMembers: count) {
                            let written = sequence.handles(
                                of: bits,
                                generations: generations?.baseAddress,
                                tag: tag,
                                entriesPerThread: entriesPerOrderSelectionThread,
                                into: out + initialized
                            )
                            // No more than counted (as `members(of:count:)`: members outside the
                            // order, if any, are left out).
                            precondition(written <= count, "no more members than counted")
                            initialized += written
                        } else {
                            let members = sequence.members(of: bits, count: count)
                            for (i, slot) in members.enumerated() {
                                let generation = tag | (generations.map { $0[Int(slot)] } ?? 0)
                                out[initialized + i] = UInt64(UInt32(bitPattern: slot)) | UInt64(generation) << 32
                            }
                            initialized += members.count
                        }
                        if isCancelled() { throw CancellationError() }
                    }
                }
            }
        }
    }

    /// The members of each of `groups` in slot order (the original order while it follows the
    /// slots), one group after the other: handles written straight from the bitsets' words into
    /// one array, with no list of slots in between.
    ///
    /// - Complexity: O(*n* / 64 + *m*) per group for *m* members and *n* slots.
    private func rowsInSlotOrder(
        _ groups: [(bits: Bitset, count: Int)],
        isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        let total = groups.reduce(0) { $0 + $1.count }
        guard total > 0 else { return [] }  // see SnapshotReader.readArray: no empty unsafeUninitializedCapacity
        // Until a slot is reused every generation is 0: then no per-result lookup, only the tag.
        let tag = handleTag
        return try generations.withUnsafeBufferPointer { generations in
            try [RecordHandle](unsafeUninitializedCapacity: total) { buffer, initialized in
                // A handle is its slot and its generation, two 32-bit values, as the kernel writes them.
                try UnsafeMutableRawPointer(buffer.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: 2 * total)
                {
                    pairs in
                    for (bits, count) in groups where count > 0 {
                        if let members = bits.sparseMembers {
                            for (i, slot) in members.enumerated() {
                                pairs[2 * (initialized + i)] = UInt32(bitPattern: slot)
                                pairs[2 * (initialized + i) + 1] = tag | (generations.map { $0[Int(slot)] } ?? 0)
                            }
                            precondition(members.count == count, "a group's count is its bitset's")
                            initialized += members.count
                            continue
                        }
                        let written = bits.words.withUnsafeBufferPointer { words in
                            sift_bits_to_handles(
                                words.baseAddress!,
                                words.count,
                                generations?.baseAddress,
                                tag,
                                pairs + 2 * initialized
                            )
                        }
                        precondition(written == count, "a group's count is its bitset's")
                        initialized += written
                        if isCancelled() { throw CancellationError() }
                    }
                }
            }
        }
    }

    /// The records whose field is exactly the pattern: of its field-start matches, those whose
    /// field is as long as the pattern. Kept until the next edit, so that a keystroke that comes
    /// back to the pattern does not check them again.
    ///
    /// - Complexity: O(*n* / 64 + *p*) for the *p* field-start matches the first time; O(1) after.
    func wholeFieldMatches(
        _ plan: ScopePlan,
        _ field: Int,
        _ pattern: (bytes: [UInt8], text: String),
        atFieldStart: Bitset
    ) -> Bitset {
        if wholeFieldRevision != revision || wholeFieldMatches.count >= 64 {
            wholeFieldMatches = [:]
            wholeFieldRevision = revision
        }
        let key = key(plan, field, .fieldStart, pattern)
        if let whole = wholeFieldMatches[key] { return whole }
        var whole = Bitset.combining(atFieldStart).bits
        // A segment equal to the pattern has its number of elements: the ranking keys' lengths
        // (one byte a slot) rule out most members 64 at a time before their segments are read.
        let elements = pattern.bytes.reduce(0) { CodeBook.isLead($1) ? $0 + 1 : $0 }
        if whole.sparseMembers == nil, elements < Int(SIFT_RANKING_LENGTH_LIMIT) {
            let lengths = rankingKeys.lengths[plan.folding][field]
            let wordCount = whole.capacity >> 6
            if !lengths.isEmpty {
                _ = whole.withUnsafeMutableWords { words in
                    lengths.withUnsafeBufferPointer { lengths in
                        sift_keep_slots_with_length(
                            words,
                            wordCount,
                            lengths.baseAddress!,
                            lengths.count,
                            UInt8(elements)
                        )
                    }
                }
            }
        }
        _ = foldings[plan.folding].columns[field].keepSegments(ofLength: pattern.bytes.count, in: &whole)
        wholeFieldMatches[key] = whole
        return whole
    }

    /// Field results as the two operands of one `Bitset.combining` pass, their union: the first
    /// and the second (nil for one field), any further ones united into the first beforehand.
    ///
    /// - Complexity: O(1) for up to two sets; O(*n* / 64) per further set.
    static func pairForCombining(_ sets: [Bitset]) -> (Bitset, Bitset?) {
        guard var first = sets.first else { return (Bitset(), nil) }
        guard sets.count > 1 else { return (first, nil) }
        if sets.count > 2 {
            first = Bitset.combining(first, or: sets[2]).bits
            for set in sets.dropFirst(3) { first.formUnion(set) }
        }
        return (first, sets[1])
    }
}

/// A value computed on first use, shared by the closures that capture the box.
private final class LazyBox<Value> {
    private var computed: Value?
    private let compute: () -> Value
    init(_ compute: @escaping () -> Value) { self.compute = compute }
    var value: Value {
        if let computed { return computed }
        let result = compute()
        computed = result
        return result
    }
}
