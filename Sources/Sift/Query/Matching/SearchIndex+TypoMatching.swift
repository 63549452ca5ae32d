internal import CSiftKernels
internal import SiftStorage

/// Typo tolerance (`Query.typos`, see `TypoTolerance`) in `.words` and `.prefix` modes. A query
/// word (in `.prefix` mode: the whole query) matches a record exactly, by the mode's own rule, or
/// within its edit budget: a record word's prefix (`.prefix`: the field's) is within that many
/// edits of it, in collation elements. The typo results go through the same `MatchCache` as exact
/// ones, under keys of their own (`MatchKey.typos`, one per edit budget), so an exact result
/// never answers a typo key nor the other way round: a full scan is `sift_typo_sweep` (split among
/// the cores by `ParallelSweep`), a longer word narrows the cached typo matches of a shorter one
/// with at least its budget (`MatchCache.narrows(_:_:)` proves it exact), and a backspace is a
/// cache hit. When a word's budget grows (4 → 5 or 8 → 9 elements) nothing cached can narrow it,
/// and the field is swept again.
extension SearchIndex {
    /// The anchor typo keys take in a mode: `.wordStart` in `.words` mode, `.fieldStart` in
    /// `.prefix` mode; nil in the modes without typo tolerance.
    static func typoAnchor(for mode: MatchMode) -> Anchor? {
        switch mode {
        case .words: return .wordStart
        case .prefix: return .fieldStart
        case .contains, .fuzzy: return nil
        }
    }

    /// The edits a pattern may match with under a tolerance (by its number of elements).
    static func typoEdits(_ pattern: [UInt8], _ tolerance: TypoTolerance) -> Int {
        guard tolerance != .off else { return 0 }
        var elements = 0
        for byte in pattern where CodeBook.isLead(byte) { elements += 1 }
        return tolerance.edits(forElements: elements)
    }

    /// The patterns of a folded query when typo tolerance applies to it: a literal `.words` or
    /// `.prefix` query (not an expression) with a tolerance and some pattern long enough for an
    /// edit. Nil otherwise: the query then matches and ranks exactly as without tolerance.
    static func typoPatterns(
        _ folded: FoldedQuery?,
        mode: MatchMode,
        tolerance: TypoTolerance
    ) -> [(bytes: [UInt8], text: String)]? {
        guard tolerance != .off, typoAnchor(for: mode) != nil, case .patterns(let patterns)? = folded,
            patterns.contains(where: { typoEdits($0.bytes, tolerance) > 0 })
        else { return nil }
        return patterns
    }

    /// The key of a pattern's typo matches within `edits` in one field.
    func typoKey(
        _ plan: ScopePlan,
        _ field: Int,
        _ anchor: Anchor,
        _ pattern: (bytes: [UInt8], text: String),
        edits: Int
    ) -> MatchKey {
        MatchKey(folding: plan.folding, field: field, anchor: anchor, pattern: pattern.bytes, typos: edits)
    }

    /// Every segment of the key's column swept for record words within the key's edit budget of
    /// the pattern (`sift_typo_sweep`); a typo key's candidates are its matches.
    ///
    /// - Complexity: O(*n*) in the folded size of the field, divided among the cores.
    func fullScanTypos(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        var match = try sweep(key, .typos(maxEdits: key.typos), isCancelled)[0]
        match.candidates = match.matched
        return match
    }

    /// The candidates of `base` (a cached typo result with at least this budget) checked within
    /// the key's budget.
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    func narrowedScanTypos(
        _ key: MatchKey,
        candidates base: Bitset,
        _ run: inout QueryRun
    ) throws -> FieldMatch {
        let edits = Int32(key.typos)
        return try matchesOnlyNarrowedScan(key, candidates: base, &run) {
            sift_typo_scan_candidates(&$0, &$1, $2, $3, $4, $5, edits, $6)
        }
    }

    /// Whether one slot's field has a record word within the key's edits (candidate and match alike).
    ///
    /// - Complexity: O(*s*) in the size of the slot's field (see `FoldedColumn.typoDistance`).
    func evaluateTypos(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        // In place (a copy of the column would retain and release each of its buffers).
        let distance = withKernelPattern(key) { pattern in
            folded.foldings[key.folding].columns.readInPlace(key.field) {
                $0.typoDistance(slot: slot, pattern: pattern, maxEdits: key.typos)
            }
        }
        return (distance <= key.typos, distance <= key.typos)
    }

    /// The records of a scope's fields one pattern matches, exactly or within its edits.
    ///
    /// - Complexity: one `fieldMatch` per field for the exact rule, one more per field when the
    ///   pattern has edits, plus O(*n* / 64) to unite them.
    func fieldResults(
        _ plan: ScopePlan,
        _ pattern: (bytes: [UInt8], text: String),
        mode: MatchMode,
        tolerance: TypoTolerance,
        _ run: inout QueryRun
    ) throws -> [Bitset] {
        let anchor = Self.anchor(for: mode)
        var results = try plan.fields.map { field in
            try fieldMatch(key(plan, field, anchor, pattern), &run).matched
        }
        if let typoAnchor = Self.typoAnchor(for: mode) {
            let edits = Self.typoEdits(pattern.bytes, tolerance)
            if edits > 0 {
                for field in plan.fields {
                    let typoKey = typoKey(plan, field, typoAnchor, pattern, edits: edits)
                    results.append(try fieldMatch(typoKey, &run).matched)
                }
            }
        }
        return results
    }

    /// The records of `matches` by their number of typos: element *t* holds those whose query
    /// words match with *t* typos in all (a word matched exactly counts 0; one matched only within
    /// its edits counts its distance, at least 1). Every word's sets (exact, within 1, within 2)
    /// come from `fieldMatch`, so they are cached and narrowed like the query's own.
    ///
    /// `isCancelled` is polled before each word and edit level.
    ///
    /// - Complexity: per pattern with edits, one `fieldMatch` per field and edit count, plus
    ///   O(*n* / 64) bitset work per pair of typo count and level.
    func typoCounts(
        _ matches: Bitset,
        plan: ScopePlan,
        patterns: [(bytes: [UInt8], text: String)],
        mode: MatchMode,
        tolerance: TypoTolerance,
        _ run: inout QueryRun
    ) throws -> [Bitset] {
        let anchor = Self.anchor(for: mode)
        guard let typoAnchor = Self.typoAnchor(for: mode) else { return [matches] }
        var totals = [matches]
        for pattern in patterns {
            let edits = Self.typoEdits(pattern.bytes, tolerance)
            guard edits > 0 else { continue }
            try run.checkCancellation()
            var exact = Bitset()
            for field in plan.fields {
                exact.formUnion(try fieldMatch(key(plan, field, anchor, pattern), &run).matched)
            }
            // within[l]: matched exactly or within l edits. The largest first: it narrows the others.
            var within = [Bitset](repeating: Bitset(), count: edits + 1)
            within[0] = exact
            for level in stride(from: edits, through: 1, by: -1) {
                try run.checkCancellation()
                var set = exact
                for field in plan.fields {
                    let key = typoKey(plan, field, typoAnchor, pattern, edits: level)
                    set.formUnion(try fieldMatch(key, &run).matched)
                }
                within[level] = set
            }
            var next = [Bitset](repeating: Bitset(), count: totals.count + edits)
            for (total, members) in totals.enumerated() where members.wordCount > 0 {
                for level in 0...edits {
                    var part = members
                    part.formIntersection(within[level])
                    if level > 0 { part.formSubtraction(within[level - 1]) }
                    next[total + level].formUnion(part)
                }
            }
            totals = next
        }
        return totals
    }

    /// The number of typos one slot matches the patterns with (see `typoCounts`), or nil when
    /// some pattern matches neither exactly nor within its edits in any searched field.
    ///
    /// - Complexity: O(*s*) per pattern in the size of the slot's searched fields.
    func typoCount(
        slot: Int32,
        plan: ScopePlan,
        patterns: [(bytes: [UInt8], text: String)],
        mode: MatchMode,
        tolerance: TypoTolerance
    ) -> Int? {
        let anchor = Self.anchor(for: mode)
        var total = 0
        for pattern in patterns {
            if plan.fields.contains(where: { evaluate(key(plan, $0, anchor, pattern), slot: slot).matched }) {
                continue
            }
            let edits = Self.typoEdits(pattern.bytes, tolerance)
            guard edits > 0, let typoAnchor = Self.typoAnchor(for: mode) else { return nil }
            var best = edits + 1
            for field in plan.fields {
                let key = typoKey(plan, field, typoAnchor, pattern, edits: edits)
                let distance = withKernelPattern(key) { kernelPattern in
                    folded.foldings[key.folding].columns.readInPlace(key.field) {
                        $0.typoDistance(slot: slot, pattern: kernelPattern, maxEdits: edits)
                    }
                }
                best = min(best, distance)
            }
            guard best <= edits else { return nil }
            total += max(1, best)
        }
        return total
    }

    /// The UTF-16 ranges of a field's record words (`.fieldStart`: of the field's start) within the
    /// key's edits: each the nearest prefix of its word.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field (it is folded again for its offsets).
    func typoRanges(_ key: MatchKey, slot: Int32) -> [Range<Int>] {
        let column = folded.foldings[key.folding].columns[key.field]
        let matches = withKernelPattern(key) { pattern in
            column.typoMatches(slot: slot, pattern: pattern, maxEdits: key.typos)
        }
        guard !matches.isEmpty else { return [] }
        let text = value(at: key.field, slot: slot)
        let (lows, limits) = elementOffsets(key, text: text)
        var ranges: [Range<Int>] = []
        for (element, count) in matches where count > 0 {
            let last = element + count - 1
            guard last < limits.count else { return [] }
            let lower = Int(lows[element])
            ranges.append(lower..<max(lower, Int(limits[last])))
        }
        return ranges
    }
}
