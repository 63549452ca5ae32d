import Testing

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

    @Test(arguments: [0, 1])
    func editedColumnsAnswerLikeAFreshIndex(_ seed: UInt64) throws {
        let names = Self.multilingualNames()
        try #require(names.count > 2000)
        var random = SeededGenerator(seed: seed)
        var records = names.prefix(600).enumerated().map {
            Record(id: "r\($0.offset)", fields: ["name": $0.element, "other": names[names.count - 1 - $0.offset]])
        }
        let configuration = IndexConfiguration(searchFields: ["name", "other"])
        let index = try SearchIndex(configuration: configuration, records: records)
        index.scanChunkBytes = 97  // many chunk boundaries, so carries across calls are exercised too
        var nextID = records.count
        // Enough updates and deletes that dead bytes outweigh live ones: compaction runs, some
        // slots are freed and reused, and later edits break the layout again.
        for step in 0..<1400 {
            let choice = Int(random.next() % 10)
            if choice < 5, !records.isEmpty {
                let position = Int(random.next() % UInt64(records.count))
                let name = names[Int(random.next() % UInt64(names.count))]
                records[position] = Record(id: records[position].id, fields: ["name": name, "other": records[position]["other"]])
                try index.update(records[position])
            } else if choice < 7, !records.isEmpty {
                let position = Int(random.next() % UInt64(records.count))
                try index.remove(id: records[position].id)
                records.remove(at: position)
            } else {
                let position = Int(random.next() % UInt64(records.count + 1))
                let record = Record(
                    id: "n\(nextID)",
                    fields: ["name": names[Int(random.next() % UInt64(names.count))], "other": names[step % names.count]])
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
        _ index: SearchIndex, _ records: [Record], _ configuration: IndexConfiguration, step: Int
    ) throws {
        let fresh = try SearchIndex(configuration: configuration, records: records)
        let reference = try ReferenceSearch(collation: Collation())
        for mode in [MatchMode.contains, .prefix, .words] {
            for query in Self.queries {
                index.discardCachedResults()
                let got = try index.ids(index.search(Query(query, mode: mode)))
                let expected = try fresh.ids(fresh.search(Query(query, mode: mode)))
                let sameAsFresh = got == expected
                #expect(sameAsFresh, "step \(step), \(mode) '\(query)': \(got.count) results, a fresh index \(expected.count)")
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
}
