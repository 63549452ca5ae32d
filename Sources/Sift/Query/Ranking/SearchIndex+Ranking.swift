internal import CSiftKernels
internal import SiftStorage

/// What the ranking rules read of one ranked query (see `RankingRule`).
struct RankingContext {
    /// The patterns whose best match decides the exactness and attribute rules.
    var alternatives: [RankingAlternative]
    /// The first pattern of a literal query that tolerates typos, with its edit budget: in a typo
    /// group, a match within that budget counts where it starts (field start or word start).
    var typoPattern: (pattern: (bytes: [UInt8], text: String), edits: Int)?
    /// The query's mode.
    var mode: MatchMode
}

/// Ranked order (`ResultOrder.ranked`) in `.contains`, `.words` and `.prefix` modes, by the
/// index's ranking rules (`IndexConfiguration.rankingRules`, see `RankingRule`).
///
/// A matching record has three bucket values: its typos (`typoCounts`), its *way*, how its best
/// ranking alternative matches (0 whole field, 1 field start, 2 word start, 3 inside a word, 4
/// none of the alternatives: an expression's other clauses), and the position of the first
/// searched field where it matches that way. The records with equal values are a group; groups
/// go in the order the bucket rules give (`RankingPlan.groupKey`), each group's records by the
/// order rules (length, custom), then original order. `rankingValues(slot:plan:query:folded:)`
/// gives one record's values, as `rankedRows` groups them all.
extension SearchIndex {
    /// What the ranking rules read of `folded` for `query`.
    ///
    /// - Complexity: O(*t*) for *t* terms.
    func rankingContext(_ folded: FoldedQuery, query: Query, folding: Int) -> RankingContext {
        var context = RankingContext(alternatives: folded.rankingAlternatives(mode: query.mode), mode: query.mode)
        // A literal words query of several words: a field equal to its whole text is a
        // whole-field match too.
        if query.mode == .words, case .patterns(let patterns) = folded, patterns.count > 1,
            case .patterns(let whole)? = try? foldQuery(query.text, mode: .contains, folding: folding),
            whole.count == 1
        {
            context.alternatives.append(
                RankingAlternative(pattern: whole[0], mode: .contains, whole: true, wholeOnly: true)
            )
        }
        if let patterns = Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) {
            let edits = Self.typoEdits(patterns[0].bytes, query.typos)
            if edits > 0 { context.typoPattern = (patterns[0], edits) }
        }
        return context
    }

    /// `rankedRows`, kept with the other ranked answers until the next edit (`cachedOrderedRows`):
    /// under the query for a words query, and in `.contains` and `.prefix` modes (one pattern, the
    /// whole query) under its folded pattern, tolerance, scope fields and matches, so that any text
    /// folding alike (`mu` and `mü` at primary strength) is ranked once (below identical strength,
    /// where a match depends on the folded pattern alone).
    ///
    /// - Complexity: O(*n* / 64) to compare the matches on a pattern hit; else as `rankedRows`.
    func cachedRankedRows(
        _ matches: (bits: Bitset, count: Int),
        plan: ScopePlan,
        query: Query,
        folded: FoldedQuery,
        _ run: inout QueryRun
    ) throws -> ResultRows {
        var key = KeptRows.Key.query(query)
        // At identical strength a match also compares the text (canonical equality): the text's key.
        if query.mode == .contains || query.mode == .prefix, case .patterns(let patterns) = folded,
            patterns.count == 1, self.folded.foldings[plan.folding].collation.strength != .identical
        {
            key = .pattern(
                mode: query.mode,
                typos: query.typos,
                folding: plan.folding,
                fields: plan.fields,
                pattern: patterns[0].bytes,
                matches: matches.bits
            )
            if let kept = cachedOrderedRows(key) { return kept }
        }
        let rows = try rankedRows(matches, plan: plan, query: query, folded: folded, &run)
        keepOrderedRows(rows, for: key)
        return rows
    }

    /// The ranked rows of `matches` (with their count): grouped by typos, way and field, groups in
    /// the bucket rules' order, rows within a group by the order rules, then original order.
    /// Without a custom rule, with the length rule and while the original order follows the slots,
    /// the groups are ordered where a table reads them (`RankedRowGroups`).
    ///
    /// - Complexity: per alternative up to three anchored scans per field (served from the cache
    ///   or narrowed like any pattern's), per typo group with typo tolerance one typo scan per
    ///   field and anchor, plus O(*n* / 64) bitset work per group and O(*m*) to order *m* rows.
    func rankedRows(
        _ matches: (bits: Bitset, count: Int),
        plan: ScopePlan,
        query: Query,
        folded: FoldedQuery,
        _ run: inout QueryRun
    ) throws -> ResultRows {
        let context = rankingContext(folded, query: query, folding: plan.folding)
        let typoGroups =
            try typoTotals(matches.bits, plan: plan, query: query, folded, &run) ?? [matches.bits]
        // ways[w][p]: the records that match field p at least way w (whole field, field start,
        // word start, anywhere) through some alternative; none where none does (nothing is kept
        // for the many fields of a wide index that match nothing).
        var ways = [[Int: Bitset]](repeating: [:], count: 4)
        func add(_ set: Bitset, way: Int, position: Int) {
            guard !set.isEmpty else { return }
            if ways[way][position] == nil {
                ways[way][position] = set
            } else {
                ways[way][position]!.formUnion(set)
            }
        }
        for alternative in context.alternatives {
            try run.checkCancellation()
            for (position, field) in plan.fields.enumerated() {
                func match(_ anchor: Anchor) throws -> Bitset {
                    try fieldMatch(key(plan, field, anchor, alternative.pattern), &run).matched
                }
                let atFieldStart = try match(.fieldStart)
                if alternative.whole {
                    add(
                        wholeFieldMatches(plan, field, alternative.pattern, atFieldStart: atFieldStart),
                        way: 0,
                        position: position
                    )
                }
                if alternative.wholeOnly { continue }
                add(atFieldStart, way: 1, position: position)
                if alternative.mode != .prefix { add(try match(.wordStart), way: 2, position: position) }
                if alternative.mode == .contains { add(try match(.anywhere), way: 3, position: position) }
            }
        }
        // The typo groups' field-start and word-start matches within the first pattern's budget.
        var typoWays = [[Int: Bitset]](repeating: [:], count: 3)
        if let typo = context.typoPattern, typoGroups.dropFirst().contains(where: { $0.wordCount > 0 }) {
            for (position, field) in plan.fields.enumerated() {
                try run.checkCancellation()
                let anchors: [(way: Int, anchor: Anchor)] =
                    query.mode == .words ? [(1, .fieldStart), (2, .wordStart)] : [(1, .fieldStart)]
                for (way, anchor) in anchors {
                    let key = typoKey(plan, field, anchor, typo.pattern, edits: typo.edits)
                    let matched = try fieldMatch(key, &run).matched
                    if !matched.isEmpty { typoWays[way][position] = matched }
                }
            }
        }
        var groups: [(key: Int, bits: Bitset, count: Int, field: Int)] = []
        for (typos, members) in typoGroups.enumerated() where members.wordCount > 0 {
            var (rest, remaining) = Bitset.combining(members)
            for way in 0..<4 {
                // The fields that match this way, in order.
                var positions = Array(ways[way].keys)
                if typos > 0, way < 3 { positions += typoWays[way].keys.filter { ways[way][$0] == nil } }
                for position in positions.sorted() where remaining > 0 {
                    var set = ways[way][position]
                    if typos > 0, way < 3, let typoSet = typoWays[way][position] {
                        if set == nil { set = typoSet } else { set!.formUnion(typoSet) }
                    }
                    guard let set else { continue }
                    let group = rest.split(by: set)
                    guard group.count > 0 else { continue }
                    groups.append(
                        (
                            orders.rankingPlan.groupKey(typos: typos, way: way, field: position), group.bits,
                            group.count,
                            plan.fields[position]
                        )
                    )
                    remaining -= group.count
                }
            }
            if remaining > 0 {
                groups.append(
                    (orders.rankingPlan.groupKey(typos: typos, way: 4, field: 0), rest, remaining, plan.fields[0])
                )
            }
        }
        groups.sort { $0.key < $1.key }  // keys are distinct
        let tieBreaks = configuration.rankingTieBreak != nil
        if !tieBreaks, orders.rankingPlan.sortsByLength, orderFollowsSlots {
            // Ordered by length where a table reads them, not on the keystroke.
            let lengths = rankingKeys.lengths[plan.folding]
            return ResultRows(
                ranked: RankedRowGroups(
                    groups.map { .init(bits: $0.bits, count: $0.count, lengths: lengths[$0.field]) },
                    generations: records.generations.isMaterialized ? records.generations : nil,
                    tag: records.handleTag,
                    membersPerThread: knobs.membersPerLengthOrderingThread
                )
            )
        }
        var rows = try orderedRows(groups.map { ($0.bits, $0.count) }, order: .original, isCancelled: run.isCancelled)
        breakRankingTies(
            &rows,
            runs: groups.map { ($0.count, orders.rankingPlan.sortsByLength ? $0.field : nil) },
            folding: plan.folding,
            customFirst: orders.rankingPlan.customBeforeLength
        )
        return ResultRows(rows)
    }

    /// One matching record's bucket values (see the extension's description): its typos, way and
    /// field position, as `rankedRows` groups it; nil when it does not match a query that
    /// tolerates typos.
    ///
    /// - Complexity: O(*s*) per alternative in the size of the slot's searched fields.
    func rankingValues(
        slot: Int32,
        plan: ScopePlan,
        query: Query,
        folded: FoldedQuery
    ) -> (typos: Int, way: Int, field: Int)? {
        let context = rankingContext(folded, query: query, folding: plan.folding)
        var typos = 0
        if let patterns = Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) {
            guard
                let count = typoCount(
                    slot: slot,
                    plan: plan,
                    patterns: patterns,
                    mode: query.mode,
                    tolerance: query.typos
                )
            else { return nil }
            typos = count
        } else if case .expression(let expression) = folded, expression.hasTypoPatterns(query.typos),
            !expressionMatches(plan, expression, slot: slot)
        {
            guard let count = expressionTypoCount(plan, expression, slot: slot, tolerance: query.typos) else {
                return nil
            }
            typos = max(1, count)
        }
        var best = (way: 4, field: 0)
        for alternative in context.alternatives {
            for position in plan.fields.indices {
                let way = matchWay(slot: slot, plan: plan, position: position, alternative)
                if (way, position) < best { best = (way, position) }
            }
        }
        if typos > 0, let typo = context.typoPattern {
            for (position, field) in plan.fields.enumerated() where (1, position) < best {
                var way = 4
                if evaluateTypos(typoKey(plan, field, .fieldStart, typo.pattern, edits: typo.edits), slot: slot).matched
                {
                    way = 1
                } else if query.mode == .words,
                    evaluateTypos(typoKey(plan, field, .wordStart, typo.pattern, edits: typo.edits), slot: slot).matched
                {
                    way = 2
                }
                if (way, position) < best { best = (way, position) }
            }
        }
        return (typos, best.way, best.field)
    }

    /// How one alternative matches one searched field of a slot (its way: 0 whole field, 1 field
    /// start, 2 word start, 3 inside a word, 4 not at all), by the alternative's mode: `.words`
    /// matches only at word starts, `.prefix` only at the field's start.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func matchWay(slot: Int32, plan: ScopePlan, position: Int, _ alternative: RankingAlternative) -> Int {
        let field = plan.fields[position]
        let key = key(plan, field, .anywhere, alternative.pattern)
        let column = folded.foldings[plan.folding].columns[field]
        guard let segment = column.segment(ofSlot: slot),
            let matchClass = SegmentScanner(
                column: column,
                segment: segment,
                pattern: key.pattern,
                anchor: key.anchor
            )
            .bestClass(verify: verifier(key, slot: slot, segment: segment))
        else { return 4 }
        // Classes: 0 field start, 1 word start, 2 inside a word.
        if alternative.wholeOnly, matchClass != 0 { return 4 }
        if alternative.mode == .words, matchClass == 2 { return 4 }
        if alternative.mode == .prefix, matchClass != 0 { return 4 }
        if matchClass == 0, alternative.whole {
            let (start, end) = column.bounds(ofSegment: segment)
            if end - start == alternative.pattern.bytes.count { return 0 }
        }
        if alternative.wholeOnly { return 4 }
        return matchClass + 1
    }
}

extension SearchIndex {
    /// Why a matching record ranks where it does for a `.ranked` query: each ranking rule's value
    /// for it, in the order the rules apply (`IndexConfiguration.rankingRules`; in `.fuzzy` mode
    /// the score first); nil where the query does not rank (see `rankingGroup(of:for:)`).
    ///
    /// ```swift
    /// try index.rankingExplanation(of: row, for: query)?.description
    /// // "typo 0 · exactness field start · attribute name · population 415367 · length 6"
    /// ```
    ///
    /// - Throws: `SiftError.staleHandle`, `SiftError.unknownScope`, `SiftError.queryTooLarge`, or
    ///   an ICU failure.
    /// - Complexity: O(*s*) per ranking alternative in the size of the record's searched fields.
    public func rankingExplanation(of handle: RecordHandle, for query: Query) throws -> RankingExplanation? {
        guard let buckets = try rankingBuckets(of: handle, for: query),
            let key = try rankingKey(of: handle, for: query)
        else { return nil }
        let plan = try scopePlan(of: query)
        var values: [RankingExplanation.Value] = []
        if let bucket = buckets.values {
            let ways = ["whole field", "field start", "word start", "inside a word", "other clause"]
            for rule in orders.rankingPlan.buckets {
                switch rule {
                case .typo: values.append(.init(rule: rule, value: "\(bucket.typos)"))
                case .exactness: values.append(.init(rule: rule, value: ways[bucket.way]))
                default:
                    values.append(.init(rule: rule, value: configuration.searchFields[plan.fields[bucket.field]]))
                }
            }
        } else {
            let fieldCount = plan.fields.count
            values.append(.init(rule: nil, value: "\(Int(SIFT_FUZZY_SCORE_LIMIT) - buckets.group / fieldCount)"))
            let field = configuration.searchFields[plan.fields[buckets.group % fieldCount]]
            values.append(.init(rule: .attribute, value: field))
        }
        var orderRules = configuration.rankingRules.filter { !$0.isBucketRule }
        if query.mode == .fuzzy { orderRules.sort { $0 == .length && $1 != .length } }
        for rule in orderRules {
            if case .custom(let tieBreak) = rule {
                let text = (try? value(of: tieBreak.field, for: handle)) ?? ""
                values.append(.init(rule: rule, value: text.isEmpty ? "none" : text))
            } else if orders.rankingPlan.sortsByLength || query.mode == .fuzzy {
                values.append(.init(rule: rule, value: "\(key.length)"))
            }
        }
        return RankingExplanation(values: values)
    }
}
