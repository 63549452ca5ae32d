import CBenchSupport
import Foundation
import RecordGenerator
import Sift

/// With `--pin`, pins the calling thread to one CPU for keystrokes and edits, and lets it use
/// every CPU again for index builds. Threads created while it is pinned (the workers of Sift's
/// split scans among them) inherit the pin, so pinned figures are single-core figures.
enum CPUAffinity {
    /// Pins to the CPU the thread runs on; returns it, or nil when pinning failed.
    static func pin() -> Int? {
        let cpu = bench_pin_to_current_cpu()
        return cpu >= 0 ? Int(cpu) : nil
    }

    static func release() { bench_release_pin() }
}

struct RunOptions {
    var locales: [String]
    var strengths: [Collation.Strength]
    var modes: [MatchMode]
    /// Result order of the timed queries.
    var order: ResultOrder = .original
    /// How words-mode queries read `-`, quotes and `|`.
    var syntax: QuerySyntax = .operators
    /// Typo tolerance of the timed queries (`--typos`).
    var typos: TypoTolerance = .off
    /// The index's ranking tie-break (`--tie-break`).
    var tieBreak: RankingTieBreak? = nil
    var peers: [PeerKind]
    /// Keystrokes the naive and ICU peers run on (nil: all).
    var peerSample: Int?
    var checkSample: Int
    var edits: Int
    /// Times the trace is typed (cache emptied before each); each keystroke keeps its fastest time.
    var repetitions = 1
    var pin: Bool
    var showProgress: Bool
    var seed: UInt64
    /// Most differing records judged by ICU per keystroke and peer.
    var judgeLimit = 2_000
    /// Harness self-test: drop one record from Sift's (untimed) answers, which the checks must
    /// report as a Sift bug.
    var injectWrongAnswers = false
}

/// One run: the index builds, the timed traces, the peers, the answer checks and the edits.
final class Runner {
    let corpus: Corpus
    let trace: Trace
    let options: RunOptions
    var report: BenchReport
    private let fts5: FTS5Peer?
    private let tantivy: TantivyPeer?
    /// Field indices per scope.
    private let scopeFields: [[Int]]

    init(
        corpus: Corpus,
        trace: Trace,
        options: RunOptions,
        report: BenchReport,
        fts5: FTS5Peer?,
        tantivy: TantivyPeer?
    ) {
        self.corpus = corpus
        self.trace = trace
        self.options = options
        self.report = report
        self.fts5 = fts5
        self.tantivy = tantivy
        scopeFields = trace.scopes.indices.map { $0 == 0 ? Array(corpus.fields.indices) : [0] }
    }

    private var failuresSeen = Set<String>()

    /// Records a Sift answer that disagrees with ICU usearch (once per message).
    func fail(_ message: String) {
        guard failuresSeen.insert(message).inserted else { return }
        report.failureCount += 1
        if report.failures.count < 50 { report.failures.append(message) }
        if failuresSeen.count <= 20 { note("searchbench: SIFT ANSWER DISAGREES WITH ICU USEARCH: " + message) }
    }

    func run() throws {
        for locale in options.locales {
            for strength in options.strengths {
                let collation = Collation(locale: locale, strength: strength)
                report.configs.append(try runConfiguration(collation))
            }
        }
    }

    // MARK: - One collation

    private func runConfiguration(_ collation: Collation) throws -> ConfigReport {
        let title = "\(collation.locale)/\(collation.strength.rawValue)"
        var configuration = trace.indexConfiguration(fields: corpus.fields, collation: collation)
        configuration.rankingTieBreak = options.tieBreak

        // The fixed cost of an index (collators, alphabetic index, ...): an empty one.
        CPUAffinity.release()
        Memory.trim()
        var heapBefore = Memory.heapBytes
        var empty: SearchIndex? = try SearchIndex(configuration: configuration, records: [])
        let emptyHeap = Memory.heapBytes - heapBefore
        empty = nil
        _ = empty

        // Build, using every core; the records own fresh copies of the text so that the index's
        // heap, measured once they are released, includes the text it keeps.
        Memory.trim()
        heapBefore = Memory.heapBytes
        var records = corpus.records(copyingText: true)
        Memory.trim()
        let residentBefore = Memory.residentBytes
        let progress = options.showProgress ? Progress("\(title): indexing \(formatCount(corpus.count)) records") : nil
        let start = monotonicNanoseconds()
        var index: SearchIndex? = try SearchIndex(configuration: configuration, records: records)
        let buildTime = monotonicNanoseconds() - start
        progress?.finish()
        let residentAfter = Memory.residentBytes
        records = []
        Memory.trim()
        let indexHeap = Memory.heapBytes - heapBefore
        let textBytes = report.dataset.utf8Bytes
        var config = ConfigReport(
            locale: collation.locale,
            strength: collation.strength.rawValue,
            build: BuildInfo(
                nanoseconds: buildTime,
                records: index!.count,
                residentBefore: residentBefore,
                residentAfter: residentAfter,
                indexHeapBytes: indexHeap,
                indexHeapRatio: Double(indexHeap) / Double(max(1, textBytes)),
                emptyIndexHeapBytes: emptyHeap
            ),
            check: CheckReport(recordsPerKeystroke: 0)
        )
        config.build.indexMemory = IndexMemoryReport(index!.memoryUsage)

        let naive = NaivePeer(columns: corpus.columns, strength: collation.strength)
        let icu = try ICUPeer(columns: corpus.columns, collation: collation)
        icu.reference.syntax = options.syntax
        var peers: [any Peer] = []
        for kind in options.peers {
            switch kind {
            case .naive: peers.append(naive)
            case .icu: peers.append(icu)
            case .fts5: if let fts5 { peers.append(fts5) }
            case .tantivy: if let tantivy { peers.append(tantivy) }
            case .fzf: if options.modes.contains(.fuzzy) { peers.append(try FzfPeer(columns: corpus.columns)) }
            }
        }
        let checker = Checker(
            corpus: corpus,
            naive: naive,
            reference: icu.reference,
            sampleSize: options.checkSample,
            seed: options.seed
        )
        config.check.recordsPerKeystroke = checker.recordsPerKeystroke

        // Snapshot: save, then load into a second index (released at once).
        let snapshotPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("searchbench-\(getpid()).siftidx").path
        let saveStart = monotonicNanoseconds()
        try index!.save(to: snapshotPath)
        config.build.snapshotSaveNanoseconds = monotonicNanoseconds() - saveStart
        let loadStart = monotonicNanoseconds()
        let loaded = try SearchIndex.load(from: snapshotPath)
        config.build.snapshotLoadNanoseconds = monotonicNanoseconds() - loadStart
        config.build.snapshotLoadedMemoryBytes = loaded.memoryUsage.total
        try? FileManager.default.removeItem(atPath: snapshotPath)

        if options.pin { report.machine.pinnedCPU = CPUAffinity.pin() }
        for mode in options.modes {
            config.modes.append(
                try runMode(mode, index: index!, peers: peers, reference: icu.reference, checker: checker, title: title)
            )
        }
        if options.edits > 0, let mode = options.modes.first {
            config.edits = try runEdits(index: index!, mode: mode, reference: icu.reference, checker: checker)
        }
        config.check = checker.report(recordsPerKeystroke: checker.recordsPerKeystroke, into: config.check)
        for message in checker.failures { fail("\(title): \(message)") }
        CPUAffinity.release()

        // Release the index: the heap it frees is what it held at the end (with its query cache).
        Memory.trim()
        let heapWithIndex = Memory.heapBytes
        index = nil
        _ = index
        Memory.trim()
        config.build.indexHeapAtEndBytes = heapWithIndex - Memory.heapBytes
        return config
    }

    // MARK: - One mode: Sift timed over the trace, then the peers and the checks

    private func runMode(
        _ mode: MatchMode,
        index: SearchIndex,
        peers: [any Peer],
        reference: ICUReference,
        checker: Checker,
        title: String
    ) throws -> ModeReport {
        let keystrokes = trace.keystrokes
        // FTS5 has no fuzzy rule, fzf nothing else, Tantivy only prefix and words.
        let peers = peers.filter { $0.kind.supports(mode) }
        var rows: [KeystrokeReport] = []
        var siftTimes: [UInt64] = []
        let progress = options.showProgress ? Progress("\(title) \(mode.rawValue): Sift", total: keystrokes.count) : nil

        // Phase 1: Sift alone over the whole trace, nothing else in between (typed `repetitions`
        // times from an empty cache; each keystroke keeps its fastest time).
        for repetition in 0..<options.repetitions {
            index.discardCachedResults()
            for (k, keystroke) in keystrokes.enumerated() {
                let query = Query(
                    keystroke.text,
                    scope: trace.scopes[keystroke.scope],
                    mode: mode,
                    order: options.order,
                    syntax: options.syntax,
                    typos: options.typos
                )
                let (result, ns) = try timed { try index.search(query) }
                if repetition > 0 {
                    siftTimes[k] = min(siftTimes[k], ns)
                    rows[k].siftNanoseconds = siftTimes[k]
                    continue
                }
                siftTimes.append(ns)
                rows.append(
                    KeystrokeReport(
                        text: keystroke.text,
                        scope: trace.scopes[keystroke.scope],
                        kind: keystroke.kind.rawValue,
                        siftNanoseconds: ns,
                        results: result.rowCount,  // as a table would: its rows are not all read
                        fullScans: result.statistics.fullScans,
                        narrowedScans: result.statistics.narrowedScans,
                        cacheHits: result.statistics.cacheHits,
                        postingsHits: result.statistics.postingsHits,
                        candidatesExamined: result.statistics.candidatesExamined
                    )
                )
                progress?.set(k + 1)
            }
        }
        progress?.finish()

        // Phase 2: per keystroke, Sift's answer again (untimed), each peer timed on the same
        // keystroke, answers compared, and the sample check.
        let sampled = Set(trace.sample(options.peerSample ?? 0))
        var peerTimes = [[Int: UInt64]](repeating: [:], count: peers.count)
        var agreements = [Agreement](repeating: Agreement(), count: peers.count)
        let peerProgress =
            options.showProgress
            ? Progress("\(title) \(mode.rawValue): peers and checks", total: keystrokes.count) : nil
        for (k, keystroke) in keystrokes.enumerated() {
            let scope = trace.scopes[keystroke.scope]
            let fields = scopeFields[keystroke.scope]
            let query = Query(
                keystroke.text,
                scope: scope,
                mode: mode,
                order: options.order,
                syntax: options.syntax,
                typos: options.typos
            )
            let result = try index.search(query)
            var answer = try result.rows.map { Int32(try index.position(of: $0)) }
            if !isAscending(answer) { answer.sort() }
            if options.injectWrongAnswers, !answer.isEmpty { answer.remove(at: answer.count / 2) }
            if answer.count != rows[k].results, !options.injectWrongAnswers {
                fail(
                    "'\(keystroke.text)' (\(mode)): \(rows[k].results) results, then \(answer.count) on the same query"
                )
            }
            if options.typos != .off {
                // The peers and the check judge the exact answer, which the typo answer contains.
                var exactQuery = query
                exactQuery.typos = .off
                var exact = try index.search(exactQuery).rows.map { Int32(try index.position(of: $0)) }
                if !isAscending(exact) { exact.sort() }
                if !difference(exact, answer).0.isEmpty {
                    fail("'\(keystroke.text)' (\(mode)): the typo answer lacks exact matches")
                }
                answer = exact
            }
            for (p, peer) in peers.enumerated() {
                if !peer.kind.runsEveryKeystroke && !sampled.contains(k) { continue }
                var (peerAnswer, ns) = try timed { try peer.search(keystroke.text, fields: fields, mode: mode) }
                ns = peer.ownNanoseconds ?? ns
                if !isAscending(peerAnswer) { peerAnswer.sort() }
                peerTimes[p][k] = ns
                let (onlySift, onlyPeer) = difference(answer, peerAnswer)
                rows[k].peers.append(
                    PeerKeystroke(
                        engine: peer.kind.rawValue,
                        nanoseconds: ns,
                        results: peerAnswer.count,
                        onlySift: onlySift.count,
                        onlyPeer: onlyPeer.count
                    )
                )
                judge(
                    &agreements[p],
                    peer: peer.kind,
                    keystroke: keystroke,
                    mode: mode,
                    fields: fields,
                    onlySift: onlySift,
                    onlyPeer: onlyPeer,
                    reference: reference
                )
            }
            try checker.check(keystroke.text, mode: mode, fields: fields, siftAnswer: answer)
            peerProgress?.set(k + 1)
        }
        peerProgress?.finish()

        // Summaries.
        let shortSet = keystrokes.indices.filter { keystrokes[$0].isShort }
        let longSet = keystrokes.indices.filter { !keystrokes[$0].isShort }
        func engine(_ name: String, _ times: [Int: UInt64], sampled: Bool) -> EngineReport {
            func summary(_ indices: [Int]) -> LatencySummary { LatencySummary(indices.compactMap { times[$0] }) }
            return EngineReport(
                engine: name,
                measured: times.count,
                sampled: sampled,
                all: summary(Array(keystrokes.indices)),
                short: summary(shortSet),
                long: summary(longSet)
            )
        }
        let siftMap = Dictionary(uniqueKeysWithValues: siftTimes.enumerated().map { ($0, $1) })
        let sift = engine("sift", siftMap, sampled: false)
        var peerReports: [EngineReport] = []
        for (p, peer) in peers.enumerated() {
            let times = peerTimes[p]
            var report = engine(peer.kind.rawValue, times, sampled: times.count < keystrokes.count)
            func ratio(_ indices: [Int]) -> Double? {
                let measured = indices.filter { times[$0] != nil }
                guard !measured.isEmpty else { return nil }
                let peerTotal = measured.reduce(0.0) { $0 + Double(times[$1]!) }
                let siftTotal = measured.reduce(0.0) { $0 + Double(siftTimes[$1]) }
                return peerTotal / max(1, siftTotal)
            }
            report.ratioAll = ratio(Array(keystrokes.indices))
            report.ratioShort = ratio(shortSet)
            report.ratioLong = ratio(longSet)
            if report.sampled, report.measured > 0 {
                // Stratified: each class's mean times its number of keystrokes in the trace (the
                // sample has as many short keystrokes as long ones; the trace does not).
                let shortMean = report.short.count > 0 ? report.short.mean : report.all.mean
                let longMean = report.long.count > 0 ? report.long.mean : report.all.mean
                let estimate = shortMean * Double(shortSet.count) + longMean * Double(longSet.count)
                report.extrapolatedTraceNanoseconds = estimate
                report.extrapolatedTraceRatio = estimate / max(1, sift.all.total)
            }
            report.agreement = agreements[p]
            peerReports.append(report)
        }
        return ModeReport(
            mode: mode.rawValue,
            order: options.order.rawValue,
            typos: options.typos.description,
            sift: sift,
            peers: peerReports,
            keystrokes: rows
        )
    }

    /// Judges each record where a peer and Sift differ with ICU usearch.
    private func judge(
        _ agreement: inout Agreement,
        peer: PeerKind,
        keystroke: Keystroke,
        mode: MatchMode,
        fields: [Int],
        onlySift: [Int32],
        onlyPeer: [Int32],
        reference: ICUReference
    ) {
        agreement.keystrokesCompared += 1
        if onlySift.isEmpty && onlyPeer.isEmpty { agreement.keystrokesIdentical += 1 }
        agreement.onlySift += onlySift.count
        agreement.onlyPeer += onlyPeer.count
        var budget = options.judgeLimit
        for (records, siftSays) in [(onlySift, true), (onlyPeer, false)] {
            for record in records {
                guard budget > 0 else {
                    agreement.unjudged += 1
                    continue
                }
                budget -= 1
                let values = fields.map { corpus.columns[$0][Int(record)] }
                let verdict: Bool?
                do {
                    verdict = try reference.matches(keystroke.text, fields: values, mode: mode)
                } catch {
                    verdict = nil
                }
                let shown = values.map { "\"\($0)\"" }.joined(separator: " / ")
                switch verdict {
                case nil:
                    agreement.undecided += 1
                case siftSays?:
                    agreement.peerSemantics += 1
                    if agreement.examples.count < 4 {
                        agreement.examples.append(
                            "'\(keystroke.text)' \(siftSays ? "matches" : "does not match") \(shown) in Sift and ICU, "
                                + "\(siftSays ? "not" : "but does") in \(peer.rawValue)"
                        )
                    }
                default:
                    agreement.siftWrong += 1
                    fail(
                        "\(mode.rawValue) '\(keystroke.text)' on record \(corpus.ids[Int(record)]) \(shown): Sift says "
                            + "\(siftSays ? "match" : "no match"), ICU usearch says \(siftSays ? "no match" : "match")"
                    )
                }
            }
        }
    }

    // MARK: - Edits while a query is active

    private func runEdits(
        index: SearchIndex,
        mode: MatchMode,
        reference: ICUReference,
        checker: Checker
    ) throws
        -> EditReport
    {
        let last = trace.keystrokes.last!
        let query = Query(
            last.text,
            scope: trace.scopes[last.scope],
            mode: mode,
            syntax: options.syntax,
            typos: options.typos
        )
        let active = try index.search(query)
        let fields = scopeFields[last.scope]
        var rng = SplitMix64(seed: options.seed ^ 0xED17)
        let count = options.edits
        // Targets for updates and removals: distinct original records, in random order.
        var targets = Array(0..<corpus.count)
        for i in stride(from: targets.count - 1, to: 0, by: -1) { targets.swapAt(i, rng.below(i + 1)) }
        var nextTarget = 0
        func takeTarget() -> Int? {
            guard nextTarget < targets.count else { return nil }
            defer { nextTarget += 1 }
            return targets[nextTarget]
        }
        /// A record with the text of a random original record.
        func content(id: String) -> Record {
            var record = corpus.record(rng.below(corpus.count))
            record.id = id
            return record
        }
        func verify(_ handle: RecordHandle, _ record: Record, _ rows: [RecordHandle]) throws {
            let values = fields.map { record[corpus.fields[$0]] }
            guard let expected = try reference.matches(query.text, fields: values, mode: mode) else { return }
            checker.editsChecked += 1
            if rows.contains(handle) != expected {
                checker.failures.append(
                    "after an edit, '\(query.text)' (\(mode.rawValue)) \(expected ? "misses" : "returns") record "
                        + "\(record.id) \(values): ICU usearch says \(expected ? "match" : "no match")"
                )
            }
        }

        var kinds: [EditKind] = []
        var all: [UInt64] = []
        let progress = options.showProgress ? Progress("edits", total: 4 * count) : nil
        var done = 0
        for kind in ["insert (end)", "insert (middle)", "update", "remove"] {
            var editTimes: [UInt64] = []
            var searchTimes: [UInt64] = []
            for e in 0..<count {
                var edited: (RecordHandle, Record)? = nil
                switch kind {
                case "insert (end)", "insert (middle)":
                    let record = content(id: "edit-\(kind.hasSuffix("(end)") ? "e" : "m")-\(e)")
                    let position = kind.hasSuffix("(end)") ? nil : rng.below(index.count + 1)
                    let (handle, ns) = try timed { try index.insert(record, at: position) }
                    editTimes.append(ns)
                    edited = (handle, record)
                case "update":
                    guard let target = takeTarget() else { break }
                    let record = content(id: corpus.ids[target])
                    let (handle, ns) = try timed { try index.update(record) }
                    editTimes.append(ns)
                    edited = (handle, record)
                default:
                    guard let target = takeTarget() else { break }
                    let id = corpus.ids[target]
                    let ns = try timed { try index.remove(id: id) }.nanoseconds
                    editTimes.append(ns)
                }
                let (result, searchNs) = try timed { try index.search(query) }
                searchTimes.append(searchNs)
                if let (handle, record) = edited { try verify(handle, record, result.rows) }
                done += 1
                progress?.set(done)
            }
            all += editTimes
            kinds.append(
                EditKind(kind: kind, edit: LatencySummary(editTimes), followUpSearch: LatencySummary(searchTimes))
            )
        }
        progress?.finish()
        return EditReport(
            activeQuery: query.text,
            mode: mode.rawValue,
            activeResults: active.rows.count,
            kinds: kinds,
            all: LatencySummary(all)
        )
    }
}

// MARK: - Sorted-set helpers

func isAscending(_ values: [Int32]) -> Bool {
    var previous = Int32.min
    for value in values {
        if value < previous { return false }
        previous = value
    }
    return true
}

/// Members only in `a`, and only in `b` (both ascending).
func difference(_ a: [Int32], _ b: [Int32]) -> ([Int32], [Int32]) {
    var onlyA: [Int32] = []
    var onlyB: [Int32] = []
    var i = 0
    var j = 0
    while i < a.count && j < b.count {
        if a[i] == b[j] {
            i += 1
            j += 1
        } else if a[i] < b[j] {
            onlyA.append(a[i])
            i += 1
        } else {
            onlyB.append(b[j])
            j += 1
        }
    }
    onlyA += a[i...]
    onlyB += b[j...]
    return (onlyA, onlyB)
}

func contains(_ sorted: [Int32], _ value: Int32) -> Bool {
    var low = 0
    var high = sorted.count
    while low < high {
        let mid = (low + high) / 2
        if sorted[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low < sorted.count && sorted[low] == value
}

// MARK: - Sample check

/// On every keystroke: Sift's membership for a fixed random sample of records plus a random
/// sample of Sift's own results, against ICU usearch (exact rules: a disagreement fails the
/// run) and against the naive Foundation filter (each difference explained by ICU).
final class Checker {
    let corpus: Corpus
    let naive: NaivePeer
    let reference: ICUReference
    let sampleSize: Int
    private var fixed: [Int32]
    private var rng: SplitMix64
    var judgements = 0
    var agrees = 0
    var undecided = 0
    var wrong = 0
    var naiveDiffers = 0
    var naiveExplained = 0
    var naiveExamples: [String] = []
    var editsChecked = 0
    var failures: [String] = []

    var recordsPerKeystroke: Int { fixed.count + sampleSize }

    init(corpus: Corpus, naive: NaivePeer, reference: ICUReference, sampleSize: Int, seed: UInt64) {
        self.corpus = corpus
        self.naive = naive
        self.reference = reference
        self.sampleSize = sampleSize
        rng = SplitMix64(seed: seed ^ 0xC4EC)
        var chosen = Set<Int32>()
        if sampleSize >= corpus.count {
            chosen = Set((0..<corpus.count).map { Int32($0) })
        } else {
            while chosen.count < sampleSize { chosen.insert(Int32(rng.below(corpus.count))) }
        }
        fixed = chosen.sorted()
    }

    func check(_ text: String, mode: MatchMode, fields: [Int], siftAnswer: [Int32]) throws {
        guard sampleSize > 0 else { return }
        var records = fixed
        if !siftAnswer.isEmpty {
            for _ in 0..<min(sampleSize, siftAnswer.count) { records.append(siftAnswer[rng.below(siftAnswer.count)]) }
        }
        let words = mode == .words ? queryWords(text) : []
        for record in records {
            let siftSays = contains(siftAnswer, record)
            let values = fields.map { corpus.columns[$0][Int(record)] }
            let verdict = try reference.matches(text, fields: values, mode: mode)
            judgements += 1
            switch verdict {
            case nil: undecided += 1
            case siftSays?: agrees += 1
            default:
                wrong += 1
                if failures.count < 20 {
                    failures.append(
                        "\(mode.rawValue) '\(text)' on record \(corpus.ids[Int(record)]) \(values): Sift says "
                            + "\(siftSays ? "match" : "no match"), ICU usearch says \(siftSays ? "no match" : "match")"
                    )
                }
            }
            let naiveSays = naive.matches(text, words: words, record: Int(record), fields: fields, mode: mode)
            if naiveSays != siftSays {
                naiveDiffers += 1
                if verdict == siftSays {
                    naiveExplained += 1
                    if naiveExamples.count < 6 {
                        let shown = values.map { "\"\($0)\"" }.joined(separator: " / ")
                        naiveExamples.append(
                            "\(mode.rawValue) '\(text)' \(siftSays ? "matches" : "does not match") \(shown) in Sift and "
                                + "ICU, \(siftSays ? "not" : "but does") in the naive filter"
                        )
                    }
                }
            }
        }
    }

    func report(recordsPerKeystroke: Int, into base: CheckReport) -> CheckReport {
        var report = base
        report.recordsPerKeystroke = recordsPerKeystroke
        report.judgements = judgements
        report.siftAgreesWithICU = agrees
        report.undecided = undecided
        report.siftWrong = wrong
        report.naiveDiffers = naiveDiffers
        report.naiveDiffersExplained = naiveExplained
        report.naiveExamples = naiveExamples
        report.editsChecked = editsChecked
        return report
    }
}

extension IndexMemoryReport {
    /// The report of an index's own count of its memory.
    init(_ usage: IndexMemoryUsage) {
        self.init(
            total: usage.total,
            foldedCodes: usage.foldedCodes,
            foldedAuxiliary: usage.foldedAuxiliary,
            segmentTables: usage.segmentTables,
            slotTables: usage.slotTables,
            recordText: usage.recordText,
            recordTextTables: usage.recordTextTables,
            caches: usage.caches,
            summary: usage.description
        )
    }
}
