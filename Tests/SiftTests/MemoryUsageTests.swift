import Testing

@testable import Sift

@Suite("Memory usage accounting")
struct MemoryUsageTests {
    static func index(_ count: Int) throws -> SearchIndex {
        let records = (0..<count).map { i in
            Record(id: "id\(i)", fields: ["name": "Name number \(i)", "continent": i % 3 == 0 ? "EU" : "AS"])
        }
        return try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                scopes: [Scope(name: "All"), Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"]))]
            ),
            records: records
        )
    }

    @Test func recordTextCostsAboutOneBytePerValueBeyondItsUTF8() throws {
        let index = try Self.index(100_000)  // a bulk load: trimmed to 1/64 of headroom (bounds allow 1/16)
        let usage = index.memoryUsage
        let utf8 = (0..<100_000).reduce(0) { $0 + "id\($1)".utf8.count + "Name number \($1)".utf8.count + 2 }
        #expect(usage.recordText >= utf8 + 3 * 100_000)
        #expect(usage.recordText <= (utf8 + 3 * 100_000) * 17 / 16 + 3 * 1024)
        // One UInt32 and one slack byte per group of eight values (three columns), with headroom.
        #expect(usage.recordTextTables <= 3 * 5 * 100_000 / 8 * 17 / 16 + 3 * 5 * 1024)
        #expect(
            usage.total == usage.foldedCodes + usage.foldedAuxiliary + usage.recordTables + usage.recordText
                + usage.recordTextTables + usage.caches + usage.postings
        )
        #expect(usage.postings > 0, "100,000 records keep postings")
    }

    @Test func sortingAndCategoriesAreCountedOnceBuilt() throws {
        let index = try Self.index(20_000)
        let before = index.memoryUsage
        _ = try index.search(Query("", order: .sorted))
        let sorted = index.memoryUsage
        // The sorted order (4 bytes a slot in blocks: "Name number 10" sorts before "Name number 2",
        // so it does not follow slot order) and the sections (2 bytes a slot).
        #expect(sorted.slotTables >= before.slotTables + 6 * 20_000)
        _ = try index.search(Query("name", scope: "Europe"))
        #expect(index.memoryUsage.caches >= sorted.caches + 2 * 20_000 / 8)
    }
}
