import Foundation
import Testing

@testable import Sift
@testable import SiftDataset

/// Inputs that cannot be a data file end in one error after their first bytes; a read or a parse
/// that would not fit in memory is refused before it allocates; names in messages are cut.
@Suite struct ReadLimitTests {
    /// `/dev/zero` read as TSV or CSV has no line break: refused after 64 MiB, not at the read
    /// limit (half the machine's memory).
    @Test(arguments: [DataFormat.tsv, .csv])
    func anEndlessHeaderIsRefusedAfterItsFirstMegabytes(format: DataFormat) {
        #expect(
            throws: DataFileError(
                file: "/dev/zero",
                line: 1,
                message:
                    "the header line has no line break in its first 64 MiB: not a \(format == .csv ? "CSV" : "TSV") header"
                    + " (an endless input, such as /dev/zero?)"
            )
        ) {
            _ = try DataLoader.readBytes(path: "/dev/zero", maximumBytes: 200_000_000, format: format)
        }
    }

    @Test func jsonLinesThatDoNotStartAnObjectAreRefusedAtOnce() throws {
        #expect(throws: DataFileError(file: "/dev/zero", line: 1, message: "not a JSON object")) {
            _ = try DataLoader.readBytes(path: "/dev/zero", maximumBytes: 200_000_000, format: .jsonLines)
        }
        let path = try Support.writeTemporaryFile(Array("\n \n[1]\n".utf8), suffix: "array.jsonl")
        #expect(throws: DataFileError(file: path, line: 3, message: "not a JSON object")) {
            _ = try DataLoader.readBytes(path: path, format: .jsonLines)
        }
        // A header long but ended, and objects after blank lines, read as before.
        let wide = Array((String(repeating: "column\t", count: 200_000) + "last\n").utf8)
        let widePath = try Support.writeTemporaryFile(wide, suffix: "wide.tsv")
        #expect(try DataLoader.readBytes(path: widePath, format: .tsv) == wide)
        let objects = Array("\r\n  \n{\"a\": 1}\n".utf8)
        let objectsPath = try Support.writeTemporaryFile(objects, suffix: "objects.jsonl")
        #expect(try DataLoader.readBytes(path: objectsPath, format: .jsonLines) == objects)
    }

    @Test func aCallerCanRefuseAnInputByItsFirstBytes() {
        var seen = 0
        #expect(throws: DataFileError(file: "/dev/zero", message: "not wanted")) {
            _ = try DataLoader.readBytes(
                path: "/dev/zero",
                maximumBytes: 100_000_000,
                refusal: { first in
                    seen = first.count
                    return "not wanted"
                }
            )
        }
        #expect(seen == 64)
    }

    /// A file whose bytes or parse would not fit is refused naming the need and the limit.
    @Test func aReadOrParseThatWouldNotFitIsRefused() throws {
        let text = "id\tname\n" + (0..<20_000).map { "\($0)\tname \($0)\n" }.joined()
        let path = try Support.writeTemporaryFile(Array(text.utf8), suffix: "budget.tsv")
        let none = MemoryBudget(limits: [.init(name: "RLIMIT_AS", bytes: 1_000, used: 0)])
        MemoryBudget.$givenForTesting.withValue(none) {
            #expect {
                _ = try DataFile(path: path)
            } throws: { error in
                (error as? DataFileError)?.message.hasPrefix("loading the input needs about ") == true
            }
            #expect {
                _ = try DataFile(bytes: Array(text.utf8), source: "x.tsv", format: .tsv)
            } throws: { error in
                let message = (error as? DataFileError)?.message ?? ""
                // 16 bytes for each of 40,002 values, 8 for each of 20,002 lines.
                return message == "parsing the file needs about 800 KB, but only 1 KB is available (RLIMIT_AS 1 KB)"
            }
        }
        #expect(try DataFile(path: path).rowCount == 20_000)
    }

    /// A 10 MB column name (a file of NUL bytes is one) is not echoed whole, nor a million names.
    @Test func longNamesAreCutInMessages() {
        let name = String(repeating: "\0", count: 10_000_000)
        let error = DataFileError(file: "nul.tsv", line: 2, field: name, message: "invalid UTF-8")
        #expect(error.description.utf8.count < 500)
        #expect(error.description.contains("… (10000000 bytes)"))
        let names = (0..<1_000_000).map { "column \($0)" }
        #expect(shownNames(names) == names.prefix(10).joined(separator: ", ") + ", … (1000000 in all)")
        #expect(shownNames(["a", "b"]) == "a, b")
    }

    /// Records made a batch at a time are those made at once, and a duplicate id is reported
    /// before any batch is handed over.
    @Test func batchesOfRecordsAreTheRecords() throws {
        let text = "id\tname\tn\n" + (0..<1_000).map { "k\($0)\tname \($0)\t\($0 % 3 == 0 ? "" : "\($0)")\n" }.joined()
        let file = try DataFile(bytes: Array(text.utf8), source: "b.tsv", format: .tsv, chunkBytes: 512)
        let all = try file.records(idField: "id")
        for size in [1, 7, 999, 1_000, 5_000] {
            var batches: [[Record]] = []
            try file.forEachBatchOfRecords(idField: "id", batchSize: size) { batches.append($0) }
            #expect(batches.joined().elementsEqual(all))
            #expect(batches.allSatisfy { $0.count <= size })
        }
        // Consumed, freeing each chunk's value places behind it: the same records.
        for size in [1, 13, 1_000] {
            let copy = try DataFile(bytes: Array(text.utf8), source: "b.tsv", format: .tsv, chunkBytes: 512)
            var batches: [[Record]] = []
            try copy.consumeBatchesOfRecords(idField: "id", batchSize: size) { batches.append($0) }
            #expect(batches.joined().elementsEqual(all))
        }
        let jsonLines = (0..<100).map { "{\"id\": \"j\($0)\", \"n\": \($0)}" }.joined(separator: "\n")
        let table = try DataFile(bytes: Array(jsonLines.utf8), source: "j.jsonl", format: .jsonLines)
        let expected = try table.records(idField: "id")
        var made: [Record] = []
        try table.consumeBatchesOfRecords(idField: "id", batchSize: 30) { made += $0 }
        #expect(made == expected)
        let repeated = try DataFile(bytes: Array((text + "k5\tagain\t1\n").utf8), source: "b.tsv", format: .tsv)
        var handed = 0
        #expect(throws: DataFileError.self) {
            try repeated.forEachBatchOfRecords(idField: "id", batchSize: 10) { _ in handed += 1 }
        }
        #expect(handed == 0)
    }
}
