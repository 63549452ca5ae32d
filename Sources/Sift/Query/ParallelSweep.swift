internal import CSiftKernels
internal import Dispatch
internal import Synchronization

/// A full scan of one column split among the machine's cores: each worker sweeps a contiguous
/// range of segments into bitsets of its own, and the union is the scan's answer (exactly what one
/// sweep of every segment gives, since a segment's bits depend on that segment alone).
///
/// The calling thread sweeps the first range and is the only one to call `isCancelled` (the
/// closure may read state of the caller's isolation); when it reports cancellation the other
/// workers stop at their next chunk. The column's buffers, which `view` points into, stay valid
/// and unchanged because the call does not return before every worker has finished.
struct ParallelSweep {
    let view: sift_column_view
    let pattern: sift_scan_pattern
    let anchored: Bool
    let slotCapacity: Int
    /// The fewest segments worth a worker of their own.
    let segmentsPerWorker: Int
    /// The most workers, the calling thread included.
    let maximumWorkers: Int

    /// Sweeps every segment, `chunk` segments between two cancellation checks.
    ///
    /// - Complexity: O(*n*) in the size of the column, divided among up to `cores` workers.
    func run(chunk: Int, _ isCancelled: () -> Bool) throws -> FieldMatch {
        let segmentCount = view.segmentCount
        let workers = max(1, min(maximumWorkers, segmentCount / max(1, segmentsPerWorker)))
        // Ranges start at multiples of 64 segments (one bitset word of fast-path segments each).
        let share = ((segmentCount + workers - 1) / workers + 63) & ~63
        let ranges = (0..<workers).map { i in min(segmentCount, i * share)..<min(segmentCount, (i + 1) * share) }
        var result = FieldMatch(matched: Bitset(capacity: slotCapacity), candidates: Bitset(capacity: slotCapacity))
        guard workers > 1 else {
            try sweep(ranges[0], chunk: chunk, into: &result) { if isCancelled() { throw CancellationError() } }
            return result
        }
        let stop = StopFlag()
        let others = WorkerResults<FieldMatch>(count: workers)
        let group = DispatchGroup()
        let job = SweepJob(sweep: self, ranges: ranges, chunk: chunk, stop: stop, results: others)
        for worker in 1..<workers {
            DispatchQueue.global(qos: .userInitiated).async(group: group) { job.run(worker) }
        }
        do {
            try sweep(ranges[0], chunk: chunk, into: &result) {
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
        let matches = others.values
        for worker in 1..<workers {
            guard let match = matches[worker] else { throw CancellationError() }
            result.matched.formUnion(match.matched)
            result.candidates.formUnion(match.candidates)
        }
        return result
    }

    /// Sweeps `range` into `result`, calling `check` after every chunk.
    func sweep(_ range: Range<Int>, chunk: Int, into result: inout FieldMatch, check: () throws -> Void) throws {
        var view = view
        var pattern = pattern
        let anchored: Int32 = anchored ? 1 : 0
        try result.matched.withUnsafeMutableWords { matched in
            try result.candidates.withUnsafeMutableWords { candidates in
                var segment = range.lowerBound
                while segment < range.upperBound {
                    let next = min(range.upperBound, segment + chunk)
                    sift_sweep_segments(&view, &pattern, segment, next, anchored, matched, candidates)
                    segment = next
                    try check()
                }
            }
        }
    }
}

/// Set by the calling thread when the scan is cancelled; read by the other workers.
private final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

/// A worker's part of a `ParallelSweep`: it reads the column through the sweep's view (the
/// caller waits until every worker has finished) and writes only its own result slot.
private struct SweepJob: @unchecked Sendable {
    let sweep: ParallelSweep
    let ranges: [Range<Int>]
    let chunk: Int
    let stop: StopFlag
    let results: WorkerResults<FieldMatch>

    func run(_ worker: Int) {
        var match = FieldMatch(
            matched: Bitset(capacity: sweep.slotCapacity),
            candidates: Bitset(capacity: sweep.slotCapacity)
        )
        do {
            try sweep.sweep(ranges[worker], chunk: chunk, into: &match) {
                if stop.flag.load(ordering: .relaxed) { throw CancellationError() }
            }
            results.set(worker, match)
        } catch {}
    }
}
