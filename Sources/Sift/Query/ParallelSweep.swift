internal import CSiftKernels
internal import Dispatch
internal import SiftStorage
internal import Synchronization

/// A full scan of one column split among the machine's cores: each worker sweeps a contiguous
/// range of segments, and the union of what they find is the scan's answer (exactly what one
/// sweep of every segment gives, since a segment's bits depend on that segment alone).
///
/// Where every segment belongs to the slot of its number (`workersShareOutputs`: after a bulk
/// load or a compaction), a worker's range of segments (aligned to 64) sets bits in its own words
/// of the result only, so all workers write into one shared result: no buffer per worker, no
/// merge, and the memory a scan touches does not grow with the core count. Otherwise (a record
/// moved to a segment of another number by an edit) each other worker sweeps into full-size
/// bitsets of its own, merged into the calling thread's at the end.
///
/// A sweep finds the pattern under one anchor, or under all three at once (`.ranked`: anywhere,
/// at a word start, at the field's start, the classes of a ranked query), in one pass.
///
/// The calling thread sweeps the first range and is the only one to call `isCancelled` (the
/// closure may read state of the caller's isolation); when it reports cancellation the other
/// workers stop at their next chunk. The column's buffers, which `view` points into, stay valid
/// and unchanged because the call does not return before every worker has finished.
struct ParallelSweep {
    let view: sift_column_view
    let pattern: sift_scan_pattern
    let anchors: Anchors
    let slotCapacity: Int
    /// The fewest segments worth a worker of their own.
    let segmentsPerWorker: Int
    /// The most workers, the calling thread included.
    let maximumWorkers: Int
    /// Whether every segment belongs to the slot of its own number, so that workers may write
    /// into one shared result (see the type's description).
    let workersShareOutputs: Bool

    /// What one pass finds.
    enum Anchors {
        /// The pattern anywhere (and, as the pattern says, at a word start), or only at the start.
        case one(atFieldStart: Bool)
        /// Three results: the pattern anywhere, at a word start, and at the field's start.
        case ranked
        /// The pattern's elements in order, not necessarily adjacent (one result, its candidates
        /// equal to its matches).
        case fuzzy
        /// A fuzzy pattern, each match's score written at its owner in `scores` (one entry per slot;
        /// see `sift_fuzzy_sweep_scores`). Workers write disjoint entries.
        case fuzzyScores(UnsafeMutablePointer<UInt16>)
        /// A record word (the pattern's `requireWordStart`), or the field from its start, a prefix
        /// of which is within `maxEdits` of the pattern (one result, its candidates equal to its
        /// matches; see `TypoTolerance`).
        case typos(maxEdits: Int)
    }

    /// The words of a sweep's results: one (matched, candidates) pair per anchor it finds.
    struct Outputs: @unchecked Sendable {
        var matched: [UnsafeMutablePointer<UInt64>]
        var candidates: [UnsafeMutablePointer<UInt64>]
    }

    /// Sweeps every segment, `chunk` segments between two cancellation checks: one result, or
    /// for `.ranked` three (anywhere, at a word start, at the field's start).
    ///
    /// - Complexity: O(*n*) in the size of the column, divided among up to `maximumWorkers`
    ///   workers; O(*n* / 64) more per worker for the merge unless `workersShareOutputs`.
    func run(chunk: Int, _ isCancelled: () -> Bool) throws -> [FieldMatch] {
        let segmentCount = view.segmentCount
        let workers = max(1, min(maximumWorkers, segmentCount / max(1, segmentsPerWorker)))
        // Ranges start at multiples of 64 segments (one bitset word of fast-path segments each).
        let share = ((segmentCount + workers - 1) / workers + 63) & ~63
        let ranges = (0..<workers).map { i in min(segmentCount, i * share)..<min(segmentCount, (i + 1) * share) }
        var result = emptyResult()
        let stop = StopFlag()
        func checkFirst() throws {
            if isCancelled() {
                stop.flag.store(true, ordering: .relaxed)
                throw CancellationError()
            }
        }
        guard workers > 1 else {
            try Self.withOutputs(&result) { try sweep(ranges[0], chunk: chunk, into: $0, check: checkFirst) }
            return result
        }
        let group = DispatchGroup()
        if workersShareOutputs {
            try Self.withOutputs(&result) { outputs in
                let job = SweepJob(sweep: self, ranges: ranges, chunk: chunk, stop: stop, into: .shared(outputs))
                for worker in 1..<workers {
                    DispatchQueue.global(qos: .userInitiated).async(group: group) { job.run(worker) }
                }
                defer { group.wait() }
                try sweep(ranges[0], chunk: chunk, into: outputs, check: checkFirst)
            }
            // A worker stops early only when the calling thread was cancelled, which threw above.
            return result
        }
        let others = WorkerResults<[FieldMatch]>(count: workers)
        let job = SweepJob(sweep: self, ranges: ranges, chunk: chunk, stop: stop, into: .own(others))
        for worker in 1..<workers {
            DispatchQueue.global(qos: .userInitiated).async(group: group) { job.run(worker) }
        }
        do {
            try Self.withOutputs(&result) { try sweep(ranges[0], chunk: chunk, into: $0, check: checkFirst) }
        } catch {
            group.wait()
            throw error
        }
        group.wait()
        let matches = others.values
        for worker in 1..<workers {
            guard let match = matches[worker] else { throw CancellationError() }
            for (index, part) in match.enumerated() {
                result[index].matched.formUnion(part.matched)
                result[index].candidates.formUnion(part.candidates)
            }
        }
        return result
    }

    /// Empty results for one worker: one per anchor the sweep finds.
    func emptyResult() -> [FieldMatch] {
        let count = if case .ranked = anchors { 3 } else { 1 }
        return (0..<count).map { _ in
            FieldMatch(matched: Bitset(capacity: slotCapacity), candidates: Bitset(capacity: slotCapacity))
        }
    }

    /// Calls `body` with the words of `result`'s bitsets (one or three results), which it may
    /// write until it returns.
    static func withOutputs<R>(_ result: inout [FieldMatch], _ body: (Outputs) throws -> R) rethrows -> R {
        if result.count == 1 {
            var match = result[0]
            result = []  // the bitsets' only references: no copy on write
            defer { result = [match] }
            return try match.matched.withUnsafeMutableWords { matched in
                try match.candidates.withUnsafeMutableWords { candidates in
                    try body(Outputs(matched: [matched], candidates: [candidates]))
                }
            }
        }
        precondition(result.count == 3, "a sweep finds one result or three")
        var (anywhere, atWord, atStart) = (result[0], result[1], result[2])
        result = []  // the bitsets' only references: no copy on write
        defer { result = [anywhere, atWord, atStart] }
        return try anywhere.matched.withUnsafeMutableWords { matchedAnywhere in
            try anywhere.candidates.withUnsafeMutableWords { candidatesAnywhere in
                try atWord.matched.withUnsafeMutableWords { matchedAtWord in
                    try atWord.candidates.withUnsafeMutableWords { candidatesAtWord in
                        try atStart.matched.withUnsafeMutableWords { matchedAtStart in
                            try atStart.candidates.withUnsafeMutableWords { candidatesAtStart in
                                try body(
                                    Outputs(
                                        matched: [matchedAnywhere, matchedAtWord, matchedAtStart],
                                        candidates: [candidatesAnywhere, candidatesAtWord, candidatesAtStart]
                                    )
                                )
                            }
                        }
                    }
                }
            }
        }
    }

    /// Sweeps `range` into `outputs`, calling `check` after every chunk.
    func sweep(_ range: Range<Int>, chunk: Int, into outputs: Outputs, check: () throws -> Void) throws {
        var view = view
        var pattern = pattern
        func eachChunk(_ body: (Int, Int) -> Void) throws {
            var segment = range.lowerBound
            while segment < range.upperBound {
                let next = min(range.upperBound, segment + chunk)
                body(segment, next)
                segment = next
                try check()
            }
        }
        let (matched, candidates) = (outputs.matched[0], outputs.candidates[0])
        switch anchors {
        case .one(let atFieldStart):
            try eachChunk { first, last in
                sift_sweep_segments(&view, &pattern, first, last, atFieldStart ? 1 : 0, matched, candidates)
            }
        case .fuzzy:
            try eachChunk { first, last in sift_fuzzy_sweep(&view, &pattern, first, last, matched) }
        case .fuzzyScores(let scores):
            var scratch = [Int](repeating: 0, count: max(1, pattern.length))
            try scratch.withUnsafeMutableBufferPointer { scratch in
                try eachChunk { first, last in
                    sift_fuzzy_sweep_scores(&view, &pattern, first, last, matched, scores, scratch.baseAddress!)
                }
            }
        case .typos(let maxEdits):
            try eachChunk { first, last in sift_typo_sweep(&view, &pattern, first, last, Int32(maxEdits), matched) }
        case .ranked:
            var ranked = sift_ranked_outputs(
                matchedAnywhere: outputs.matched[0],
                candidatesAnywhere: outputs.candidates[0],
                matchedAtWordStart: outputs.matched[1],
                candidatesAtWordStart: outputs.candidates[1],
                matchedAtFieldStart: outputs.matched[2],
                candidatesAtFieldStart: outputs.candidates[2]
            )
            try eachChunk { first, last in sift_sweep_segments_ranked(&view, &pattern, first, last, &ranked) }
        }
    }
}

/// Set by the calling thread when the scan is cancelled; read by the other workers.
final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

/// A worker's part of a `ParallelSweep`: it reads the column through the sweep's view (the
/// caller waits until every worker has finished) and writes either its own words of the shared
/// outputs or a result of its own.
private struct SweepJob: @unchecked Sendable {
    /// Where the workers' bits go.
    enum Destination {
        /// Into the one result every worker writes (each its own words of it).
        case shared(ParallelSweep.Outputs)
        /// Into bitsets of each worker's own, left in its slot here for the calling thread.
        case own(WorkerResults<[FieldMatch]>)
    }

    let sweep: ParallelSweep
    let ranges: [Range<Int>]
    let chunk: Int
    let stop: StopFlag
    let into: Destination

    func run(_ worker: Int) {
        let check = { if stop.flag.load(ordering: .relaxed) { throw CancellationError() } }
        do {
            switch into {
            case .shared(let outputs):
                try sweep.sweep(ranges[worker], chunk: chunk, into: outputs, check: check)
            case .own(let results):
                var match = sweep.emptyResult()
                try ParallelSweep.withOutputs(&match) {
                    try sweep.sweep(ranges[worker], chunk: chunk, into: $0, check: check)
                }
                results.set(worker, match)
            }
        } catch {}
    }
}
