import Foundation
import SiftStorage
import Testing
import _SiftTestSupport

@testable import Sift

/// One-element patterns answered from postings (`ElementPostings`) against the same index
/// scanning its columns: the same rows, in every mode and order, through edits, deferred word
/// starts, dropped postings, renumberings and snapshots.
@Suite("Postings: first letters without a scan, exactly as a scan answers them")
struct PostingsTests {
    /// Every collation here folds the corpus differently: contractions (Danish aa, Czech ch),
    /// ignorable punctuation (shifted), Thai and Japanese word breaks, identical strength (not
    /// served by postings: every hit is checked for canonical equality).
    static let collations = [
        Collation(locale: "root", strength: .primary),
        Collation(locale: "es"),
        Collation(locale: "da", strength: .secondary),
        Collation(locale: "cs"),
        Collation(locale: "th"),
        Collation(locale: "ja", strength: .tertiary),
        Collation(locale: "root", strength: .primary, alternate: .shifted),
        Collation(locale: "fr", strength: .identical),
    ]

    static let texts: [String] =
        Array(DifferentialTests.corpus.prefix(TestScale.size(full: 3_000, default: 700))) + [
            "e\u{301}", "\u{301}", "a\u{301}b", "ﬁ", "Ǆ", "ß", "æ", "œ", "ŉ", "'", "-x", " a", "a ", "ไทย", "京",
        ]

    /// Every one- and two-character query the texts suggest (lowercase and as written), plus a
    /// few that match nothing.
    static func queries(_ texts: [String], limit: Int) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for text in texts {
            let characters = Array(text)
            for (i, character) in characters.enumerated() {
                let pair = i + 1 < characters.count ? [String(characters[i...(i + 1)]).lowercased()] : []
                for query in [String(character), String(character).lowercased()] + pair
                where !query.trimmingCharacters(in: .whitespaces).isEmpty && seen.insert(query).inserted {
                    result.append(query)
                }
            }
        }
        var generator = SeededGenerator(seed: 7)
        return Array(result.shuffled(using: &generator).prefix(limit)) + ["q", "ǫ", "ж", "\u{301}"]
    }

    /// Every query in every exact mode and order: the same rows from both indexes, and (with
    /// `compareScans`, for indexes of the same history) no more full scans with postings than
    /// without. An edited index is compared with a fresh one without counting scans: its code
    /// book still holds the elements of removed records, so it scans for a query the fresh
    /// index knows to match nothing.
    static func expectSameAnswers(
        _ posted: SearchIndex,
        _ scanned: SearchIndex,
        _ queries: [String],
        _ context: String,
        compareScans: Bool = true
    ) throws -> Int {
        var hits = 0
        for query in queries {
            for mode in [MatchMode.contains, .prefix, .words] {
                for order in [ResultOrder.original, .ranked] {
                    let q = Query(query, mode: mode, order: order)
                    let got = try posted.search(q)
                    let expected = try scanned.search(q)
                    hits += got.statistics.postingsHits
                    let what =
                        "\(context): \(query.unicodeScalars.map { String($0.value, radix: 16) }) \(mode) \(order)"
                    if compareScans {
                        #expect(got.statistics.fullScans <= expected.statistics.fullScans, "\(what)")
                    }
                    #expect(try posted.ids(got) == (try scanned.ids(expected)), "\(what)")
                }
            }
        }
        return hits
    }

    /// The index with postings for every column, and one with none.
    static func pair(_ configuration: IndexConfiguration, _ records: [Record]) throws -> (SearchIndex, SearchIndex) {
        let posted = try SearchIndex(configuration: configuration, records: records)
        posted.knobs.postingsMinimumRecords = 0
        let scanned = try SearchIndex(configuration: configuration, records: records)
        scanned.knobs.postingsMinimumRecords = Int.max
        return (posted, scanned)
    }

    @Test(arguments: collations)
    func firstLettersAnswerAsAScan(_ collation: Collation) throws {
        let records = OracleCorpus.records(Self.texts, seed: stableSeed(collation.locale))
        let configuration = IndexConfiguration(searchFields: ["name", "place"], collation: collation)
        let (posted, scanned) = try Self.pair(configuration, records)
        let queries = Self.queries(Self.texts, limit: TestScale.size(full: 400, default: 120))
        let hits = try Self.expectSameAnswers(posted, scanned, queries, collation.locale)
        #expect((hits > 0) == (collation.strength != .identical), "postings answered \(hits) field patterns")
    }

    /// Random inserts, updates and removals between searches (some after more edits than the
    /// postings keep, so they are dropped and built again): always the answers of an index
    /// built afresh from the records as they are.
    @Test(arguments: [
        Collation(locale: "root"), Collation(locale: "th"), Collation(locale: "ja", strength: .secondary),
    ])
    func editsKeepPostingsExact(_ collation: Collation) throws {
        var generator = SeededGenerator(seed: stableSeed(collation.locale) &+ 3)
        let configuration = IndexConfiguration(searchFields: ["name", "place"], collation: collation)
        func record(_ id: String) -> Record {
            Record(
                id: id,
                fields: [
                    "name": Self.texts.randomElement(using: &generator)!,
                    "place": Self.texts.randomElement(using: &generator)!,
                ]
            )
        }
        var model = (0..<300).map { record("r\($0)") }
        let index = try SearchIndex(configuration: configuration, records: model)
        index.knobs.postingsMinimumRecords = 0
        index.folded.postings.maximumPendingEdits = 64
        let queries = Self.queries(Self.texts, limit: 24)
        var next = model.count
        for round in 0..<TestScale.size(full: 12, default: 5) {
            for _ in 0..<(round == 2 ? 200 : Int.random(in: 1...20, using: &generator)) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    let new = record("r\(next)")
                    next += 1
                    try index.insert(new)
                    model.append(new)
                case 1:
                    let position = Int.random(in: 0...model.count, using: &generator)
                    let new = record("r\(next)")
                    next += 1
                    try index.insert(new, at: position)
                    model.insert(new, at: position)
                case 2:
                    let position = Int.random(in: model.indices, using: &generator)
                    let updated = record(model[position].id)
                    try index.update(updated)
                    model[position] = updated
                default:
                    try index.remove(id: model.remove(at: Int.random(in: model.indices, using: &generator)).id)
                }
            }
            let scanned = try SearchIndex(configuration: configuration, records: model)
            scanned.knobs.postingsMinimumRecords = Int.max
            let hits = try Self.expectSameAnswers(
                index,
                scanned,
                queries,
                "\(collation.locale) round \(round)",
                compareScans: false
            )
            #expect(hits > 0)
        }
    }

    /// A renumbering drops the postings (their slots change) and builds them again.
    @Test func renumberingRebuildsPostings() throws {
        let records = OracleCorpus.records(Self.texts, seed: 5)
        let configuration = IndexConfiguration(searchFields: ["name", "place"])
        let index = try SearchIndex(configuration: configuration, records: records)
        index.knobs.postingsMinimumRecords = 0
        index.knobs.minimumSlotsToRenumber = Int.max  // not before the removals are done
        let queries = Self.queries(Self.texts, limit: 30)
        _ = try index.search(Query("a"))
        #expect(index.folded.postings.holds(folding: 0, field: 0))
        var kept = records
        for i in stride(from: records.count - 1, through: 0, by: -1) where i % 3 != 0 {
            try index.remove(id: records[i].id)
            kept.remove(at: i)
        }
        index.knobs.minimumSlotsToRenumber = 2
        #expect(index.renumberSlotsIfWorthwhile())
        #expect(index.folded.postings.holds(folding: 0, field: 0), "built again after the renumbering")
        let scanned = try SearchIndex(configuration: configuration, records: kept)
        scanned.knobs.postingsMinimumRecords = Int.max
        #expect(try Self.expectSameAnswers(index, scanned, queries, "renumbered", compareScans: false) > 0)
    }

    /// An index large enough for postings builds them as it loads, from the columns it verified
    /// (a snapshot does not store them, so it cannot hold a forged one). Its 70,000 records put
    /// rare elements' lists across two blocks of 65,536 slots.
    @Test func aLoadedSnapshotBuildsItsPostings() throws {
        let count = 70_000
        let texts = Self.texts
        let records = (0..<count).map { i in
            Record(id: String(i), fields: ["name": texts[i % texts.count], "place": texts[(i * 7) % texts.count]])
        }
        let configuration = IndexConfiguration(searchFields: ["name", "place"], collation: Collation(locale: "de"))
        let index = try SearchIndex(configuration: configuration, records: records)
        #expect(index.folded.postings.holds(folding: 0, field: 1), "built with the index")
        #expect(index.memoryUsage.postings > 0)
        let path = testScratch.appendingPathComponent(
            "sift-postings-\(UUID().uuidString).snapshot"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(loaded.folded.postings.holds(folding: 0, field: 0))
        let scanned = try SearchIndex(configuration: configuration, records: records)
        scanned.knobs.postingsMinimumRecords = Int.max
        scanned.folded.postings.removeAll()
        #expect(try Self.expectSameAnswers(loaded, scanned, Self.queries(texts, limit: 12), "loaded") > 0)
    }

    /// Lists made from members across many blocks of 65,536 slots (a million records' postings),
    /// then edited: the same members as a plain set.
    @Test func postingListsOverManyBlocks() {
        var generator = SeededGenerator(seed: 13)
        let capacity = 1_100_000
        var model = Set<Int32>()
        for _ in 0..<20_000 { model.insert(Int32.random(in: 0..<Int32(capacity), using: &generator)) }
        // A block left empty, and members at both ends of blocks.
        model = model.filter { $0 >> 16 != 5 }.union([0, 65_535, 65_536, 131_071, 1_048_575, 1_048_576])
        let sorted = model.sorted()
        var list = sorted.withUnsafeBufferPointer { PostingSet.list(PostingList($0)) }
        #expect(list.bitset(capacity: capacity).sparseMembers == sorted)
        if case .list(let plain) = list {
            for slot in sorted.prefix(500) { #expect(plain.contains(slot)) }
            #expect(!plain.contains(5 << 16) && !plain.contains(1))
        }
        for step in 0..<3_000 {
            let slot = step % 2 == 0 ? sorted[step] : Int32.random(in: 0..<Int32(capacity), using: &generator)
            let member = step % 3 != 0
            list.set(slot, to: member, capacity: capacity)
            if member { model.insert(slot) } else { model.remove(slot) }
        }
        #expect(list.count == model.count)
        #expect(list.bitset(capacity: capacity).sparseMembers == model.sorted())
    }

    @Test func postingListsKeepTheirMembers() {
        var generator = SeededGenerator(seed: 11)
        var model = Set<Int32>()
        var list = PostingSet.empty
        let capacity = 400_000
        for step in 0..<6_000 {
            let slot = Int32.random(in: 0..<Int32(capacity), using: &generator)
            let member = step % 5 != 0
            list.set(slot, to: member, capacity: capacity)
            if member { model.insert(slot) } else { model.remove(slot) }
        }
        #expect(list.count == model.count)
        if case .bits = list { Issue.record("a list of 1% of the slots stays a list") }
        #expect(list.bitset(capacity: capacity).sparseMembers == model.sorted())
        for slot in model.prefix(200) { list.set(slot, to: false, capacity: capacity) }
        #expect(list.count == model.count - 200)
        for slot in 0..<Int32(capacity / 8) { list.set(slot, to: true, capacity: capacity) }
        guard case .bits(let bits) = list else {
            Issue.record("an eighth of the slots takes less room as bits")
            return
        }
        #expect(bits.count == list.count)
    }
}
