import Foundation
import Testing

@testable import Sift

/// `MatchMode.fuzzy` against a brute-force oracle written from its definition: a field matches
/// when the query's collation elements (ICU's collation element iterator, processed as usearch
/// compares elements, ignorable ones dropped: `ReferenceSearch.collationElements(of:)`) are a
/// subsequence of the field's. Real multilingual data (GeoNames cities, country names in ~150
/// languages), typed one keystroke at a time with backspaces and edits in between.
@Suite("Fuzzy mode vs a brute-force subsequence oracle")
struct FuzzyOracleTests {
    /// Two fields of real text per record, so that field order plays a part in ranking.
    static let texts: [String] = {
        var generator = SeededGenerator(seed: 20_261_124)
        var texts: [String] = []
        if let cities = try? readTSV("cities.tsv") {
            let name = cities.header.firstIndex(of: "name")!
            texts += cities.rows.map { $0[name] }.shuffled(using: &generator).prefix(500)
        }
        if let names = try? readTSV("country_names_i18n.tsv") {
            let value = names.header.firstIndex(of: "value")!
            texts += names.rows.map { $0[value] }.shuffled(using: &generator).prefix(700)
        }
        texts += [
            "Straße", "STRASSE", "Aalborg", "Åse", "Ålborg", "chata", "Chrudim", "El niño juega", "nino", "José Martí",
            "Müller", "Mueller", "İzmir", "ıslak", "Łódź", "Rock'n'Roll", "東京都", "กรุงเทพมหานคร", "e\u{301}clair",
            "ﬁnance",
            "", "San José", "Mission Jobs",
        ]
        return texts.shuffled(using: &generator)
    }()

    static func records(seed: UInt64) -> [Record] { OracleCorpus.records(texts, seed: seed) }

    static let configurations = OracleCorpus.collations

    /// Typed sequences: fixed ones for collation cases, then random subsequences of records.
    static func sequences(seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var result = [
            "nino", "niño", "aa", "å", "ch", "sj", "strasse", "mlr", "東京", "กท", "izm", "ı", "eclr", "fin", "ro r",
        ]
        let nonEmpty = texts.filter { !$0.isEmpty }
        for i in 0..<TestScale.size(full: 30, default: 12) {
            let text = Array(nonEmpty.randomElement(using: &generator)!)
            let length = Int.random(in: 1...min(6, text.count), using: &generator)
            let picked = (0..<text.count).shuffled(using: &generator).prefix(length).sorted()
            let piece = String(picked.map { text[$0] })
            result.append(i % 3 == 0 ? piece.lowercased() : piece)
        }
        return result
    }

    /// The oracle's elements of every record's fields, kept current through edits.
    struct Oracle {
        let reference: ReferenceSearch
        var elements: [String: (name: [Int64], place: [Int64])] = [:]

        init(_ collation: Collation, records: [Record]) throws {
            reference = try ReferenceSearch(collation: collation)
            for record in records { try set(record) }
        }

        mutating func set(_ record: Record) throws {
            elements[record.id] = (
                try reference.collationElements(of: record["name"]),
                try reference.collationElements(of: record["place"])
            )
        }

        static func isSubsequence(_ pattern: [Int64], of text: [Int64]) -> Bool {
            var i = 0
            for element in text where i < pattern.count && element == pattern[i] { i += 1 }
            return i == pattern.count
        }

        /// The ids matching `query`, or nil when the query has no elements (everything matches).
        func matches(_ query: String) throws -> Set<String>? {
            let pattern = try reference.collationElements(of: query)
            if pattern.isEmpty { return nil }
            return Set(
                elements.filter {
                    Self.isSubsequence(pattern, of: $0.value.name) || Self.isSubsequence(pattern, of: $0.value.place)
                }
                .keys
            )
        }
    }

    @Test(arguments: configurations)
    func everyKeystrokeMatchesTheOracle(_ collation: Collation) throws {
        var records = Self.records(seed: stableSeed(collation.locale))
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "place"], collation: collation),
            records: records
        )
        var oracle = try Oracle(collation, records: records)
        var generator = SeededGenerator(seed: stableSeed(collation.locale + "edits"))
        var narrowed = 0
        var cacheHits = 0
        var checked = 0
        for (number, sequence) in Self.sequences(seed: stableSeed(collation.locale)).enumerated() {
            let keystrokes = typedWithBackspaces(sequence)
            for (k, text) in keystrokes.enumerated() {
                // An edit every few keystrokes: an update, a removal or an insert.
                if (number + k) % 4 == 3 {
                    let victim = Int.random(in: 0..<records.count, using: &generator)
                    let replacement = Self.texts.randomElement(using: &generator)!
                    switch (number + k) % 3 {
                    case 0:
                        records[victim] = Record(
                            id: records[victim].id,
                            fields: ["name": replacement, "place": records[victim]["place"]]
                        )
                        _ = try index.update(records[victim])
                        try oracle.set(records[victim])
                    case 1:
                        let removed = records.remove(at: victim)
                        try index.remove(id: removed.id)
                        oracle.elements[removed.id] = nil
                    default:
                        let record = Record(id: "new\(number)-\(k)", fields: ["name": replacement, "place": sequence])
                        records.append(record)
                        _ = try index.insert(record)
                        try oracle.set(record)
                    }
                }
                // Contains results of the same patterns in the cache must never serve fuzzy ones.
                if number % 2 == 0 { _ = try index.search(Query(text, mode: .contains)) }
                let query = Query(text, mode: .fuzzy, order: k % 2 == 0 ? .ranked : .original)
                let result = try index.search(query)
                narrowed += result.statistics.narrowedScans
                cacheHits += result.statistics.cacheHits
                let got = try index.ids(result)
                // A query usearch sees no elements in matches every record (a defined edge case).
                let everything = try index.folded.foldings[0].folder.patternElements(text).isEmpty
                let expected = try everything ? Set(records.map(\.id)) : oracle.matches(text) ?? Set(records.map(\.id))
                #expect(
                    Set(got) == expected,
                    "\(collation) '\(text)': extra \(Set(got).subtracting(expected).prefix(5)), missing \(expected.subtracting(got).prefix(5))"
                )
                #expect(got.count == Set(got).count)
                if query.order == .ranked { try expectRankedOrder(result, index: index) }
                // Single-record evaluation (the controller's edit path) agrees, and so do highlights.
                for row in result.rows.prefix(40) {
                    #expect(try index.matches(row, query))
                    try expectHighlightsHoldTheQuery(row, query: query, index: index, oracle: oracle)
                    checked += 1
                }
                for record in records.prefix(40) where !expected.contains(record.id) {
                    let handle = index.handle(forID: record.id)!
                    #expect(try !index.matches(handle, query), "\(collation) '\(text)' matches '\(record.id)'")
                }
            }
        }
        #expect(narrowed > 0, "typing one character at a time should narrow")
        #expect(cacheHits > 0, "a backspace should be served from the cache")
        #expect(checked > 0)
    }

    /// Ranked rows go by score (best first), then the field reaching it (earlier first), then that
    /// field's length (shorter first; `RankingTieBreakTests` checks lengths against ICU), then
    /// original order.
    func expectRankedOrder(_ result: SearchResult, index: SearchIndex) throws {
        let plan = index.folded.scopePlans[0]
        guard case .patterns(let patterns) = try index.foldQuery(result.query.text, mode: .fuzzy, folding: plan.folding)
        else { return }
        var previous: (score: Int, field: Int, length: UInt8, position: Int)? = nil
        let lengths = index.rankingKeys.lengths[plan.folding]
        let positions = Dictionary(uniqueKeysWithValues: index.handles(in: .original).enumerated().map { ($1, $0) })
        for row in result.rows {
            guard let best = index.fuzzyScore(slot: row.slot, plan: plan, pattern: patterns[0]) else {
                Issue.record("a ranked row without a score")
                return
            }
            let length = lengths[plan.fields[best.field]][Int(row.slot)]
            let current = (score: best.score, field: best.field, length: length, position: positions[row]!)
            if let previous {
                let inOrder =
                    previous.score > current.score
                    || (previous.score == current.score
                        && (previous.field < current.field
                            || (previous.field == current.field
                                && (previous.length < current.length
                                    || (previous.length == current.length && previous.position < current.position)))))
                #expect(inOrder, "'\(result.query.text)': \(previous) before \(current)")
            }
            previous = current
        }
    }

    /// The highlighted text of some field holds the query's elements in order.
    func expectHighlightsHoldTheQuery(_ row: RecordHandle, query: Query, index: SearchIndex, oracle: Oracle) throws {
        let pattern = try oracle.reference.collationElements(of: query.text)
        guard !pattern.isEmpty else { return }
        var found = false
        for (field, ranges) in try index.highlights(of: row, for: query) {
            let value = try index.value(of: field, for: row)
            var elements: [Int64] = []
            for range in ranges { elements += try oracle.reference.collationElements(of: String(value[range])) }
            if Oracle.isSubsequence(pattern, of: elements) { found = true }
            for (a, b) in zip(ranges, ranges.dropFirst()) {
                #expect(a.upperBound < b.lowerBound, "highlights are merged when adjacent")
            }
        }
        let id = try index.id(of: row)
        #expect(found, "'\(query.text)' in \(id)")
    }
}
