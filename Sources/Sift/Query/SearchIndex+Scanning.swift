internal import CSiftKernels

extension SearchIndex {
    /// Candidate and match status of one slot for a field pattern.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluate(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        if key.typos > 0 { return evaluateTypos(key, slot: slot) }
        if key.anchor == .fuzzy { return evaluateFuzzy(key, slot: slot) }
        let folding = folded.foldings[key.folding]
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
    func evaluateVerifyingEachHit(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        let column = folded.foldings[key.folding].columns[key.field]
        guard let segment = column.segment(ofSlot: slot) else { return (false, false) }
        return SegmentScanner(column: column, segment: segment, pattern: key.pattern, anchor: key.anchor)
            .scan(verify: verifier(key, slot: slot, segment: segment))
    }

    /// At identical strength, ICU also requires the matched text to be canonically equal to the
    /// pattern; this checks a hit (a segment-relative byte offset) against the record's text.
    func verifier(_ key: MatchKey, slot: Int32, segment: Int) -> ((Int) -> Bool)? {
        guard let patternText = key.identicalText else { return nil }
        let folding = folded.foldings[key.folding]
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
        if key.anchor == .fuzzy, caches.scoresFuzzyMatches { return try fuzzyScoringFullScan(key, isCancelled) }
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
        let column = folded.foldings[key.folding].columns[key.field]
        let chunk = max(1, knobs.scanChunkBytes / 16)
        return try column.withKernelView { view in
            try withKernelPattern(key) { pattern in
                try ParallelSweep(
                    view: view,
                    pattern: pattern,
                    anchors: anchors,
                    slotCapacity: slotCapacity,
                    segmentsPerWorker: knobs.parallelScanSegments,
                    maximumWorkers: knobs.scanWorkers
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
    func sweepRankingAnchors(
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
    func fullScanVerifyingEachHit(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        let column = folded.foldings[key.folding].columns[key.field]
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

    func narrowedScan(
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
        if key.anchor == .fuzzy, caches.scoresFuzzyMatches {
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
        let column = folded.foldings[key.folding].columns[key.field]
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
    func narrowedScanOfList(
        _ key: MatchKey,
        candidates slots: [Int32],
        _ statistics: inout QueryStatistics,
        _ isCancelled: () -> Bool
    ) throws -> FieldMatch {
        guard !slots.isEmpty else {
            let none = Bitset(sparse: [], capacity: slotCapacity)
            return FieldMatch(matched: none, candidates: none)
        }
        let column = folded.foldings[key.folding].columns[key.field]
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
        let column = folded.foldings[key.folding].columns[key.field]
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
