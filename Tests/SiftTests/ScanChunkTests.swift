import Testing

@testable import Sift

/// Full scans work in chunks (cancellation is checked between them). Every occurrence must be
/// found whatever chunk boundary it straddles: with tiny chunks, a column of real names is cut
/// at thousands of places, and every answer must still equal ICU usearch's.
@Suite("Scans across chunk boundaries")
struct ScanChunkTests {
    @Test(arguments: [31, 64, 1000, 4096])
    func everyOccurrenceIsFoundWhateverTheChunkSize(_ chunk: Int) throws {
        let names = (try? readTSV("cities.tsv"))?.rows.prefix(6000).map { $0[1] } ?? []
        let records = names.enumerated().map { Record(id: String($0.offset), fields: ["name": $0.element]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        index.scanChunkBytes = chunk
        let reference = try ReferenceSearch(collation: Collation())
        for query in ["a", "an", "er", "san", "ia", "ou", "e", "st"] {
            let fresh = try SearchIndex(configuration: index.configuration, records: records)
            fresh.scanChunkBytes = chunk
            let got = Set(try fresh.ids(fresh.search(Query(query))))
            let expected = Set(try records.filter { try reference.contains(query, in: $0["name"]) }.map(\.id))
            #expect(
                got == expected,
                "chunk \(chunk), '\(query)': missing \(expected.subtracting(got).count), extra \(got.subtracting(expected).count)"
            )
        }
    }
}
