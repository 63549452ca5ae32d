import Foundation
import RecordGenerator
import Sift

struct SustainedOptions {
    /// Edits of the stable-size phase (a third each of inserts, updates and deletes).
    var edits: Int
    /// One keystroke of the trace after every this many edits.
    var searchEvery: Int
    /// Share of the records the mass-deletion phase deletes (0: no such phase).
    var deleteFraction: Double
    /// Memory checkpoints in the stable-size phase (the mass-deletion phase has two: half-way, end).
    var checkpoints: Int
    var mode: MatchMode
    var syntax: QuerySyntax = .operators
    var repetitions: Int
    var pin: Bool
    var showProgress: Bool
    var seed: UInt64
}

/// The sustained workload (`--sustained N`): a million mixed edits on a steady-size index with the
/// trace's keystrokes in between, then a mass deletion, with the index's memory at checkpoints
/// against a fresh build of the same records, and every checkpoint's trace answers compared with
/// the fresh build's.
final class SustainedBench {
    let corpus: Corpus
    let trace: Trace
    let options: SustainedOptions
    /// Checkpoints whose answers differ from a fresh build's.
    private(set) var failures: [String] = []

    init(corpus: Corpus, trace: Trace, options: SustainedOptions) {
        self.corpus = corpus
        self.trace = trace
        self.options = options
    }

    func run(collation: Collation) throws -> SustainedReport {
        let configuration = trace.indexConfiguration(fields: corpus.fields, collation: collation)
        CPUAffinity.release()
        let progress = options.showProgress ? Progress("sustained: indexing \(formatCount(corpus.count)) records") : nil
        let (index, buildTime) = try timed {
            try SearchIndex(configuration: configuration, records: corpus.records(copyingText: true))
        }
        progress?.finish()
        var report = SustainedReport(
            locale: collation.locale,
            strength: collation.strength.rawValue,
            mode: options.mode.rawValue,
            startRecords: index.count,
            buildNanoseconds: buildTime,
            searchEvery: options.searchEvery,
            deleteFraction: options.deleteFraction,
            trace: LatencySummary([]),
            phases: [],
            checkpoints: []
        )
        if options.pin { report.pinnedCPU = CPUAffinity.pin() }

        // The trace's own figures: typed on the fresh index (fastest of `repetitions`).
        let queries = trace.keystrokes.map {
            Query($0.text, scope: trace.scopes[$0.scope], mode: options.mode, syntax: options.syntax)
        }
        var traceTimes = [UInt64](repeating: .max, count: queries.count)
        for _ in 0..<options.repetitions {
            index.discardCachedResults()
            for (k, query) in queries.enumerated() {
                traceTimes[k] = min(traceTimes[k], try timed { try index.search(query) }.nanoseconds)
            }
        }
        report.trace = LatencySummary(traceTimes)
        report.checkpoints.append(try checkpoint(index, configuration, phase: "start", editsDone: 0, queries: queries))

        var rng = SplitMix64(seed: options.seed ^ 0x5057_A1ED)
        var liveIDs = corpus.ids
        var positionOfID = [String: Int](minimumCapacity: corpus.count * 2)
        for (i, id) in liveIDs.enumerated() { positionOfID[id] = i }
        var nextNewID = 0
        var nextKeystroke = 0
        func content(id: String) -> Record {
            var record = corpus.record(rng.below(corpus.count))
            record.id = id
            return record
        }
        func takeRandomLive() -> String {
            let i = rng.below(liveIDs.count)
            let id = liveIDs[i]
            let last = liveIDs.removeLast()
            if i < liveIDs.count {
                liveIDs[i] = last
                positionOfID[last] = i
            }
            positionOfID[id] = nil
            return id
        }
        /// Times one keystroke of the trace (the next, cycling).
        func search(into times: inout [UInt64]) throws {
            let query = queries[nextKeystroke % queries.count]
            nextKeystroke += 1
            times.append(try timed { try index.search(query) }.nanoseconds)
        }

        /// Records a checkpoint (memory against a fresh build, answers checked), re-pins this
        /// thread, and returns the time it took (left out of the phase's wall time).
        func takeCheckpoint(phase: String, editsDone: Int) throws -> UInt64 {
            let before = monotonicNanoseconds()
            report.checkpoints.append(
                try checkpoint(index, configuration, phase: phase, editsDone: editsDone, queries: queries)
            )
            if options.pin { _ = CPUAffinity.pin() }
            return monotonicNanoseconds() - before
        }

        // Phase 1: a stable-size mix.
        if options.edits > 0 {
            var times: [String: [UInt64]] = ["insert": [], "update": [], "delete": []]
            for key in times.keys { times[key]!.reserveCapacity(options.edits / 3 + 1000) }
            var searches: [UInt64] = []
            let every = max(1, options.edits / max(1, options.checkpoints))
            let progress = options.showProgress ? Progress("sustained: mixed edits", total: options.edits) : nil
            let start = monotonicNanoseconds()
            var checkpointTime: UInt64 = 0
            for e in 1...options.edits {
                switch rng.below(3) {
                case 0:
                    let id = "s\(nextNewID)"
                    nextNewID += 1
                    let record = content(id: id)
                    let position = rng.below(index.count + 1)
                    let ns = try timed { try index.insert(record, at: position) }.nanoseconds
                    times["insert"]!.append(ns)
                    positionOfID[id] = liveIDs.count
                    liveIDs.append(id)
                case 1:
                    let record = content(id: liveIDs[rng.below(liveIDs.count)])
                    times["update"]!.append(try timed { try index.update(record) }.nanoseconds)
                default:
                    let id = takeRandomLive()
                    times["delete"]!.append(try timed { try index.remove(id: id) }.nanoseconds)
                }
                if e % options.searchEvery == 0 { try search(into: &searches) }
                if e % every == 0 || e == options.edits {
                    checkpointTime += try takeCheckpoint(phase: "mixed", editsDone: e)
                }
                if e & 1023 == 0 { progress?.set(e) }
            }
            progress?.finish()
            report.phases.append(
                SustainedPhase(
                    name: "mixed",
                    kinds: ["insert", "update", "delete"].map {
                        SustainedEditKind(kind: $0, edit: LatencySummary(times[$0]!))
                    },
                    all: LatencySummary(times.values.flatMap { $0 }),
                    searches: LatencySummary(searches),
                    searchesAboveTraceP99: searches.filter { Double($0) > report.trace.p99 }.count,
                    wallNanoseconds: monotonicNanoseconds() - start - checkpointTime
                )
            )
        }

        // Phase 2: mass deletion.
        if options.deleteFraction > 0 {
            let deletions = Int(Double(liveIDs.count) * options.deleteFraction)
            var times: [UInt64] = []
            times.reserveCapacity(deletions)
            var searches: [UInt64] = []
            let progress = options.showProgress ? Progress("sustained: mass deletion", total: deletions) : nil
            let start = monotonicNanoseconds()
            var checkpointTime: UInt64 = 0
            for e in 1...max(1, deletions) where deletions > 0 {
                let id = takeRandomLive()
                times.append(try timed { try index.remove(id: id) }.nanoseconds)
                if e % options.searchEvery == 0 { try search(into: &searches) }
                if e == deletions / 2 || e == deletions {
                    checkpointTime += try takeCheckpoint(phase: "mass deletion", editsDone: e)
                }
                if e & 1023 == 0 { progress?.set(e) }
            }
            progress?.finish()
            report.phases.append(
                SustainedPhase(
                    name: "mass deletion",
                    kinds: [SustainedEditKind(kind: "delete", edit: LatencySummary(times))],
                    all: LatencySummary(times),
                    searches: LatencySummary(searches),
                    searchesAboveTraceP99: searches.filter { Double($0) > report.trace.p99 }.count,
                    wallNanoseconds: monotonicNanoseconds() - start - checkpointTime
                )
            )
        }
        CPUAffinity.release()
        return report
    }

    /// The index's memory against a fresh build of its records (in original order), and the
    /// trace's answers of both, compared record by record (untimed).
    private func checkpoint(
        _ index: SearchIndex,
        _ configuration: IndexConfiguration,
        phase: String,
        editsDone: Int,
        queries: [Query]
    ) throws -> MemoryCheckpoint {
        CPUAffinity.release()
        let records = try index.handles().map { try index.record($0) }
        let fresh = try SearchIndex(configuration: configuration, records: records)
        let edited = index.memoryUsage
        let built = fresh.memoryUsage
        var differing = 0
        for query in queries {
            let a = try index.search(query).rows.map { try index.id(of: $0) }
            let b = try fresh.search(query).rows.map { try fresh.id(of: $0) }
            if a != b {
                differing += 1
                failures.append(
                    "after \(editsDone) \(phase) edits, '\(query.text)' in \(query.scope): \(a.count) results, "
                        + "a fresh build of the same records gives \(b.count)"
                        + (a.count == b.count ? " (other records)" : "")
                )
            }
        }
        return MemoryCheckpoint(
            phase: phase,
            editsDone: editsDone,
            records: index.count,
            index: IndexMemoryReport(edited),
            fresh: IndexMemoryReport(built),
            ratio: Double(edited.total) / Double(max(1, built.total)),
            keystrokesDiffering: differing
        )
    }
}

struct SustainedReport: Codable {
    var locale: String
    var strength: String
    var mode: String
    var startRecords: Int
    var buildNanoseconds: UInt64
    var searchEvery: Int
    var deleteFraction: Double
    var pinnedCPU: Int? = nil
    /// The trace typed on the fresh index before any edit (each keystroke's fastest of `--repeat`).
    var trace: LatencySummary
    var phases: [SustainedPhase]
    var checkpoints: [MemoryCheckpoint]
}

struct SustainedPhase: Codable {
    var name: String
    var kinds: [SustainedEditKind]
    var all: LatencySummary
    /// The trace's keystrokes, one after every `searchEvery` edits, cycling through the trace.
    var searches: LatencySummary
    var searchesAboveTraceP99: Int
    /// The phase's wall time without its checkpoints.
    var wallNanoseconds: UInt64
}

struct SustainedEditKind: Codable {
    var kind: String
    var edit: LatencySummary
}

struct MemoryCheckpoint: Codable {
    var phase: String
    var editsDone: Int
    var records: Int
    /// `SearchIndex.memoryUsage` of the edited index.
    var index: IndexMemoryReport
    /// `SearchIndex.memoryUsage` of `SearchIndex(configuration:records:)` over the same records.
    var fresh: IndexMemoryReport
    var ratio: Double
    /// Keystrokes of the trace whose answers differ from the fresh build's (must be 0).
    var keystrokesDiffering: Int
}
