import Testing

@testable import Sift

/// The fuzzy kernels take several paths to one answer: a segment at a time with memchr (the scalar
/// level, and fields longer than 64 bytes), on bit masks of a short segment, or 64 bytes of a
/// column at a time for every segment at once (`sift_fuzzy_sweep`, AVX2 and AVX-512); a ranked
/// query scores its matches as they are found, keeps the scores, and orders a few distinct scores
/// as lazy ranking groups. Every path must give the scalar level's matches, scores, highlights and
/// ranked order, typed or cold, on an edited index.
@Suite struct FuzzyKernelTests {
    /// Records of real multilingual text: short names and places of up to a few hundred bytes
    /// (several 64-byte blocks), so that both the mask and the memchr paths run.
    static func records(count: Int) -> [Record] {
        let texts = FuzzyOracleTests.texts
        var generator = SeededGenerator(seed: 20_261_125)
        return (0..<count).map { number in
            let pieces = (0..<(number % 9)).map { _ in texts.randomElement(using: &generator)! }
            return Record(
                id: "r\(number)",
                fields: ["name": texts[number % texts.count], "place": pieces.joined(separator: " ")]
            )
        }
    }

    /// Keystrokes typed one after another (first letters, narrowing, multi-byte elements, a space).
    static let typed = [
        "a", "al", "alg", "n", "ni", "nin", "nino", "s", "sa", "san", "san ", "san j", "e", "er", "eri", "ß", "ст",
        "стр", "東", "東京", "ñ", "ño",
    ]

    /// The answers a level gives for `typed`: each keystroke's ids in order (ranked and original),
    /// the ranked rows' scores and a few rows' highlights.
    func answers(_ index: SearchIndex, oracle: FuzzyOracleTests.Oracle, cold: Bool) throws -> [String] {
        var answers: [String] = []
        index.discardCachedResults()
        for text in Self.typed {
            for order in [ResultOrder.ranked, .original] {
                if cold { index.discardCachedResults() }
                let query = Query(text, mode: .fuzzy, order: order)
                let result = try index.search(query)
                let ids = try index.ids(result)
                if let expected = try oracle.matches(text) {
                    #expect(Set(ids) == expected, "'\(text)' \(order): \(ids.count) results, oracle \(expected.count)")
                }
                answers.append("\(text) \(order): \(ids.joined(separator: ","))")
                guard order == .ranked else { continue }
                let plan = index.folded.scopePlans[0]
                guard case .patterns(let patterns) = try index.foldQuery(text, mode: .fuzzy, folding: plan.folding)
                else { continue }
                let scores = result.rows.prefix(300).map {
                    index.fuzzyScore(slot: $0.slot, plan: plan, pattern: patterns[0])
                }
                answers.append("\(text) scores: \(scores.map { "\($0?.score ?? -1)/\($0?.field ?? -1)" })")
                for row in result.rows.prefix(12) {
                    // As UTF-16 offsets, by field.
                    let fields = try index.highlights(of: row, for: query).sorted { $0.key < $1.key }
                    let shown = try fields.map { field, ranges in
                        let value = try index.value(of: field, for: row)
                        let offsets = ranges.map {
                            "\($0.lowerBound.utf16Offset(in: value))-\($0.upperBound.utf16Offset(in: value))"
                        }
                        return "\(field) \(offsets)"
                    }
                    answers.append("\(text) highlights: \(shown)")
                }
            }
        }
        return answers
    }

    @Test func everyKernelLevelMatchesScoresAndRanksAlike() throws {
        var records = Self.records(count: 2400)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "place"]),
            records: records
        )
        index.knobs.fuzzySweepMinimumRecords = 0  // a dense narrowing base is swept, as past 4,096 records
        index.knobs.scanChunkBytes = 4096  // sweeps in many chunks
        // Checked segments (updated records away from their slot number) and dead ones.
        var generator = SeededGenerator(seed: 7)
        let texts = FuzzyOracleTests.texts
        for _ in 0..<200 {
            let position = Int.random(in: 0..<records.count, using: &generator)
            records[position] = Record(
                id: records[position].id,
                fields: ["name": texts.randomElement(using: &generator)!, "place": records[position]["place"]]
            )
            _ = try index.update(records[position])
        }
        for _ in 0..<60 {
            try index.remove(id: records.remove(at: Int.random(in: 0..<records.count, using: &generator)).id)
        }
        for number in 0..<40 {
            let record = Record(id: "new\(number)", fields: ["name": texts[number], "place": texts[number + 40]])
            records.append(record)
            _ = try index.insert(record)
        }
        let oracle = try FuzzyOracleTests.Oracle(Collation(), records: records)
        var byLevel: [KernelLevel: [String]] = [:]
        try KernelLevel.exclusively {
            for level in KernelLevel.supported {
                KernelLevel.force(level)
                let typed = try answers(index, oracle: oracle, cold: false)
                byLevel[level] = typed
                // Cold: every keystroke a full sweep, its scores from the sweep.
                let cold = try answers(index, oracle: oracle, cold: true)
                for (a, b) in zip(typed, cold) where a != b {
                    Issue.record("level \(level), typed \(a.prefix(200)) ≠ cold \(b.prefix(200))")
                }
            }
        }
        let scalar = byLevel[.scalar]!
        for (level, answers) in byLevel {
            #expect(answers.count == scalar.count)
            for (a, b) in zip(answers, scalar) where a != b {
                Issue.record("level \(level): \(a.prefix(200)) ≠ scalar \(b.prefix(200))")
            }
        }
        // The paths were taken: a narrowing base swept, another visited.
        index.discardCachedResults()
        let first = try index.search(Query("a", mode: .fuzzy, order: .ranked))
        let swept = try index.search(Query("al", mode: .fuzzy, order: .ranked)).statistics
        #expect(swept.fullScans == 2 && swept.narrowedScans == 0, "\(swept)")
        let narrowed = try index.search(Query("alg", mode: .fuzzy, order: .ranked)).statistics
        #expect(narrowed.narrowedScans > 0, "\(narrowed)")
        try FuzzyOracleTests().expectRankedOrder(first, index: index)
    }

    /// A first letter's ranked answer is kept as its groups (a few bitsets) while it is not read,
    /// so that it outlives the answers of the word typed after it; an edit drops it.
    @Test func aFirstLettersRankedAnswerIsKeptAsItsGroups() throws {
        let records = Self.records(count: 3000)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "place"]),
            records: records
        )
        let query = Query("a", mode: .fuzzy, order: .ranked)
        let first = try index.search(query)
        #expect(first.resultRows.isDeferred)
        for text in ["al", "alg", "algo"] { _ = try index.search(Query(text, mode: .fuzzy, order: .ranked)) }
        let kept = index.caches.keptRows.first { $0.rows.count == first.rowCount }
        #expect(kept != nil, "the first letter's answer is still kept")
        #expect((kept?.memoryFootprint ?? .max) < 8 * first.rowCount)
        let again = try index.search(query)
        #expect(again.rows == first.rows)
        try FuzzyOracleTests().expectRankedOrder(again, index: index)
        // A record without an `a` becomes `a`: the answer typed again has it first.
        let matched = Set(try index.ids(first))
        let outsider = try #require(records.first { !matched.contains($0.id) })
        _ = try index.update(Record(id: outsider.id, fields: ["name": "a", "place": ""]))
        let edited = try index.search(query)
        #expect(edited.rowCount == first.rowCount + 1)
        #expect(try index.id(of: edited.rows[0]) == outsider.id, "the shortest field-start match leads")
    }
}
