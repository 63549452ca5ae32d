internal import CSiftKernels
internal import SiftStorage

/// `MatchMode.fuzzy`: a field matches when the query's collation elements occur in it in order,
/// not necessarily adjacent. The field results go through the same `MatchCache` as the other
/// modes, under the `.fuzzy` anchor: a full scan is `sift_fuzzy_sweep` (split among the cores by
/// `ParallelSweep`), a longer query narrows the cached matches of a shorter one it extends (a
/// subsequence of the longer pattern is one of the shorter; a base of more than a quarter of a
/// large index is swept instead), and a backspace is a cache hit. In a ranked query the scans
/// score what they match while its bytes are in cache, and each field result's scores are kept
/// for the index's revision (`FuzzyFieldScores`): ranking combines them without reading a record.
extension SearchIndex {
    /// Every segment of the key's column swept for the pattern's elements in order
    /// (`sift_fuzzy_sweep`); in a ranked query, scoring each match as it is found.
    ///
    /// - Complexity: O(*n*) in the folded size of the field, divided among the cores.
    func fullScanFuzzy(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        if caches.scoresFuzzyMatches { return try fuzzyScoringFullScan(key, isCancelled) }
        var match = try sweep(key, .fuzzy, isCancelled)[0]
        match.candidates = match.matched
        return match
    }

    /// The candidates of `base` checked for the pattern's elements in order; in a ranked query,
    /// scoring each match as it is found.
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    func narrowedScanFuzzy(
        _ key: MatchKey,
        candidates base: Bitset,
        _ run: inout QueryRun
    ) throws -> FieldMatch {
        if caches.scoresFuzzyMatches {
            return try fuzzyScoringNarrowedScan(key, candidates: base, &run)
        }
        return try matchesOnlyNarrowedScan(key, candidates: base, &run) {
            sift_fuzzy_scan_candidates(&$0, &$1, $2, $3, $4, $5, $6)
        }
    }

    /// Whether narrowing `candidates` beats a sweep: a fuzzy sweep reads 64 bytes at a time
    /// (`sift_fuzzy_sweep`), so past a quarter of a large index's records it is faster than
    /// visiting each candidate.
    func fuzzyNarrowsFrom(_ candidates: Bitset) -> Bool {
        orders.order.count < knobs.fuzzySweepMinimumRecords || candidates.count * 4 <= orders.order.count
    }

    /// Whether one slot's field holds the key's elements in order (candidate and match alike).
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluateFuzzy(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        // In place (a copy of the column would retain and release each of its buffers).
        let matched = withKernelPattern(key) { pattern in
            folded.foldings[key.folding].columns.readInPlace(key.field) {
                $0.fuzzyScanOne(slot: slot, pattern: pattern)
            }
        }
        return (matched, matched)
    }

    /// `fuzzyRankedRows`, or the rows computed for the same scope fields, pattern and matches
    /// while the index has not changed since (kept with the other ranked answers,
    /// `cachedOrderedRows`): a backspace, or a letter typed again, orders nothing.
    ///
    /// - Complexity: O(*n* / 64) to compare the matches on a hit; else as `fuzzyRankedRows`.
    func cachedFuzzyRankedRows(
        _ matches: Bitset,
        plan: ScopePlan,
        pattern: (bytes: [UInt8], text: String),
        _ run: inout QueryRun
    ) throws -> ResultRows {
        let key = KeptRows.Key.pattern(
            mode: .fuzzy,
            typos: .off,
            folding: plan.folding,
            fields: plan.fields,
            pattern: pattern.bytes,
            matches: matches
        )
        if let kept = cachedOrderedRows(key) { return kept }
        let rows = try fuzzyRankedRows(matches, plan: plan, pattern: pattern, &run)
        keepOrderedRows(rows, for: key)
        return rows
    }

    /// The rows of a ranked fuzzy query: `matches` ordered by score, best first; ties by the
    /// earliest search field reaching the record's best score, then that field's length (shorter
    /// first), the tie-break field (`IndexConfiguration.rankingTieBreak`), then original order.
    /// Each field's scores (`fuzzyFieldScores`) make one ranking key per match, at its rank among
    /// the matches (`sift_fuzzy_combine_scores`). A few distinct keys (a first letter has at most three
    /// scores a field) become ranking groups ordered where they are read (`RankedRowGroups`), as
    /// the other ranked modes' groups are; otherwise a counting sort over the keys (small
    /// integers) orders the rows, stable on the original order.
    ///
    /// - Complexity: O(*n* / 64) bitset work plus O(*m* + *k*) for *m* results and *k* distinct
    ///   keys, plus O(*s*) per field result in the size of its field where its scores are not kept.
    func fuzzyRankedRows(
        _ matches: Bitset,
        plan: ScopePlan,
        pattern: (bytes: [UInt8], text: String),
        _ run: inout QueryRun
    ) throws -> ResultRows {
        let count = matches.count
        guard count > 1 else {
            return ResultRows(try orderedRows([(matches, count)], order: .original, isCancelled: run.isCancelled))
        }
        // One key per match, in slot order: a match's is at its rank among the matches.
        let filter = matches.words
        var ranks = [UInt32](repeating: 0, count: filter.count + 1)
        for (w, word) in filter.enumerated() { ranks[w + 1] = ranks[w] + UInt32(word.nonzeroBitCount) }
        var keys = [UInt32](repeating: 0, count: count)
        let rankCount = UInt32(plan.fields.count)
        for (position, field) in plan.fields.enumerated() {
            let key = key(plan, field, .fuzzy, pattern)
            // The field's result was just computed for the query's matches: a cache hit.
            var uncounted = run
            let matched = try fieldMatch(key, &uncounted).matched
            let scores = try fuzzyFieldScores(key, matched: matched, run.isCancelled)
            let fieldRank = rankCount - 1 - UInt32(position)
            let members = matched.words
            members.withUnsafeBufferPointer { members in
                filter.withUnsafeBufferPointer { filter in
                    ranks.withUnsafeBufferPointer { ranks in
                        scores.withUnsafeBufferPointer { scores in
                            keys.withUnsafeMutableBufferPointer { keys in
                                guard let first = scores.baseAddress else { return }
                                _ = sift_fuzzy_combine_scores(
                                    members.baseAddress!,
                                    0,
                                    min(members.count, filter.count),
                                    filter.baseAddress!,
                                    ranks.baseAddress!,
                                    first,
                                    scores.count,
                                    fieldRank,
                                    rankCount,
                                    keys.baseAddress!
                                )
                            }
                        }
                    }
                }
            }
        }
        if let groups = fuzzyRankingGroups(filter, keys: keys, plan: plan) {
            return ResultRows(
                ranked: RankedRowGroups(
                    groups,
                    generations: records.generations.isMaterialized ? records.generations : nil,
                    tag: records.handleTag,
                    membersPerThread: knobs.membersPerLengthOrderingThread
                )
            )
        }
        var rows = try orderedRows([(matches, count)], order: .original, isCancelled: run.isCancelled)
        // Each row's key: the rows are the matches in slot order while the original order follows
        // the slots, else found by rank.
        let rowKeys =
            orderFollowsSlots
            ? keys
            : rows.map { row in
                let (word, bit) = (Int(row.slot) >> 6, UInt64(row.slot) & 63)
                return keys[Int(ranks[word]) + (filter[word] & ((1 << bit) - 1)).nonzeroBitCount]
            }
        // Counting sort, largest key first, stable: the rows come in original order. Each key's
        // rows are one run (a score and the field reaching it), ordered next by shorter fields and
        // the tie-break.
        var runs: [(count: Int, field: Int?)] = []
        rowKeys.withUnsafeBufferPointer { rowKeys in
            rows.withUnsafeMutableBufferPointer { rows in
                let largest = rowKeys.max() ?? 0
                var starts = [Int](repeating: 0, count: Int(largest) + 2)
                for key in rowKeys { starts[Int(largest - key) + 1] += 1 }
                for bucket in 0...Int(largest) where starts[bucket + 1] > 0 {
                    runs.append(
                        (starts[bucket + 1], plan.fields[Int(rankCount - 1 - (largest - UInt32(bucket)) % rankCount)])
                    )
                }
                for i in 1..<starts.count { starts[i] += starts[i - 1] }
                let sorted = [RecordHandle](unsafeUninitializedCapacity: rows.count) { buffer, initialized in
                    for (row, key) in zip(rows, rowKeys) {
                        let bucket = Int(largest - key)
                        (buffer.baseAddress! + starts[bucket]).initialize(to: row)
                        starts[bucket] += 1
                    }
                    initialized = rows.count
                }
                _ = UnsafeMutableBufferPointer(rebasing: rows[...]).update(from: sorted)
            }
        }
        breakRankingTies(&rows, runs: runs, folding: plan.folding)
        return ResultRows(rows)
    }

    /// `matches` (its words) as the ranking groups of their keys (one per match, in slot order), best first, each with the
    /// lengths of its deciding field, where that is how `RankedRowGroups` orders them (no
    /// tie-break field, original order following the slots) and there are few keys: at most 16,
    /// and at most one group bitset per 64 rows of a slot's eight bytes (the groups then take no
    /// more memory than the rows' handles would). Nil otherwise.
    ///
    /// - Complexity: O(*n* / 64 + *m*) for *m* matches, times the number of groups to find a key's.
    private func fuzzyRankingGroups(
        _ matches: [UInt64],
        keys: [UInt32],
        plan: ScopePlan
    ) -> [RankedRowGroups.Group]? {
        let limit = min(16, 64 * keys.count / max(1, slotCapacity))
        guard configuration.rankingTieBreak == nil, orderFollowsSlots, limit >= 2 else { return nil }
        var distinct = [UInt32](repeating: 0, count: limit)
        let found = keys.withUnsafeBufferPointer { keys in
            distinct.withUnsafeMutableBufferPointer { distinct in
                sift_distinct_keys(keys.baseAddress!, keys.count, distinct.baseAddress!, limit)
            }
        }
        guard found <= limit else { return nil }
        distinct = distinct[..<found].sorted(by: >)
        let wordCount = matches.count
        var words = [UInt64](repeating: 0, count: found * wordCount)
        matches.withUnsafeBufferPointer { members in
            keys.withUnsafeBufferPointer { keys in
                distinct.withUnsafeBufferPointer { distinct in
                    words.withUnsafeMutableBufferPointer { words in
                        sift_group_by_key(
                            members.baseAddress!,
                            wordCount,
                            keys.baseAddress!,
                            distinct.baseAddress!,
                            found,
                            words.baseAddress!
                        )
                    }
                }
            }
        }
        let rankCount = UInt32(plan.fields.count)
        let lengths = rankingKeys.lengths[plan.folding]
        return distinct.indices.map { g in
            let bits = Bitset(words: Array(words[(g * wordCount)..<((g + 1) * wordCount)]))
            let field = plan.fields[Int(rankCount - 1 - distinct[g] % rankCount)]
            return RankedRowGroups.Group(bits: bits, count: bits.count, lengths: lengths[field])
        }
    }

    /// The scores of a fuzzy field result's members, in slot order: kept ones when the index has
    /// not changed since they were computed, else one pass over the members' bytes
    /// (`sift_fuzzy_score_members`), then kept.
    ///
    /// - Complexity: O(*k*) for *k* kept scores on a hit; else O(*n* / 64) plus O(*s*) per member in
    ///   the size of its field.
    func fuzzyFieldScores(_ key: MatchKey, matched: Bitset, _ isCancelled: () -> Bool) throws -> [UInt16] {
        let count = matched.count
        if let hit = caches.keptFuzzyScores.lastIndex(where: { $0.key == key && $0.revision == revision }) {
            let entry = caches.keptFuzzyScores.remove(at: hit)
            if entry.scores.count == count {
                caches.keptFuzzyScores.append(entry)
                return entry.scores
            }
        }
        guard count > 0 else { return [] }
        let column = folded.foldings[key.folding].columns[key.field]
        let members = matched.words
        var scratch = [Int](repeating: 0, count: max(1, key.pattern.count))
        var written = 0
        let scores = try [UInt16](unsafeUninitializedCapacity: count) { scores, initialized in
            defer { initialized = written }
            try column.withKernelView { view in
                try withKernelPattern(key) { pattern in
                    try members.withUnsafeBufferPointer { members in
                        try scratch.withUnsafeMutableBufferPointer { scratch in
                            var view = view
                            var pattern = pattern
                            _ = try scanCandidateChunks(members, isCancelled) { first, last in
                                let room = count - written
                                guard room > 0 else { return 0 }
                                let added = sift_fuzzy_score_members(
                                    &view,
                                    &pattern,
                                    column.slotCount,
                                    members.baseAddress!,
                                    first,
                                    last,
                                    scratch.baseAddress!,
                                    scores.baseAddress! + written
                                )
                                written += added
                                return added
                            }
                        }
                    }
                }
            }
        }
        assert(scores.count == count, "a score per member")
        keepFuzzyScores(scores, for: key)
        return scores
    }

    /// Keeps a field result's scores, dropping the oldest beyond `keptFuzzyScoreEntries` entries or
    /// twice as many scores in all as the index has slots (four bytes a slot).
    ///
    /// - Complexity: O(*e*) for *e* kept entries.
    func keepFuzzyScores(_ scores: [UInt16], for key: MatchKey) {
        caches.keptFuzzyScores.removeAll { $0.revision != revision || $0.key == key }
        guard !scores.isEmpty, scores.count <= 2 * slotCapacity else { return }
        var total = scores.count
        for entry in caches.keptFuzzyScores { total += entry.scores.count }
        while !caches.keptFuzzyScores.isEmpty
            && (caches.keptFuzzyScores.count >= Self.keptFuzzyScoreEntries || total > 2 * slotCapacity)
        {
            total -= caches.keptFuzzyScores.removeFirst().scores.count
        }
        caches.keptFuzzyScores.append(FuzzyFieldScores(key: key, revision: revision, scores: scores))
    }

    /// Field results whose scores are kept at most (see `keepFuzzyScores`): two fields of a
    /// query typed out, erased and typed again.
    static let keptFuzzyScoreEntries = 32

    /// The narrowed scan of a fuzzy key in a ranked fuzzy query: each match is scored as it is
    /// found, while its bytes are in cache (`sift_fuzzy_scan_score_candidates`), and the scores
    /// are kept (`keepFuzzyScores`) for the ranking that follows.
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    func fuzzyScoringNarrowedScan(
        _ key: MatchKey,
        candidates base: Bitset,
        _ run: inout QueryRun
    ) throws -> FieldMatch {
        let room = base.count
        var written = 0
        var scratch = [Int](repeating: 0, count: max(1, key.pattern.count))
        var scores: [UInt16] = []
        var match: FieldMatch? = nil
        if room > 0 {
            scores = try [UInt16](unsafeUninitializedCapacity: room) { scores, initialized in
                defer { initialized = written }
                try scratch.withUnsafeMutableBufferPointer { scratch in
                    match = try matchesOnlyNarrowedScan(key, candidates: base, &run) {
                        sift_fuzzy_scan_score_candidates(
                            &$0,
                            &$1,
                            $2,
                            $3,
                            $4,
                            $5,
                            $6,
                            scratch.baseAddress!,
                            scores.baseAddress!,
                            &written
                        )
                    }
                }
            }
        }
        // Trimmed when most candidates failed (a narrow keystroke keeps what it found).
        keepFuzzyScores(scores.count * 2 < scores.capacity ? [UInt16](scores[...]) : scores, for: key)
        let none = Bitset(capacity: slotCapacity)
        return match ?? FieldMatch(matched: none, candidates: none)
    }

    /// The full scan of a fuzzy key in a ranked fuzzy query, its matches scored as the sweep finds
    /// them (`sift_fuzzy_sweep_scores`: a one-element pattern, a first letter, by where the sweep
    /// found it first, its three scores; a longer one aligned while its bytes are in cache), and
    /// the scores kept (`keepFuzzyScores`) for the ranking that follows.
    ///
    /// - Complexity: O(*n*) in the folded size of the field.
    func fuzzyScoringFullScan(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        var dense = [UInt16](repeating: 0, count: max(1, slotCapacity))
        let matched = try dense.withUnsafeMutableBufferPointer { dense in
            try sweep(key, .fuzzyScores(dense.baseAddress!), isCancelled)[0].matched
        }
        let count = matched.count
        if count > 0 {
            let all = matched.words
            let scores = [UInt16](unsafeUninitializedCapacity: count) { scores, initialized in
                initialized = all.withUnsafeBufferPointer { all in
                    dense.withUnsafeBufferPointer { dense in
                        sift_fuzzy_gather_scores(
                            all.baseAddress!,
                            min(all.count, (dense.count + 63) / 64),
                            dense.baseAddress!,
                            scores.baseAddress!
                        )
                    }
                }
            }
            keepFuzzyScores(scores, for: key)
        }
        return FieldMatch(matched: matched, candidates: matched)
    }

    /// The score of a slot's best field for a fuzzy pattern and that field's position among the
    /// plan's fields (the ranking `fuzzyRankedRows` applies), or nil when no field matches.
    ///
    /// - Complexity: O(*s*) in the size of the slot's searched fields.
    func fuzzyScore(
        slot: Int32,
        plan: ScopePlan,
        pattern: (bytes: [UInt8], text: String)
    ) -> (
        score: Int, field: Int
    )? {
        var best: (score: Int, field: Int)? = nil
        for (position, field) in plan.fields.enumerated() {
            let key = key(plan, field, .fuzzy, pattern)
            let alignment = withKernelPattern(key) { pattern in
                folded.foldings[key.folding].columns[key.field].fuzzyAlignment(slot: slot, pattern: pattern)
            }
            guard let alignment else { continue }
            let score = min(alignment.score, Int(SIFT_FUZZY_SCORE_LIMIT))
            if best == nil || score > best!.score { best = (score, position) }
        }
        return best
    }

    /// The UTF-16 ranges of the field's elements a fuzzy pattern is aligned with (the alignment
    /// its score is computed on), in order, adjacent and overlapping ones merged.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field (it is folded again for its offsets).
    func fuzzyRanges(_ key: MatchKey, slot: Int32) -> [Range<Int>] {
        let column = folded.foldings[key.folding].columns[key.field]
        guard
            let alignment = withKernelPattern(key, { pattern in column.fuzzyAlignment(slot: slot, pattern: pattern) })
        else { return [] }
        let text = value(at: key.field, slot: slot)
        let (lows, limits) = elementOffsets(key, text: text)
        var ranges: [Range<Int>] = []
        for element in alignment.elements {
            var index = Int(element)
            guard index < lows.count else { return [] }
            let low = Int(lows[index])
            // A later element of a character's expansion (the second `s` of `ß`, the accent of a
            // decomposed `é`) has an empty range at the character's end: it is that character's.
            while index > 0 && lows[index] >= limits[index] { index -= 1 }
            let lower = Int(lows[index])
            ranges.append(lower..<max(lower, low, Int(limits[index])))
        }
        ranges.sort { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
        var merged: [Range<Int>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
