import Testing

@testable import Sift

/// Ranked and sorted answers kept for the same query (`SearchIndex.cachedOrderedRows`): typing a
/// query again gives the kept rows only while the index has not changed.
@Suite struct KeptRowsTests {
    @Test func aKeptRankedAnswerIsDroppedByAnEdit() throws {
        let records = (0..<300).map { number in
            Record(id: "r\(number)", fields: ["name": number % 3 == 0 ? "vim \(number)" : "gvim build \(number)"])
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: records
        )
        let query = Query("vim", mode: .words, order: .ranked)
        let first = try index.search(query).rows
        _ = try index.search(Query("vi", mode: .words, order: .ranked))
        #expect(try index.search(query).rows == first)
        #expect(index.cachedOrderedRows(.query(query))?.handles == first)

        // `r1` becomes the only whole-field match: it must lead the answer typed again.
        let moved = try index.update(Record(id: "r1", fields: ["name": "vim"]))
        #expect(index.cachedOrderedRows(.query(query)) == nil)
        let again = try index.search(query).rows
        #expect(again.first == moved)
        #expect(again.count == first.count + 1)  // "gvim build 1" did not start a word with vim
    }

    /// In contains and prefix modes a ranked answer is kept under its folded pattern: another
    /// text folding alike (`mü` after `mu` at primary strength) is that answer, until an edit.
    @Test func aRankedAnswerIsKeptUnderItsFoldedPattern() throws {
        let records = (0..<300).map { number in
            Record(id: "r\(number)", fields: ["name": number % 3 == 0 ? "Müller \(number)" : "Mumbai \(number)"])
        }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        for mode in [MatchMode.contains, .prefix] {
            let first = try index.search(Query("mu", mode: mode, order: .ranked))
            _ = try index.search(Query("m", mode: mode, order: .ranked))
            let kept = index.caches.keptRows.count
            let accented = try index.search(Query("mü", mode: mode, order: .ranked))
            #expect(accented.rows == first.rows)
            #expect(index.caches.keptRows.count == kept)  // answered from the kept "mu" answer, none added
            // An edit drops it: the record now named exactly "Mu" (a whole-field match) leads.
            _ = try index.update(Record(id: mode == .contains ? "r1" : "r2", fields: ["name": "Mu"]))
            let again = try index.search(Query("mü", mode: mode, order: .ranked)).rows
            #expect(try index.value(of: "name", for: try #require(again.first)) == "Mu")
            #expect(again != first.rows)
        }
    }

    @Test func aKeptSortedAnswerIsDroppedByAnEdit() throws {
        let names = ["Zürich", "Ávila", "Bern", "Ñandú", "Oslo", "Lyon", "Évora", "Quito"]
        let records = (0..<400).map { Record(id: "r\($0)", fields: ["name": "\(names[$0 % 8]) \($0)"]) }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
            records: records
        )
        let query = Query("o", mode: .contains, order: .sorted)
        let first = try index.search(query).rows
        _ = try index.search(Query("ov", mode: .contains, order: .sorted))
        #expect(index.cachedOrderedRows(.query(query))?.handles == first)
        #expect(try index.search(query).rows == first)

        // `r1` now sorts first among the matches: the answer typed again must show it there.
        let moved = try index.update(Record(id: "r1", fields: ["name": "Aarhus o"]))
        #expect(index.cachedOrderedRows(.query(query)) == nil)
        let again = try index.search(query).rows
        #expect(again.first == moved)
        #expect(again.count == first.count + 1)
    }

    /// A fuzzy field result's scores are kept for the next ranked answer over it, but only while
    /// the index has not changed: an edit that keeps a record's match and changes its score must
    /// reorder the answer typed again.
    @Test func keptFuzzyScoresAreDroppedByAnEdit() throws {
        let records = (0..<300).map { Record(id: "r\($0)", fields: ["name": "ka xyz \($0)"]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        let query = Query("ka", mode: .fuzzy, order: .ranked)
        let first = try index.search(query).rows
        _ = try index.search(Query("kay", mode: .fuzzy, order: .ranked))
        #expect(index.caches.keptFuzzyScores.count == 2)
        // Still a match, and the shortest field, but a gap costs it the best score: last now.
        let moved = try index.update(Record(id: "r150", fields: ["name": "k a"]))
        let again = try index.search(query).rows
        #expect(again.count == first.count)
        #expect(again.last == moved)
    }
}
