import Foundation
import Sift
import Synchronization
import Testing

@testable import SiftDataset

/// The chunked TSV/CSV parser against the serial parse it replaced (`ReferenceDelimitedParser`:
/// a pre-scan and `CSVReader`): the same table, byte for byte, and the same first error, with
/// chunk boundaries everywhere (chunks of one byte on) and with one chunk.
@Suite struct ParallelParseTests {
    /// Chunk sizes: tiny ones put a boundary after nearly every line feed, in quoted fields too.
    static let chunkSizes = [1, 2, 3, 5, 8, 13, 64, 1 << 20]

    /// The serial reference: its table or its error.
    static func reference(_ bytes: [UInt8], _ format: DataFormat, source: String) -> Result<DataTable, DataFileError> {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = ReferenceDelimitedParser(
                bytes: buffer,
                source: source,
                format: format,
                delimiter: format.delimiter!
            )
            return Result { () throws(DataFileError) -> DataTable in try parser.parse() }
        }
    }

    /// The chunked parse with chunks of about `chunkBytes`: its table or its error.
    static func chunked(
        _ bytes: [UInt8],
        _ format: DataFormat,
        source: String,
        chunkBytes: Int
    ) -> Result<DataFile, DataFileError> {
        Result { () throws(DataFileError) -> DataFile in
            try DataFile(bytes: bytes, source: source, format: format, chunkBytes: chunkBytes)
        }
    }

    /// Expects the chunked parse to agree with the reference on `bytes`, for every chunk size.
    static func expectSame(_ bytes: [UInt8], _ format: DataFormat, sourceLocation: SourceLocation = #_sourceLocation) {
        let source = format == .csv ? "t.csv" : "t.tsv"
        let expected = reference(bytes, format, source: source)
        for chunkBytes in chunkSizes {
            let context =
                "chunks of \(chunkBytes) bytes, input \(String(decoding: bytes, as: UTF8.self).debugDescription)"
            switch (expected, chunked(bytes, format, source: source, chunkBytes: chunkBytes)) {
            case (.success(let table), .success(let file)):
                let actual = file.table
                #expect(actual == table, "\(context)", sourceLocation: sourceLocation)
                // Byte for byte (String equality is up to canonical equivalence).
                #expect(
                    actual.rows.map { $0.values.map { Array($0.utf8) } }
                        == table.rows.map { $0.values.map { Array($0.utf8) } },
                    "\(context)",
                    sourceLocation: sourceLocation
                )
                #expect(file.rowCount == table.rows.count, "\(context)", sourceLocation: sourceLocation)
                #expect(file.textColumns == table.textColumns, "\(context)", sourceLocation: sourceLocation)
                for (i, row) in table.rows.enumerated() {
                    #expect(file.line(ofRow: i) == row.line, "\(context)", sourceLocation: sourceLocation)
                    for column in table.columns.indices {
                        #expect(
                            file.value(ofRow: i, column: column) == row.values[column],
                            sourceLocation: sourceLocation
                        )
                    }
                }
            case (.failure(let error), .failure(let actual)):
                #expect(actual == error, "\(context)", sourceLocation: sourceLocation)
            case (let expected, let actual):
                Issue.record(
                    "\(context): expected \(expected), got \(actual.map(\.table))",
                    sourceLocation: sourceLocation
                )
            }
        }
    }

    // MARK: Tricky inputs

    @Test func quotedFieldsWithLineBreaksAcrossChunkBoundaries() {
        let inputs = [
            "a,b\n1,\"x\ny\"\n2,\"\n\n\n\"\n3,z\n",
            "a,b\n1,\"x\r\ny\"\r\n2,\"p\rq\"\r\n",
            "a,b\n\"\n1\n2\n3\",\"\"\"\n\"\"\"\n4,5\n",
            "a,b\n1,\"line\nline\nline\nline\nline\nline\nline\nline\",2\n",  // a row with 3 fields, in quotes
            "a,b\n1,\"a \"\"quoted\"\"\nword\"\n",
            "a\tb\n\"x\ty\n\"\t\"\n\t\n\"\n",
            "a,b\n1,\"unterminated\n2,3\n4,5\n",
            "a,b\n1,\"closed\"x\n2,3\n",
            "a,b\n1,2\n\"x\ny\",\"\n\"\n\n\n",
        ]
        for input in inputs {
            Self.expectSame(Array(input.utf8), input.contains("\t") ? .tsv : .csv)
        }
    }

    @Test func lineEndsByteOrderMarkAndFinalNewline() {
        let inputs: [[UInt8]] = [
            Array("a,b\r\n1,2\r\n3,4\r\n".utf8),
            Array("a,b\r1,2\r3,4".utf8),
            Array("a,b\n1,2\r\n3,4\r5,6".utf8),
            [0xEF, 0xBB, 0xBF] + Array("a,b\n1,2\n".utf8),
            [0xEF, 0xBB, 0xBF],
            Array("\n\r\n".utf8),
            Array("\n\na,b\n1,2\n".utf8),
            Array("a,b".utf8),
            Array("a,b\n".utf8),
            Array("a,b\n1,2".utf8),
        ]
        for input in inputs { Self.expectSame(input, .csv) }
    }

    @Test func raggedRowsBlankLinesAndHeaderProblems() {
        let inputs = [
            "a,b,c\n1,2,3\n1,2\n1,2,3\n",
            "a,b\n1,2\n1,2,3\n",
            "a,b\n1,2\n\n3,4\n",
            "a,b\n1,2\n\n\n\n",
            "a,b\n1,2\n\n\r\n\n3\n",
            "a,b\n\n1,2,3\n",
            "a,b\n\n\"x\n",
            "a,,b\n1,2,3\n",
            "a,b,a\n1,2,3\n",
            "a,b\n1,2,\n",
            "a,\"b\nc\"\n1,2\n",
        ]
        for input in inputs { Self.expectSame(Array(input.utf8), .csv) }
    }

    @Test func invalidUTF8InEveryPlace() {
        let inputs: [[UInt8]] = [
            Array("a,b\n1,x".utf8) + [0xFF] + Array("\n2,3\n".utf8),
            Array("a,b\n1,\"x\ny".utf8) + [0xC3, 0x28] + Array("\"\n".utf8),
            Array("a,b".utf8) + [0x80] + Array("\n1,2\n".utf8),
            Array("a,b\n1,2,".utf8) + [0xE2, 0x82] + Array("\n".utf8),
            Array("a,b\n1,é".utf8).dropLast(),
            Array("a,b\n\n1,".utf8) + [0xFF] + Array("\n".utf8),
        ]
        for input in inputs { Self.expectSame(input, .csv) }
    }

    @Test func aBoundaryInsideAQuotedFieldIsReadAgainFromTheRowsStart() throws {
        // Chunks of 8 bytes: the first boundary falls inside the quoted field, after "x\n".
        let bytes = Array("a,b\n1,\"x\nyy,zz\n3,4\"\n5,6\n".utf8)
        let file = try DataFile(bytes: bytes, source: "t.csv", format: .csv, chunkBytes: 8)
        #expect(file.table.rows.map(\.values) == [["1", "x\nyy,zz\n3,4"], ["5", "6"]])
        #expect(file.table.rows.map(\.line) == [2, 5])
    }

    // MARK: Generated inputs

    /// Random TSV/CSV text: rows of fields, quoted or not, with every kind of line break, some
    /// quoting mistakes, wrong field counts, blank lines and bad bytes.
    static func generate(_ random: inout SplitMix64, delimiter: UInt8) -> [UInt8] {
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("xyz".utf8), Array("é".utf8), Array("日本".utf8), Array("12".utf8),
            Array("-1.5e3".utf8),
            Array(" ".utf8), Array("\"".utf8), [0],
        ]
        let breaks: [[UInt8]] = [[ASCII.lf], [ASCII.cr, ASCII.lf], [ASCII.cr]]
        var bytes: [UInt8] = random.next() % 8 == 0 ? [0xEF, 0xBB, 0xBF] : []
        let columns = Int(random.next() % 3) + 1
        let rows = Int(random.next() % 12)
        for row in 0...rows {
            var fields = columns
            if random.next() % 12 == 0 { fields += random.next() % 2 == 0 ? 1 : -1 }
            if row > 0 && random.next() % 14 == 0 { fields = 0 }  // a blank line
            for field in 0..<max(0, fields) {
                if field > 0 { bytes.append(delimiter) }
                var text: [UInt8] = []
                for _ in 0..<Int(random.next() % 4) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
                if row == 0 && text.isEmpty { text = Array("c\(field)".utf8) }
                if random.next() % 3 == 0 {
                    // Quoted: delimiters and line breaks inside, quotes doubled.
                    var quoted: [UInt8] = [ASCII.quote]
                    for byte in text {
                        quoted.append(byte)
                        if byte == ASCII.quote { quoted.append(ASCII.quote) }
                    }
                    if random.next() % 2 == 0 { quoted += breaks[Int(random.next() % 3)] }
                    if random.next() % 3 == 0 { quoted.append(delimiter) }
                    if random.next() % 25 != 0 { quoted.append(ASCII.quote) }  // sometimes never closed
                    if random.next() % 25 == 0 { quoted += Array("x".utf8) }  // text after the closing quote
                    bytes += quoted
                } else {
                    bytes += text.filter { row == 0 || $0 != ASCII.quote || random.next() % 2 == 0 }
                }
                if random.next() % 60 == 0 { bytes.append([0xFF, 0xC3, 0x80][Int(random.next() % 3)]) }
            }
            if row < rows || random.next() % 2 == 0 { bytes += breaks[Int(random.next() % 3)] }
        }
        if random.next() % 5 == 0 { bytes += [ASCII.lf, ASCII.lf] }
        return bytes
    }

    @Test(arguments: [DataFormat.csv, .tsv])
    func generatedInputsParseAsTheSerialReferenceDoes(format: DataFormat) {
        var random = SplitMix64(state: format == .csv ? 13 : 14)
        var parsed = 0
        for _ in 0..<1500 {
            let bytes = Self.generate(&random, delimiter: format.delimiter!)
            if case .success = Self.reference(bytes, format, source: "t") { parsed += 1 }
            Self.expectSame(bytes, format)
        }
        // Both outcomes are exercised.
        #expect(parsed > 150 && parsed < 1350, "\(parsed) of 1500 parsed")
    }

    // MARK: Records

    @Test func recordsFromTheFileAreThoseOfTheTable() throws {
        let text = "id,name,pop\n7,Oslo,700000\n8,\"Ber\"\"gen\",\n9,,12\n"
        for chunkBytes in Self.chunkSizes {
            let file = try DataFile(bytes: Array(text.utf8), source: "t.csv", format: .csv, chunkBytes: chunkBytes)
            let records = try file.records(idField: "id", fields: ["name"], categories: ["pop"])
            #expect(
                records == [
                    Record(id: "7", fields: ["name": "Oslo", "pop": "700000"]),
                    Record(id: "8", fields: ["name": "Ber\"gen"]),
                    Record(id: "9", fields: ["pop": "12"]),
                ]
            )
            #expect(try file.records().map(\.id) == ["1", "2", "3"])
            #expect(try file.records(idField: "id") == file.table.records(idField: "id"))
        }
    }

    @Test func recordErrorsComeInFileOrder() throws {
        // A duplicate id before an empty one, and the other way round, across chunk boundaries.
        let duplicateFirst = "id,v\n1,a\n2,b\n1,c\n,d\n"
        let emptyFirst = "id,v\n1,a\n,b\n1,c\n"
        for chunkBytes in Self.chunkSizes {
            let first = try DataFile(
                bytes: Array(duplicateFirst.utf8),
                source: "t.csv",
                format: .csv,
                chunkBytes: chunkBytes
            )
            #expect(
                throws: DataFileError(
                    file: "t.csv",
                    line: 4,
                    field: "id",
                    message: "duplicate id '1' (first on line 2)"
                )
            ) {
                try first.records(idField: "id")
            }
            let second = try DataFile(
                bytes: Array(emptyFirst.utf8),
                source: "t.csv",
                format: .csv,
                chunkBytes: chunkBytes
            )
            #expect(throws: DataFileError(file: "t.csv", line: 3, field: "id", message: "empty id")) {
                try second.records(idField: "id")
            }
            #expect(throws: DataFileError(file: "t.csv", message: "unknown id field 'nope' (columns: id, v)")) {
                try second.records(idField: "nope")
            }
        }
    }

    @Test func progressReachesTheEndOfEachPhase() throws {
        let path = try Support.writeTemporaryFile(
            Array(("id\tname\n" + (1...5000).map { "\($0)\tn\($0)\n" }.joined()).utf8),
            suffix: "p.tsv"
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reports = ReportLog()
        let file = try DataFile(path: path, progress: { reports.append($0) })
        _ = try file.records(progress: { reports.append($0) })
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let last = reports.last
        #expect(last[.reading] == DataLoadProgress(phase: .reading, completed: size, total: size))
        #expect(last[.parsing] == DataLoadProgress(phase: .parsing, completed: size, total: size))
        #expect(last[.records] == DataLoadProgress(phase: .records, completed: 5000, total: 5000))
    }
}

/// Progress reports, from any thread: the furthest one of each phase.
final class ReportLog: Sendable {
    private let reports = Mutex<[DataLoadProgress.Phase: DataLoadProgress]>([:])

    func append(_ report: DataLoadProgress) {
        reports.withLock { reports in
            if (reports[report.phase]?.completed ?? -1) < report.completed { reports[report.phase] = report }
        }
    }

    var last: [DataLoadProgress.Phase: DataLoadProgress] { reports.withLock { $0 } }
}
