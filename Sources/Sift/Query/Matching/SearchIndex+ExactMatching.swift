internal import CSiftKernels
internal import SiftStorage

/// `MatchStrategy.exact`: the `.contains`, `.prefix` and `.words` modes without typos. A field
/// matches when the pattern's collation elements occur in its folded text contiguously, starting
/// where the anchor allows and accepted by ICU usearch's boundary rules (the column's flags); at
/// identical strength each hit is also checked for canonical equality. A full scan is
/// `sift_scan_sweep` (split among the cores by `ParallelSweep`); a longer pattern narrows the
/// cached candidates of one whose elements are its prefix, read as a list when they are few.
extension SearchIndex {
    /// Candidate and match status of one slot for an exact pattern: the C kernel's check of the
    /// slot's segment (and, at identical strength, ICU's canonical equality for every hit).
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluateExact(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        let folding = folded.foldings[key.folding]
        if key.identicalText != nil { return evaluateVerifyingEachHit(key, slot: slot) }
        // The C kernel, on the column in place (a copy of the column would retain and release each
        // of its buffers) and without allocating, so that an edit can re-check dozens of cached
        // patterns.
        let status = withKernelPattern(key) { pattern in
            folding.columns.readInPlace(key.field) {
                $0.scanOne(slot: slot, pattern: pattern, anchoredAtStart: key.anchor == .fieldStart)
            }
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

    /// Every segment of the key's column swept for an exact pattern. A column of many segments is
    /// split among the machine's cores (see `ParallelSweep`); this thread sweeps the first part and
    /// alone asks `isCancelled`.
    func fullScanExact(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        if key.identicalText != nil { return try fullScanVerifyingEachHit(key, isCancelled) }
        return try sweep(key, .one(atFieldStart: key.anchor == .fieldStart), isCancelled)[0]
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

    /// Whether narrowing `candidates` beats a full scan: when they are few (or the index fits in
    /// cache); past a fortieth of a large index a sequential sweep of the whole column (memory
    /// speed, SIMD) beats visiting scattered candidates, whose every visit is a cache miss. Both
    /// are exact.
    func exactNarrowsFrom(_ candidates: Bitset) -> Bool {
        orders.order.count < 4096 || candidates.count * 40 < orders.order.count
    }

    /// An exact pattern checked in the candidates of `base` only: a list when they are few,
    /// else the kernel's pass over the base's words.
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records (plus O(*n* / 64) for a base
    ///   held as bits).
    func narrowedScanExact(
        _ key: MatchKey,
        candidates base: Bitset,
        _ run: inout QueryRun
    ) throws -> FieldMatch {
        // A base of few candidates is a list already (`store(_:for:)` made it one).
        if key.identicalText == nil, let slots = base.sparseMembers {
            return try narrowedScanOfList(key, candidates: slots, &run)
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
                if examined & 0x3FFF == 0, run.isCancelled() { throw CancellationError() }
            }
        } else {
            let cancelled = run.isCancelled
            try column.withKernelView { view in
                try withKernelPattern(key) { pattern in
                    try base.words.withUnsafeBufferPointer { baseWords in
                        try matched.withUnsafeMutableWords { matchedWords in
                            try candidates.withUnsafeMutableWords { candidateWords in
                                examined = try scanCandidateChunksInParallel(baseWords, cancelled) { first, last in
                                    var view = view
                                    var pattern = pattern
                                    return sift_scan_candidates(
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
        run.statistics.candidatesExamined += examined
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
        _ run: inout QueryRun
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
        run.statistics.candidatesExamined += examined
        try run.checkCancellation()
        return FieldMatch(
            matched: Bitset(sparse: matched, capacity: slotCapacity),
            candidates: Bitset(sparse: candidates, capacity: slotCapacity)
        )
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
