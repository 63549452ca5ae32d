import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// The full sweep takes a fast path for segments that are live, simple and owned by the slot
/// with their own number (every segment after a bulk load), and checks the others one by one.
/// Edits break that layout (an update appends the record's new segment at the end, a delete
/// leaves a dead one) and compaction restores it. Whatever the layout, every answer must equal
/// that of an index built afresh from the same records, and ICU usearch's.
@Suite("Sweeps over edited columns")
struct SweepLayoutTests {
    /// Names in many scripts (so that some segments are not simple) from the bundled data.
    static func multilingualNames() -> [String] {
        let countries = (try? readTSV("country_names_i18n.tsv"))?.rows.map { $0[3] } ?? []
        let cities = (try? readTSV("cities.tsv"))?.rows.prefix(1500).map { $0[1] } ?? []
        return Array(countries.prefix(1500)) + cities
    }

    static let queries = ["a", "e", "an", "ar", "ia", "st", "san", "o", "и", "ا", "ス", "ne"]

    /// With `parallel`, every full scan is split among workers of 64 segments or more: edited
    /// columns' slow-path bits (segments owned by other slots) land in each worker's own bitsets.
    @Test(arguments: [(0, false), (1, false), (2, true)])
    func editedColumnsAnswerLikeAFreshIndex(_ seed: UInt64, parallel: Bool) throws {
        let names = Self.multilingualNames()
        try #require(names.count > 2000)
        var random = SeededGenerator(seed: seed)
        var records = names.prefix(600).enumerated().map {
            Record(id: "r\($0.offset)", fields: ["name": $0.element, "other": names[names.count - 1 - $0.offset]])
        }
        let configuration = IndexConfiguration(searchFields: ["name", "other"])
        let index = try SearchIndex(configuration: configuration, records: records)
        index.knobs.scanChunkBytes = 97  // many chunk boundaries, so carries across calls are exercised too
        if parallel {  // three workers of 64+ segments, whatever the machine's cores
            index.knobs.parallelScanSegments = 64
            index.knobs.scanWorkers = 3
        }
        var nextID = records.count
        // Enough updates and deletes that dead bytes outweigh live ones: compaction runs, some
        // slots are freed and reused, and later edits break the layout again.
        for step in 0..<1400 {
            let choice = Int(random.next() % 10)
            if choice < 5, !records.isEmpty {
                let position = Int(random.next() % UInt64(records.count))
                let name = names[Int(random.next() % UInt64(names.count))]
                records[position] = Record(
                    id: records[position].id,
                    fields: ["name": name, "other": records[position]["other"]]
                )
                try index.update(records[position])
            } else if choice < 7, !records.isEmpty {
                let position = Int(random.next() % UInt64(records.count))
                try index.remove(id: records[position].id)
                records.remove(at: position)
            } else {
                let position = Int(random.next() % UInt64(records.count + 1))
                let record = Record(
                    id: "n\(nextID)",
                    fields: [
                        "name": names[Int(random.next() % UInt64(names.count))], "other": names[step % names.count],
                    ]
                )
                nextID += 1
                try index.insert(record, at: position)
                records.insert(record, at: position)
            }
            if step % 700 == 699 {
                index.discardCachedResults()  // full sweeps, not narrowing, over the edited layout
                try expectSameAnswers(index, records, configuration, step: step)
            }
        }
    }

    private func expectSameAnswers(
        _ index: SearchIndex,
        _ records: [Record],
        _ configuration: IndexConfiguration,
        step: Int
    ) throws {
        let fresh = try SearchIndex(configuration: configuration, records: records)
        let reference = try ReferenceSearch(collation: Collation())
        for mode in [MatchMode.contains, .prefix, .words] {
            for query in Self.queries {
                index.discardCachedResults()
                let got = try index.ids(index.search(Query(query, mode: mode)))
                let expected = try fresh.ids(fresh.search(Query(query, mode: mode)))
                let sameAsFresh = got == expected
                #expect(
                    sameAsFresh,
                    "step \(step), \(mode) '\(query)': \(got.count) results, a fresh index \(expected.count)"
                )
                if mode == .contains {
                    let usearch = try records.filter {
                        try reference.contains(query, in: $0["name"]) || reference.contains(query, in: $0["other"])
                    }.map(\.id)
                    let sameAsICU = got == usearch
                    #expect(sameAsICU, "step \(step), '\(query)': \(got.count) results, ICU usearch \(usearch.count)")
                }
            }
        }
    }

    /// Segment starts are 16-bit offsets within blocks of 64 segments, except in blocks spanning
    /// more than 65,535 bytes, which keep them in full. Long texts among short ones make such
    /// blocks at every position in a block; edits, compaction and a snapshot round trip move them.
    @Test func longTextsAmongShortOnesAnswerLikeICU() throws {
        let names = Self.multilingualNames()
        var random = SeededGenerator(seed: 7)
        func text(_ n: Int) -> String {
            guard n % 23 == 5 || n % 41 == 0 else { return names[n % names.count] }
            // 20,000–40,000 characters: about as many code bytes, so 2–3 of them widen a block.
            var parts: [String] = []
            var length = 0
            while length < 20_000 + n % 20_000 {
                let name = names[Int(random.next() % UInt64(names.count))]
                parts.append(name)
                length += name.count + 1
            }
            return parts.joined(separator: " ") + (n % 2 == 0 ? " needle" : "")
        }
        var records = (0..<300).map { Record(id: "r\($0)", fields: ["name": text($0)]) }
        let configuration = IndexConfiguration(searchFields: ["name"])
        let index = try SearchIndex(configuration: configuration, records: records)
        let reference = try ReferenceSearch(collation: Collation())
        func expectICUAnswers(_ index: SearchIndex, _ stage: String) throws {
            for query in ["needle", "a", "san", "ia", "и"] {
                index.discardCachedResults()
                let got = try index.ids(index.search(Query(query)))
                let expected = try records.filter { try reference.contains(query, in: $0["name"]) }.map(\.id)
                #expect(got == expected, "\(stage) '\(query)': \(got.count) results, ICU usearch \(expected.count)")
            }
            // Narrowing from a one-letter result reads starts per candidate.
            index.discardCachedResults()
            for typed in ["n", "ne", "nee", "need"] {
                let got = try index.ids(index.search(Query(typed)))
                let expected = try records.filter { try reference.contains(typed, in: $0["name"]) }.map(\.id)
                #expect(got == expected, "\(stage) typed '\(typed)'")
            }
        }
        try expectICUAnswers(index, "built")
        for step in 0..<400 {
            let position = Int(random.next() % UInt64(records.count))
            records[position] = Record(id: records[position].id, fields: ["name": text(step * 7 + 3)])
            try index.update(records[position])
            if step % 200 == 199 { try expectICUAnswers(index, "after \(step + 1) updates") }
        }
        let path = testScratch.appendingPathComponent("sift-wide-\(UUID()).siftidx").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        try expectICUAnswers(try SearchIndex.load(from: path), "loaded")
    }

    /// The kernels pick an instruction set at run time (scalar, AVX2 with or without pext,
    /// AVX-512). Each level this CPU supports must give ICU's answers on an edited index: full
    /// sweeps (one-letter and longer patterns, anchored, at word starts) and narrowed scans.
    @Test func everyKernelLevelAnswersLikeICU() throws {
        let names = Self.multilingualNames()
        var random = SeededGenerator(seed: 3)
        var records = names.prefix(900).enumerated().map {
            Record(id: "r\($0.offset)", fields: ["name": $0.element, "other": names[names.count - 1 - $0.offset]])
        }
        let configuration = IndexConfiguration(searchFields: ["name", "other"])
        let index = try SearchIndex(configuration: configuration, records: records)
        for _ in 0..<150 {  // checked segments: updated records away from their slot number, dead ones
            let position = Int(random.next() % UInt64(records.count))
            records[position] = Record(
                id: records[position].id,
                fields: ["name": names[Int(random.next() % UInt64(names.count))], "other": records[position]["other"]]
            )
            try index.update(records[position])
        }
        for _ in 0..<40 { try index.remove(id: records.remove(at: Int(random.next() % UInt64(records.count))).id) }
        let reference = try ReferenceSearch(collation: Collation())
        let levels = KernelLevel.supported
        var answers: [KernelLevel: [String]] = [:]
        try KernelLevel.exclusively {
            try answersAtEveryLevel(index, records: records, reference: reference, levels: levels, into: &answers)
        }
        for level in levels { #expect(answers[level] == answers[levels.last!], "level \(level) differs from the best") }
    }

    func answersAtEveryLevel(
        _ index: SearchIndex,
        records: [Record],
        reference: ReferenceSearch,
        levels: [KernelLevel],
        into answers: inout [KernelLevel: [String]]
    ) throws {
        for level in levels {
            KernelLevel.force(level)
            #expect(KernelLevel.current == level)
            var all: [String] = []
            for mode in [MatchMode.contains, .prefix, .words] {
                index.discardCachedResults()
                for typed in ["s", "sa", "san", "a", "an", "ans", "и", "ир", "ス", "ne", "new", "ia"] {
                    let got = try index.ids(index.search(Query(typed, mode: mode)))
                    all.append("\(mode) \(typed): \(got.joined(separator: ","))")
                    if mode == .contains {
                        let usearch = try records.filter {
                            try reference.contains(typed, in: $0["name"]) || reference.contains(typed, in: $0["other"])
                        }.map(\.id)
                        #expect(
                            got == usearch,
                            "level \(level), '\(typed)': \(got.count) results, ICU usearch \(usearch.count)"
                        )
                    }
                }
            }
            answers[level] = all
        }
    }

    /// A ranked query's first keystroke sweeps each field once for three anchors
    /// (`rankedFullScan`), and its results are cached as those of three keys: every bitset,
    /// candidates included (later keystrokes narrow them), must equal that anchor's own sweep, on
    /// edited layouts, at every kernel level, split among workers and chunks.
    @Test(arguments: [(4, false), (5, true)])
    func rankedSweepEqualsASweepPerAnchor(_ seed: UInt64, parallel: Bool) throws {
        let names = Self.multilingualNames()
        var random = SeededGenerator(seed: seed)
        var records = names.prefix(900).enumerated().map {
            Record(id: "r\($0.offset)", fields: ["name": $0.element, "other": names[names.count - 1 - $0.offset]])
        }
        let configuration = IndexConfiguration(searchFields: ["name", "other"])
        let index = try SearchIndex(configuration: configuration, records: records)
        index.knobs.scanChunkBytes = 97
        if parallel {
            index.knobs.parallelScanSegments = 64
            index.knobs.scanWorkers = 3
        }
        for step in 0..<230 {  // segments away from their slot, dead ones, inserted ones
            let position = Int(random.next() % UInt64(records.count))
            let name = names[Int(random.next() % UInt64(names.count))]
            if step < 150 {
                records[position] = Record(
                    id: records[position].id,
                    fields: ["name": name, "other": records[position]["other"]]
                )
                try index.update(records[position])
            } else if step < 190 {
                try index.remove(id: records.remove(at: position).id)
            } else {
                let record = Record(id: "n\(step)", fields: ["name": name, "other": names[step]])
                try index.insert(record, at: position)
                records.insert(record, at: position)
            }
        }
        let plan = index.folded.scopePlans[0]
        defer { KernelLevel.force(nil) }
        for level in KernelLevel.supported {
            KernelLevel.force(level)
            for mode in [MatchMode.contains, .words] {
                for text in Self.queries + ["s", "n", "new y", "ス", "ß", "ii"] {
                    guard case .patterns(let patterns) = try index.foldQuery(text, mode: mode, folding: plan.folding)
                    else { continue }
                    for pattern in patterns {
                        for field in plan.fields {
                            let keys = [Anchor.anywhere, .wordStart, .fieldStart].map {
                                index.key(plan, field, $0, pattern)
                            }
                            let together = try index.rankedFullScan(keys[mode == .words ? 1 : 0]) { false }
                            #expect(together.count == 3)
                            for (key, match) in zip(keys, together) {
                                let alone = try index.fullScan(key) { false }
                                let same = match.matched == alone.matched && match.candidates == alone.candidates
                                #expect(same, "level \(level), \(mode) '\(text)' at \(key.anchor), field \(field)")
                            }
                        }
                    }
                }
            }
        }
    }
}
