import Testing

@testable import Sift

@Suite("Bulk insert (folded on all cores)")
struct BulkInsertTests {
    static let records: [Record] = {
        let cities = (try? readTSV("cities.tsv"))?.rows.map { $0[1] } ?? []
        return (0..<20_000).map {
            Record(id: "c\($0)", fields: ["name": cities.isEmpty ? "x\($0)" : cities[$0 % cities.count]])
        }
    }()

    @Test func parallelBulkInsertAnswersLikeOneByOneInserts() throws {
        let configuration = IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "de"))
        let bulk = try SearchIndex(configuration: configuration, records: Self.records)
        let single = try SearchIndex(configuration: configuration)
        for record in Self.records { try single.insert(record) }
        #expect(bulk.count == Self.records.count)
        #expect(try bulk.handles().map { try bulk.id(of: $0) } == Self.records.map(\.id))
        for query in ["a", "san", "strasse", "zu", "ö", "x", "new y", "東"] {
            for mode in MatchMode.allCases {
                #expect(
                    try bulk.ids(bulk.search(Query(query, mode: mode)))
                        == single.ids(single.search(Query(query, mode: mode))),
                    "\(query) \(mode)"
                )
            }
        }
    }

    @Test func aDuplicateInABulkInsertKeepsTheRecordsBeforeIt() throws {
        var records = Self.records
        records[15_000] = Record(id: "c7", fields: ["name": "duplicate"])
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]))
        #expect(throws: SiftError.duplicateID("c7")) { try index.insert(contentsOf: records) }
        #expect(index.count == 15_000)
        #expect(try index.id(of: index.handle(at: 14_999)) == "c14999")
    }
}
