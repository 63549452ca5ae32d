internal import CSiftKernels

/// `MatchMode.fuzzy`: a field matches when the query's collation elements occur in it in order,
/// not necessarily adjacent. The field results go through the same `MatchCache` as the other
/// modes, under the `.fuzzy` anchor: a full scan is `sift_fuzzy_sweep` (split among the cores by
/// `ParallelSweep`), a longer query narrows the cached matches of a shorter one it extends (a
/// subsequence of the longer pattern is one of the shorter), and a backspace is a cache hit.
/// Ranking scores the results after matching, never caching a score.
extension SearchIndex {
    /// Whether one slot's field holds the key's elements in order (candidate and match alike).
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluateFuzzy(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        // In place (a copy of the column would retain and release each of its buffers).
        let matched = withKernelPattern(key) { pattern in
            foldings[key.folding].columns[key.field].fuzzyScanOne(slot: slot, pattern: pattern)
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
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> ResultRows {
        let key = KeptRows.Key.fuzzy(
            folding: plan.folding,
            fields: plan.fields,
            pattern: pattern.bytes,
            matches: matches
        )
        if let kept = cachedOrderedRows(key) { return kept }
        let rows = ResultRows(try fuzzyRankedRows(matches, plan: plan, pattern: pattern, &statistics, isCancelled))
        keepOrderedRows(rows, for: key)
        return rows
    }

    /// The rows of a ranked fuzzy query: `matches` ordered by score, best first; ties by the
    /// earliest search field reaching the record's best score, then that field's length (shorter
    /// first), the tie-break field (`IndexConfiguration.rankingTieBreak`), then original order. Each field
    /// scores the matches it holds (`sift_fuzzy_score_candidates`) into one ranking key per slot,
    /// and a counting sort over the keys (small integers) orders the rows, stable on the original
    /// order.
    ///
    /// - Complexity: O(*n* / 64) bitset work plus O(*s*) per result in the size of its fields,
    ///   plus O(*m* + *k*) for *m* results and *k* distinct keys.
    func fuzzyRankedRows(
        _ matches: Bitset,
        plan: ScopePlan,
        pattern: (bytes: [UInt8], text: String),
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        var rows = try orderedRows([(matches, matches.count)], order: .original, isCancelled: isCancelled)
        guard rows.count > 1 else { return rows }
        var keys = [UInt32](repeating: 0, count: slotCapacity)
        let rankCount = UInt32(plan.fields.count)
        var elementCount = 0
        for byte in pattern.bytes where CodeBook.isLead(byte) { elementCount += 1 }
        var scratch = [Int](repeating: 0, count: elementCount)
        for (position, field) in plan.fields.enumerated() {
            let key = key(plan, field, .fuzzy, pattern)
            // The field's result was just computed for the query's matches: a cache hit.
            var unused = QueryStatistics()
            var scored = try fieldMatch(key, &unused, isCancelled).matched
            scored.formIntersection(matches)
            let column = foldings[key.folding].columns[key.field]
            let fieldRank = rankCount - 1 - UInt32(position)
            try column.withKernelView { view in
                try withKernelPattern(key) { pattern in
                    try scored.words.withUnsafeBufferPointer { words in
                        try scratch.withUnsafeMutableBufferPointer { scratch in
                            try keys.withUnsafeMutableBufferPointer { keys in
                                var view = view
                                var pattern = pattern
                                var word = 0
                                while word < words.count {
                                    let next = min(words.count, word + 1024)
                                    _ = sift_fuzzy_score_candidates(
                                        &view,
                                        &pattern,
                                        column.slotCount,
                                        words.baseAddress!,
                                        word,
                                        next,
                                        fieldRank,
                                        rankCount,
                                        scratch.baseAddress!,
                                        keys.baseAddress!
                                    )
                                    word = next
                                    if isCancelled() { throw CancellationError() }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Counting sort, largest key first, stable: the rows come in original order.
        keys.withUnsafeBufferPointer { keys in
            rows.withUnsafeMutableBufferPointer { rows in
                var largest: UInt32 = 0
                for row in rows { largest = max(largest, keys[Int(row.slot)]) }
                var starts = [Int](repeating: 0, count: Int(largest) + 2)
                for row in rows { starts[Int(largest - keys[Int(row.slot)]) + 1] += 1 }
                for i in 1..<starts.count { starts[i] += starts[i - 1] }
                let sorted = [RecordHandle](unsafeUninitializedCapacity: rows.count) { buffer, initialized in
                    for row in rows {
                        let bucket = Int(largest - keys[Int(row.slot)])
                        (buffer.baseAddress! + starts[bucket]).initialize(to: row)
                        starts[bucket] += 1
                    }
                    initialized = rows.count
                }
                _ = UnsafeMutableBufferPointer(rebasing: rows[...]).update(from: sorted)
            }
        }
        // Runs of equal keys (a score and the field reaching it), then shorter fields and the
        // tie-break within each.
        var runs: [(count: Int, field: Int?)] = []
        keys.withUnsafeBufferPointer { keys in
            var start = 0
            while start < rows.count {
                let key = keys[Int(rows[start].slot)]
                var end = start + 1
                while end < rows.count, keys[Int(rows[end].slot)] == key { end += 1 }
                runs.append((end - start, plan.fields[Int(rankCount - 1 - key % rankCount)]))
                start = end
            }
        }
        breakRankingTies(&rows, runs: runs, folding: plan.folding)
        return rows
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
                foldings[key.folding].columns[key.field].fuzzyAlignment(slot: slot, pattern: pattern)
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
        let column = foldings[key.folding].columns[key.field]
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
