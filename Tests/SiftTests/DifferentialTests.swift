import Foundation
import Testing

@testable import Sift

/// Sift's answers against ICU's own usearch on real multilingual data: for every keystroke of
/// every query, the set of matching records and every highlight range must be identical.
@Suite("Differential: index vs ICU usearch on real data")
struct DifferentialTests {
    /// City names (GeoNames) and country names in ~150 languages (iso-codes), sampled.
    static let corpus: [String] = {
        var generator = SeededGenerator(seed: 20_261_121)
        var texts: [String] = []
        if let cities = try? readTSV("cities.tsv") {
            let name = cities.header.firstIndex(of: "name")!
            texts += cities.rows.map { $0[name] }.shuffled(using: &generator).prefix(1200)
        }
        if let names = try? readTSV("country_names_i18n.tsv") {
            let value = names.header.firstIndex(of: "value")!
            texts += names.rows.map { $0[value] }.shuffled(using: &generator).prefix(1800)
        }
        // Hand-picked texts for the classic collation cases.
        texts += [
            "Straße", "STRASSE", "Weiß", "Aalborg", "Åse", "Ålborg", "chata", "Chrudim", "chico", "El niño juega",
            "José Martí", "Jose", "Müller", "Mueller", "İzmir", "Izmir", "ıslak", "Łódź", "Rock'n'Roll", "Rock n Roll",
            "東京都", "กรุงเทพมหานคร", "e\u{301}clair", "éclair", "ﬁnance", "Ǆemal", "",
        ]
        return texts
    }()

    static let configurations: [Collation] = [
        Collation(locale: "root"),
        Collation(locale: "es"),
        Collation(locale: "da"),
        Collation(locale: "de", strength: .secondary),
        Collation(locale: "sv", strength: .tertiary),
        Collation(locale: "cs"),
        Collation(locale: "tr"),
        Collation(locale: "root", alternate: .shifted),
        Collation(locale: "es@collation=traditional"),
        Collation(locale: "ja"),
        Collation(locale: "th"),
    ]

    /// Queries typed one character at a time: fixed ones for known collation cases, plus
    /// substrings of random records (by grapheme), some lower-cased.
    static func queries(seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var result = [
            "nino", "niño", "jose", "strasse", "STRAS", "aa", "aalb", "ch", "chi", "ss", "mull", "izm", "İz", "ı",
            "lodz", "rock n", "東京", "กรุง", "eclair", "fin", "dž", "a", "e", "o",
        ]
        let nonEmpty = corpus.filter { !$0.isEmpty }
        for i in 0..<TestScale.size(full: 24, default: 10) {
            let text = Array(nonEmpty.randomElement(using: &generator)!)
            let length = Int.random(in: 1...min(6, text.count), using: &generator)
            let start = Int.random(in: 0...(text.count - length), using: &generator)
            let piece = String(text[start..<(start + length)])
            result.append(i % 3 == 0 ? piece.lowercased() : piece)
        }
        return result
    }

    @Test(arguments: configurations)
    func everyKeystrokeMatchesICU(_ collation: Collation) throws {
        let records = Self.corpus.enumerated().map { Record(id: String($0.offset), fields: ["text": $0.element]) }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["text"], collation: collation),
            records: records
        )
        // Narrowed scans read their candidates as a list (results kept as lists) in about half the
        // configurations, as bits in the others.
        index.knobs.sparseSlotLimitOverride = stableSeed(collation.locale).isMultiple(of: 2) ? Int.max : 0
        index.knobs.postingsMinimumRecords = 0  // first letters from postings, as at a million records
        let folder = try ICUFolder(ICUCollator(collation))
        var narrowed = 0
        for query in Self.queries(seed: stableSeed(collation.locale)) {
            var typed = ""
            for character in query {
                typed.append(character)
                let result = try index.search(Query(typed))
                narrowed += result.statistics.narrowedScans
                let got = Set(try index.ids(result))
                var expected: Set<String> = []
                var expectedRanges: [String: [Range<Int>]] = [:]
                for record in records {
                    let ranges = try folder.referenceMatches(of: typed, in: record["text"]).map {
                        $0.start..<($0.start + $0.length)
                    }
                    if !ranges.isEmpty {
                        expected.insert(record.id)
                        expectedRanges[record.id] = ranges
                    }
                }
                let allIgnorable = try folder.patternElements(typed).isEmpty
                if allIgnorable {
                    #expect(got.count == records.filter { !$0["text"].isEmpty }.count || got.count == records.count)
                    continue
                }
                #expect(
                    got == expected,
                    "\(collation) '\(typed)': extra \(got.subtracting(expected).prefix(5).map { records[Int($0)!]["text"] }), missing \(expected.subtracting(got).prefix(5).map { records[Int($0)!]["text"] })"
                )
                for row in result.rows.prefix(200) {
                    let id = try index.id(of: row)
                    let ranges = try index.matchRanges(of: row, for: Query(typed))["text"] ?? []
                    #expect(ranges == expectedRanges[id], "\(collation) '\(typed)' in '\(records[Int(id)!]["text"])'")
                }
            }
        }
        #expect(narrowed > 0, "typing one character at a time should narrow")
    }

    /// Prefix mode: the record's first collation element starts ICU's first match.
    @Test(arguments: [Collation(locale: "root"), Collation(locale: "da"), Collation(locale: "de", alternate: .shifted)])
    func prefixModeMatchesICUFirstMatchAtTheStart(_ collation: Collation) throws {
        let records = Self.corpus.enumerated().map { Record(id: String($0.offset), fields: ["text": $0.element]) }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["text"], collation: collation),
            records: records
        )
        let folder = try ICUFolder(ICUCollator(collation))
        for query in ["s", "sa", "san", "aa", "a", "stras", "strass", "ch", "東", "rock n"] {
            let got = Set(try index.ids(index.search(Query(query, mode: .prefix))))
            var expected: Set<String> = []
            for record in records {
                let folded = try folder.fold(record["text"])
                guard let first = folded.lows.first,
                    let match = try folder.referenceMatches(of: query, in: record["text"]).first
                else { continue }
                if match.start == Int(first) { expected.insert(record.id) }
            }
            #expect(got == expected, "\(collation) prefix '\(query)'")
        }
    }
}

/// Ranked results, whose groups are the first pattern's matches under stronger anchors (scanned,
/// narrowed and cached like any pattern), against the per-record ranking (`rankingGroup(of:for:)`,
/// a SegmentScanner pass): prefix matches, then word starts, then the rest, each group by
/// `rankingKey(of:for:)` (the deciding field's length) and original order. Every query is typed a character at a time and then erased, so that ranked groups are
/// also served by narrowing and from the cache.
@Suite("Differential: ranked order against per-record ranking")
struct RankedOrderTests {
    @Test(
        arguments: [
            Collation(locale: "root"), Collation(locale: "es"), Collation(locale: "da"), Collation(locale: "th"),
            Collation(locale: "de", strength: .secondary), Collation(locale: "root", alternate: .shifted),
            Collation(locale: "root", strength: .identical),
        ],
        [0, Int.max]  // groups from passes over bitsets, or record by record
    )
    func rankedResultsAreGroupedAsEachRecordRanks(_ collation: Collation, sparseLimit: Int) throws {
        let records = DifferentialTests.corpus.enumerated().map { i, text in
            Record(
                id: String(i),
                fields: ["text": text, "other": DifferentialTests.corpus[(i * 7) % DifferentialTests.corpus.count]]
            )
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["text", "other"], collation: collation),
            records: records
        )
        // Narrowed results as lists where groups come from passes over bitsets, and as bits where
        // records are grouped one by one: both meet every operation of the other way.
        index.knobs.sparseSlotLimitOverride = sparseLimit == 0 ? Int.max : 0
        index.knobs.membersPerLengthOrderingThread = 3  // large groups split among threads, as at millions
        index.knobs.postingsMinimumRecords = 0  // first letters from postings, as at a million records
        let queries = DifferentialTests.queries(seed: stableSeed(collation.locale))
            .prefix(TestScale.size(full: 30, default: 6))
        let typed = queries.flatMap { text in
            let prefixes = (1...max(1, text.count)).map { String(text.prefix($0)) }
            return prefixes + prefixes.reversed().dropFirst()
        }
        for text in typed {
            for mode in [MatchMode.contains, .words] {
                let query = Query(text, mode: mode, order: .ranked)
                let ranked = try index.search(query).rows
                let plain = try index.search(Query(text, mode: mode)).rows
                #expect(Set(ranked) == Set(plain), "\(text)")
                let groups = try ranked.map { try index.rankingGroup(of: $0, for: query) ?? 0 }
                #expect(groups == groups.sorted(), "'\(text)' \(mode) in \(collation.locale)")
                // Within a group: shorter deciding fields first, then original order (see
                // `RankingTieBreakTests` for the lengths against ICU's own folding).
                let keys = try ranked.map { (try index.rankingKey(of: $0, for: query)!, try index.position(of: $0)) }
                let misplaced = zip(keys, keys.dropFirst()).filter { !($0 < $1) }.count
                #expect(misplaced == 0, "'\(text)' \(mode) in \(collation.locale)")
            }
        }
    }
}
