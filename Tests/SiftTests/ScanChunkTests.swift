import Testing

@testable import Sift

/// Full scans work in chunks (cancellation is checked between them). Every occurrence must be
/// found whatever chunk boundary it straddles: with tiny chunks, a column of real names is cut
/// at thousands of places, and every answer must still equal ICU usearch's; the same when the scan
/// is split among the machine's cores.
@Suite("Scans across chunk boundaries")
struct ScanChunkTests {
    @Test(arguments: [31, 64, 1000, 4096], [false, true])
    func everyOccurrenceIsFoundWhateverTheChunkSize(_ chunk: Int, parallel: Bool) throws {
        let names = (try? readTSV("cities.tsv"))?.rows.prefix(6000).map { $0[1] } ?? []
        let records = names.enumerated().map { Record(id: String($0.offset), fields: ["name": $0.element]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        index.knobs.scanChunkBytes = chunk
        let reference = try ReferenceSearch(collation: Collation())
        for query in ["a", "an", "er", "san", "ia", "ou", "e", "st"] {
            let fresh = try SearchIndex(configuration: index.configuration, records: records)
            fresh.knobs.scanChunkBytes = chunk
            if parallel {  // three workers of 100+ segments, whatever the machine's cores
                fresh.knobs.parallelScanSegments = 100
                fresh.knobs.scanWorkers = 3
            }
            let got = Set(try fresh.ids(fresh.search(Query(query))))
            let expected = Set(try records.filter { try reference.contains(query, in: $0["name"]) }.map(\.id))
            #expect(
                got == expected,
                "chunk \(chunk), parallel \(parallel), '\(query)': missing \(expected.subtracting(got).count), extra \(got.subtracting(expected).count)"
            )
        }
    }

    /// A cancelled split scan throws, and the index answers the next queries exactly. (Whether
    /// the other workers stopped early is not observable here: had they run on, the answers
    /// would be the same.)
    @Test func aCancelledParallelScanThrowsAndLeavesTheIndexExact() throws {
        let names = (try? readTSV("cities.tsv"))?.rows.prefix(6000).map { $0[1] } ?? []
        let records = names.enumerated().map { Record(id: String($0.offset), fields: ["name": $0.element]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        index.knobs.scanChunkBytes = 64
        index.knobs.parallelScanSegments = 100
        index.knobs.scanWorkers = 3
        var checks = 0
        #expect(throws: CancellationError.self) {
            _ = try index.search(Query("a")) {
                checks += 1
                return checks > 2
            }
        }
        let serial = try SearchIndex(configuration: index.configuration, records: records)
        serial.knobs.scanWorkers = 1
        #expect(try index.ids(index.search(Query("an"))) == serial.ids(serial.search(Query("an"))))
        #expect(try index.ids(index.search(Query("a"))) == serial.ids(serial.search(Query("a"))))
    }
}
