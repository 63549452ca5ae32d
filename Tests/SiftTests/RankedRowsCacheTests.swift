import Testing

@testable import Sift

/// Ranked answers kept for the same query (`SearchIndex.cachedRankedRows`): typing a query again
/// gives the kept rows only while the index has not changed.
@Suite struct RankedRowsCacheTests {
    @Test func aKeptRankedAnswerIsDroppedByAnEdit() throws {
        let records = (0..<300).map { number in
            Record(id: "r\(number)", fields: ["name": number % 3 == 0 ? "vim \(number)" : "gvim build \(number)"])
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: records
        )
        let query = Query("vim", mode: .contains, order: .ranked)
        let first = try index.search(query).rows
        _ = try index.search(Query("vi", mode: .contains, order: .ranked))
        #expect(try index.search(query).rows == first)
        #expect(index.cachedRankedRows(.query(query))?.handles == first)

        // `r1` becomes the only whole-field match: it must lead the answer typed again.
        let moved = try index.update(Record(id: "r1", fields: ["name": "vim"]))
        #expect(index.cachedRankedRows(.query(query)) == nil)
        let again = try index.search(query).rows
        #expect(again.first == moved)
        #expect(again.count == first.count)
    }
}
