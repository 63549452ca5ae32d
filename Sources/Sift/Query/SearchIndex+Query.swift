/// A query folded under one collation.
enum FoldedQuery {
    /// No collation elements at all (empty, or only ignorable characters): every record matches.
    case everything
    /// Some element never occurs in the index: nothing can match.
    case nothing
    /// One pattern (contains, prefix) or one per query word (words), with its text.
    case patterns([(bytes: [UInt8], text: String)])
}

extension SearchIndex {
    /// Answers a query: the matching records in result order, and a match count for every scope.
    ///
    /// The query's text is folded with the scope's collator; each searched field is then scanned
    /// for the folded pattern. When a cached pattern is a prefix of this one (the user typed one
    /// more character), only its candidates are scanned; an identical cached pattern (backspace)
    /// answers at once. Reuse happens only where it is provably exact under the collator: the
    /// cached pattern's collation elements must be a prefix of the new pattern's, so Danish `a` →
    /// `aa` (one element `å`) or Czech `c` → `ch` rescan the whole field.
    ///
    /// - Parameters:
    ///   - query: text, scope, mode and order.
    ///   - isCancelled: polled during long scans; when it returns true the search throws
    ///     `CancellationError`.
    /// - Throws: `SiftError.unknownScope`, an ICU failure, or `CancellationError`.
    /// - Complexity: O(*n*) in the folded size of the searched fields for a full scan; O(*k*) in
    ///   the size of the *k* candidate records when narrowing; O(1) per field on a cache hit; plus
    ///   O(*m* log *m*) to order *m* results.
    public func search(_ query: Query, isCancelled: () -> Bool = { false }) throws -> SearchResult {
        guard let selected = scopePlans.firstIndex(where: { $0.scope.name == query.scope }) else {
            throw SiftError.unknownScope(query.scope)
        }
        let length = query.text.count
        var statistics = QueryStatistics()
        var foldedQueries: [Int: FoldedQuery] = [:]
        var counts: [SearchResult.ScopeCount] = []
        var selectedBits: Bitset? = nil
        var selectedState = SearchResult.State.all
        for (index, plan) in scopePlans.enumerated() {
            let state: SearchResult.State =
                length == 0 ? .all : length < plan.scope.minimumLength ? .tooShort(needed: plan.scope.minimumLength) : .matches
            var bits: Bitset? = nil
            switch state {
            case .all:
                bits = filterMembers(plan)
            case .tooShort:
                bits = nil
            case .matches:
                let folded = try foldedQueries[plan.folding] ?? foldQuery(query.text, mode: query.mode, folding: plan.folding)
                foldedQueries[plan.folding] = folded
                var matches = try scopeMatches(plan, folded, mode: query.mode, &statistics, isCancelled)
                matches.formIntersection(filterMembers(plan))
                bits = matches
            }
            counts.append(.init(scope: plan.scope.name, count: bits?.count))
            if index == selected {
                selectedBits = bits
                selectedState = state
            }
        }
        var rows: [RecordHandle] = []
        if let bits = selectedBits {
            let plan = scopePlans[selected]
            let ranked = query.order == .ranked && selectedState == .matches
            rows = try orderedRows(
                bits, order: ranked ? .original : query.order, isCancelled: isCancelled)
            if ranked, case .patterns(let patterns)? = foldedQueries[plan.folding] {
                rows = rank(rows, plan: plan, patterns: patterns, mode: query.mode)
            }
        }
        return SearchResult(
            query: query, state: selectedState, rows: rows, scopeCounts: counts, revision: revision,
            statistics: statistics)
    }

    /// Whether one record matches a query in the query's scope (for re-evaluating edited records
    /// against a live query without searching everything).
    ///
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    public func matches(_ handle: RecordHandle, _ query: Query) throws -> Bool {
        let slot = try resolve(handle)
        guard let plan = scopePlans.first(where: { $0.scope.name == query.scope }) else {
            throw SiftError.unknownScope(query.scope)
        }
        if !filterMembers(plan).contains(slot) { return false }
        let length = query.text.count
        if length == 0 { return true }
        if length < plan.scope.minimumLength { return false }
        switch try foldQuery(query.text, mode: query.mode, folding: plan.folding) {
        case .everything: return true
        case .nothing: return false
        case .patterns(let patterns):
            let anchor = Self.anchor(for: query.mode)
            return patterns.allSatisfy { pattern in
                plan.fields.contains { field in
                    evaluate(key(plan, field, anchor, pattern), slot: slot).matched
                }
            }
        }
    }

    // MARK: - Folding the query

    func foldQuery(_ text: String, mode: MatchMode, folding index: Int) throws(SiftError) -> FoldedQuery {
        let folding = foldings[index]
        let pieces: [String] = mode == .words ? try folding.folder.queryWords(text).map(String.init) : [text]
        var patterns: [(bytes: [UInt8], text: String)] = []
        for piece in pieces {
            let elements = try folding.folder.patternElements(piece)
            if elements.isEmpty { continue }
            guard let bytes = folding.codeBook.encode(elements) else { return .nothing }
            if !patterns.contains(where: { $0.bytes == bytes && $0.text == piece }) { patterns.append((bytes, piece)) }
        }
        return patterns.isEmpty ? .everything : .patterns(patterns)
    }

    static func anchor(for mode: MatchMode) -> Anchor {
        switch mode {
        case .contains: return .anywhere
        case .prefix: return .fieldStart
        case .words: return .wordStart
        }
    }

    func key(_ plan: ScopePlan, _ field: Int, _ anchor: Anchor, _ pattern: (bytes: [UInt8], text: String)) -> MatchKey {
        let identical = foldings[plan.folding].collation.strength == .identical
        return MatchKey(
            folding: plan.folding, field: field, anchor: anchor, pattern: pattern.bytes,
            identicalText: identical ? pattern.text : nil)
    }

    // MARK: - Scope and field results

    private func scopeMatches(
        _ plan: ScopePlan, _ folded: FoldedQuery, mode: MatchMode, _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> Bitset {
        switch folded {
        case .everything: return live
        case .nothing: return Bitset()
        case .patterns(let patterns):
            let anchor = Self.anchor(for: mode)
            var result: Bitset? = nil
            for pattern in patterns {
                var any = Bitset()
                for field in plan.fields {
                    any.formUnion(try fieldMatch(key(plan, field, anchor, pattern), &statistics, isCancelled).matched)
                }
                if result == nil { result = any } else { result!.formIntersection(any) }
            }
            return result ?? live
        }
    }

    /// The records one field pattern matches: from the cache, by narrowing a cached shorter
    /// pattern's candidates, or by a full scan of the column.
    func fieldMatch(_ key: MatchKey, _ statistics: inout QueryStatistics, _ isCancelled: () -> Bool) throws
        -> FieldMatch
    {
        if let hit = cache.lookup(key) {
            statistics.cacheHits += 1
            return hit
        }
        let result: FieldMatch
        if let base = cache.narrowingBase(for: key) {
            statistics.narrowedScans += 1
            result = try narrowedScan(key, candidates: base.candidates, &statistics, isCancelled)
        } else {
            statistics.fullScans += 1
            result = try fullScan(key, isCancelled)
        }
        cache.store(result, for: key)
        return result
    }

    /// Candidate and match status of one slot for a field pattern.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluate(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        let column = foldings[key.folding].columns[key.field]
        guard let segment = column.segment(ofSlot: slot) else { return (false, false) }
        let (start, end) = column.bounds(ofSegment: segment)
        return withScanner(column, key) { scanner in
            scanner.scan(start: start, end: end, verify: verifier(key, slot: slot, segment: segment))
        }
    }

    private func withScanner<R>(_ column: FoldedColumn, _ key: MatchKey, _ body: (ColumnScanner) throws -> R) rethrows
        -> R
    {
        try column.codes.withUnsafeBufferPointer { codes in
            try column.flags.withUnsafeBufferPointer { flags in
                try key.pattern.withUnsafeBufferPointer { pattern in
                    try body(ColumnScanner(codes: codes, flags: flags, pattern: pattern, anchor: key.anchor))
                }
            }
        }
    }

    /// At identical strength, ICU also requires the matched text to be canonically equal to the
    /// pattern; this checks a hit against the record's original text.
    private func verifier(_ key: MatchKey, slot: Int32, segment: Int) -> ((Int) -> Bool)? {
        guard let patternText = key.identicalText else { return nil }
        let folding = foldings[key.folding]
        let column = folding.columns[key.field]
        let text = value(at: key.field, slot: slot)
        return { hit in
            let (start, _) = column.bounds(ofSegment: segment)
            var element = 0
            for i in start..<hit where CodeBook.isLead(column.codes[i]) { element += 1 }
            var patternElements = 0
            for byte in key.pattern where CodeBook.isLead(byte) { patternElements += 1 }
            let (lows, limits) = column.elementOffsets(ofSegment: segment)
            let last = element + patternElements - 1
            guard last < limits.count else { return false }
            return folding.folder.canonicallyEqual(text, utf16Range: lows[element], limits[last], pattern: patternText)
        }
    }

    private func fullScan(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        let column = foldings[key.folding].columns[key.field]
        var matched = Bitset(capacity: live.capacity)
        var candidates = Bitset(capacity: live.capacity)
        let owners = column.segmentOwners
        try column.segmentStarts.withUnsafeBufferPointer { starts in
            try withScanner(column, key) { scanner in
                if key.anchor == .fieldStart {
                    for segment in 0..<starts.count where owners[segment] >= 0 {
                        let (start, end) = column.bounds(ofSegment: segment)
                        let owner = owners[segment]
                        let (candidate, match) = scanner.scan(
                            start: start, end: end, verify: verifier(key, slot: owner, segment: segment))
                        if candidate { candidates.insert(owner) }
                        if match { matched.insert(owner) }
                        if segment & 0x3FFF == 0, isCancelled() { throw CancellationError() }
                    }
                    return
                }
                var position = 1
                var segment = 0
                var nextCheck = 1 << 18
                while let hit = scanner.find(from: position, to: scanner.byteCount) {
                    segment = Sift.segment(containing: hit, in: starts, from: segment)
                    let owner = owners[segment]
                    let (_, end) = column.bounds(ofSegment: segment)
                    if owner < 0 {
                        position = end + 1
                        continue
                    }
                    if scanner.isCandidate(hit) {
                        candidates.insert(owner)
                        if scanner.endsMatch(hit)
                            && (key.identicalText == nil || verifier(key, slot: owner, segment: segment)!(hit))
                        {
                            matched.insert(owner)
                            position = end + 1
                            continue
                        }
                    }
                    position = hit + 1
                    if position >= nextCheck {
                        if isCancelled() { throw CancellationError() }
                        nextCheck = position + (1 << 18)
                    }
                }
            }
        }
        return FieldMatch(matched: matched, candidates: candidates)
    }

    private func narrowedScan(
        _ key: MatchKey, candidates base: Bitset, _ statistics: inout QueryStatistics, _ isCancelled: () -> Bool
    ) throws -> FieldMatch {
        let column = foldings[key.folding].columns[key.field]
        var matched = Bitset(capacity: live.capacity)
        var candidates = Bitset(capacity: live.capacity)
        var examined = 0
        try withScanner(column, key) { scanner in
            try base.forEach { slot in
                guard let segment = column.segment(ofSlot: slot) else { return }
                let (start, end) = column.bounds(ofSegment: segment)
                let (candidate, match) = scanner.scan(
                    start: start, end: end, verify: verifier(key, slot: slot, segment: segment))
                if candidate { candidates.insert(slot) }
                if match { matched.insert(slot) }
                examined += 1
                if examined & 0x3FFF == 0, isCancelled() { throw CancellationError() }
            }
        }
        statistics.candidatesExamined += examined
        return FieldMatch(matched: matched, candidates: candidates)
    }

    // MARK: - Ordering

    /// Members of `bits` in original or sorted order.
    private func orderedRows(_ bits: Bitset, order: ResultOrder, isCancelled: () -> Bool) throws -> [RecordHandle] {
        let list = order == .sorted ? sortedOrder : self.order
        let count = bits.count
        var slots: [Int32]
        if count * 16 >= list.count {
            slots = []
            slots.reserveCapacity(count)
            for slot in list where bits.contains(slot) { slots.append(slot) }
        } else {
            slots = bits.members
            if order == .sorted {
                slots.sort { sortedRank(ofSlot: $0) < sortedRank(ofSlot: $1) }
            } else {
                slots.sort { rank(ofSlot: $0) < rank(ofSlot: $1) }
            }
        }
        if isCancelled() { throw CancellationError() }
        return slots.map { handle(ofSlot: $0) }
    }

    /// Stable partition into prefix matches, word-start matches and inner matches.
    private func rank(
        _ rows: [RecordHandle], plan: ScopePlan, patterns: [(bytes: [UInt8], text: String)], mode: MatchMode
    ) -> [RecordHandle] {
        guard mode != .prefix, let first = patterns.first else { return rows }
        var groups: [[RecordHandle]] = [[], [], []]
        for row in rows {
            var best = 2
            for field in plan.fields {
                let key = key(plan, field, mode == .words ? .anywhere : .anywhere, first)
                let column = foldings[plan.folding].columns[field]
                guard let segment = column.segment(ofSlot: row.slot) else { continue }
                let (start, end) = column.bounds(ofSegment: segment)
                let matchClass = withScanner(column, key) { scanner in
                    scanner.bestClass(start: start, end: end, verify: verifier(key, slot: row.slot, segment: segment))
                }
                if let matchClass { best = min(best, matchClass) }
                if best == 0 { break }
            }
            groups[mode == .words ? min(best, 1) : best].append(row)
        }
        return groups[0] + groups[1] + groups[2]
    }
}
