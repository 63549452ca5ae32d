internal import CSiftKernels
internal import Dispatch
internal import SiftStorage
internal import Synchronization

extension SearchIndex {
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
                    maximumWorkers: knobs.scanWorkers,
                    workersShareOutputs: column.everySegmentIsHome
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
        _ run: inout QueryRun
    ) throws {
        for field in plan.fields {
            let anchors: [Anchor] = [.anywhere, .wordStart, .fieldStart]
            let keys = anchors.map { key(plan, field, $0, firstPattern) }
            let own = keys[mode == .words ? 1 : 0]
            // Served or narrowed here (and stored) when it can be: the query's own scan of the
            // field then finds it in the cache; the anchored ones narrow from it.
            guard own.identicalText == nil, try cachedOrNarrowed(own, &run) == nil else {
                continue
            }
            let results = try rankedFullScan(own, run.isCancelled)
            run.statistics.fullScans += 1
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

    /// A narrowed scan whose kernel sets only matches (fuzzy and typo keys: their candidates are
    /// their matches): `kernel` checks the candidates of words `first..<last` of `base`, given the
    /// column's view, the pattern and the column's slot count, sets the matches' bits and returns
    /// how many candidates it examined.
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    func matchesOnlyNarrowedScan(
        _ key: MatchKey,
        candidates base: Bitset,
        _ run: inout QueryRun,
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
                        examined = try scanCandidateChunksInParallel(baseWords, run.isCancelled) { first, last in
                            var view = view
                            var pattern = pattern
                            return kernel(
                                &view,
                                &pattern,
                                column.slotCount,
                                baseWords.baseAddress!,
                                first,
                                last,
                                matchedWords
                            )
                        }
                    }
                }
            }
        }
        run.statistics.candidatesExamined += examined
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
        try Self.scanWordChunks(0..<base.count, scan) { if isCancelled() { throw CancellationError() } }
    }

    /// Calls `scan` over `words` 1,024 at a time, then `check`; returns the sum of what `scan`
    /// returned. The loop of `scanCandidateChunks` and of each worker of the parallel one.
    static func scanWordChunks(
        _ words: Range<Int>,
        _ scan: (_ firstWord: Int, _ lastWord: Int) -> Int,
        check: () throws -> Void
    ) throws -> Int {
        var examined = 0
        var word = words.lowerBound
        while word < words.upperBound {
            let next = min(words.upperBound, word + 1024)
            examined += scan(word, next)
            word = next
            try check()
        }
        return examined
    }

    /// `scanCandidateChunks` split among the cores when the base has enough members
    /// (`TuningKnobs.parallelScanSegments` a worker, at most `scanWorkers` workers): each worker
    /// scans its own range of the base's words, 1,024 at a time. `scan` is called concurrently,
    /// so it may write only the words of the range it is given (a narrowed scan's kernel sets
    /// the bits of the candidates it examines, which lie in those words) and must not change
    /// anything else. This thread scans the first range and alone asks `isCancelled`; the others
    /// stop at their next chunk once it has.
    ///
    /// - Complexity: O(*n* / 64) for *n* slots, plus what `scan` does, divided among the workers.
    func scanCandidateChunksInParallel(
        _ base: UnsafeBufferPointer<UInt64>,
        _ isCancelled: () -> Bool,
        _ scan: (_ firstWord: Int, _ lastWord: Int) -> Int
    ) throws -> Int {
        let members = base.reduce(0) { $0 + $1.nonzeroBitCount }
        let workers = max(1, min(knobs.scanWorkers, members / max(1, knobs.parallelScanSegments)))
        guard workers > 1 else { return try scanCandidateChunks(base, isCancelled, scan) }
        let share = (base.count + workers - 1) / workers
        let ranges = (0..<workers).map { min(base.count, $0 * share)..<min(base.count, ($0 + 1) * share) }
        let stop = StopFlag()
        let others = WorkerResults<Int>(count: workers)
        return try withoutActuallyEscaping(scan) { scan in
            let job = CandidateScanJob(scan: scan, ranges: ranges, stop: stop, results: others)
            let group = DispatchGroup()
            for worker in 1..<workers {
                DispatchQueue.global(qos: .userInitiated).async(group: group) { job.run(worker) }
            }
            var examined = 0
            do {
                examined = try Self.scanWordChunks(ranges[0], scan) {
                    if isCancelled() {
                        stop.flag.store(true, ordering: .relaxed)
                        throw CancellationError()
                    }
                }
            } catch {
                group.wait()
                throw error
            }
            group.wait()
            for count in others.values.dropFirst() {
                guard let count else { throw CancellationError() }
                examined += count
            }
            return examined
        }
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

/// A worker's part of `scanCandidateChunksInParallel`: its range of the base's words, scanned
/// 1,024 words at a time; the caller waits until every worker has finished.
private struct CandidateScanJob: @unchecked Sendable {
    let scan: (Int, Int) -> Int
    let ranges: [Range<Int>]
    let stop: StopFlag
    let results: WorkerResults<Int>

    func run(_ worker: Int) {
        let count = try? SearchIndex.scanWordChunks(ranges[worker], scan) {
            if stop.flag.load(ordering: .relaxed) { throw CancellationError() }
        }
        if let count { results.set(worker, count) }
    }
}
