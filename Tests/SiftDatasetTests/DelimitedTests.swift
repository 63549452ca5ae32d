import Foundation
import SiftDataset
import Testing

@Suite struct DelimitedTests {
    // MARK: Basics

    @Test func loadsTSVFileWithLinesNumbersAndColumnLookup() throws {
        let path = try Support.writeTemporaryFile(
            Array("id\tname\tpop\n1\tOslo\t700000\n2\tBergen\t290000\n".utf8),
            suffix: "basic.tsv"
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let table = try DataLoader.load(path: path)
        #expect(table.source == path)
        #expect(table.format == .tsv)
        #expect(table.columns == ["id", "name", "pop"])
        #expect(table.rows.map(\.values) == [["1", "Oslo", "700000"], ["2", "Bergen", "290000"]])
        #expect(table.rows.map(\.line) == [2, 3])
        #expect(table.rows.map(\.number) == [1, 2])
        #expect(table.column(named: "name") == 1)
        #expect(table.column(named: "missing") == nil)
    }

    @Test func explicitFormatOverridesExtension() throws {
        let path = try Support.writeTemporaryFile(Array("a,b\n1,2\n".utf8), suffix: "data.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let table = try DataLoader.load(path: path, format: .csv)
        #expect(table.rows.map(\.values) == [["1", "2"]])
        #expect(throws: DataFileError.self) { try DataLoader.load(path: path) }
    }

    // MARK: UTF-8

    @Test func invalidUTF8InAFieldNamesLineFieldAndByte() throws {
        // "ab\xFFc" in column 'name' on line 3: the bad byte is byte 3 of the field.
        var bytes = Array("id\tname\n1\tok\n2\tab".utf8)
        bytes.append(0xFF)
        bytes += Array("c\n".utf8)
        let error = try #require(Support.error(bytes: bytes, .tsv, source: "cities.tsv"))
        #expect(
            error
                == DataFileError(
                    file: "cities.tsv",
                    line: 3,
                    field: "name",
                    message: "invalid UTF-8 at byte 3 of the field"
                )
        )
        #expect(error.description == "cities.tsv:3: field 'name': invalid UTF-8 at byte 3 of the field")
    }

    @Test(
        arguments: [
            [0x80],  // stray continuation byte
            [0xC0, 0x80],  // overlong NUL
            [0xE0, 0x80, 0x80],  // overlong 3-byte form
            [0xED, 0xA0, 0x80],  // encoded surrogate U+D800
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],  // invalid lead byte
            [0xE2, 0x82],  // truncated sequence (followed by a newline)
        ] as [[UInt8]]
    )
    func everyKindOfInvalidUTF8IsRejected(bad: [UInt8]) throws {
        let bytes = Array("a,b\nx,\"y".utf8) + bad + Array("\"\n".utf8)
        let error = try #require(Support.error(bytes: bytes, .csv))
        #expect(error.line == 2)
        #expect(error.field == "b")
        #expect(error.message == "invalid UTF-8 at byte 2 of the field")
    }

    @Test func invalidUTF8AtEndOfFileAndInHeaderAndInsideMultilineField() throws {
        // Truncated sequence at the very end of the file.
        let truncated = try #require(Support.error(bytes: Array("a,b\n1,é".utf8).dropLast(), .csv))
        #expect(truncated.line == 2 && truncated.field == "b")

        // In the header: line 1, no field name yet.
        let header = try #require(Support.error(bytes: Array("a,b".utf8) + [0xFF] + Array("\n1,2\n".utf8), .csv))
        #expect(header.description == "x.csv:1: invalid UTF-8 at byte 2 of header field 2")

        // Inside a quoted field that spans lines: the line of the bad byte is reported.
        let multiline = Array("a,b\n1,\"first\nsecond ".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        let error = try #require(Support.error(bytes: multiline, .csv))
        #expect(error.line == 3)
        #expect(error.field == "b")

        // Valid multi-byte text is accepted everywhere.
        let table = try Support.parse("näme,𝄞\nÅ,日本\n", .csv)
        #expect(table.columns == ["näme", "𝄞"])
        #expect(table.rows[0].values == ["Å", "日本"])
    }

    // MARK: BOM, line endings, final newline

    @Test func byteOrderMarkIsSkipped() throws {
        let table = try Support.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("id,name\n1,x\n".utf8), .csv)
        #expect(table.columns == ["id", "name"])
        #expect(table.column(named: "id") == 0)
        #expect(table.rows[0].line == 2)
        // A BOM-only file is empty.
        #expect(Support.error(bytes: [0xEF, 0xBB, 0xBF], .csv)?.message == "empty file (no header)")
    }

    @Test func crlfAndLFLineEndingsAndOptionalFinalNewline() throws {
        let expected = [["1", "x"], ["2", "y"]]
        for text in [
            "a\tb\r\n1\tx\r\n2\ty\r\n", "a\tb\r\n1\tx\r\n2\ty", "a\tb\n1\tx\n2\ty\n", "a\tb\n1\tx\n2\ty",
            "a\tb\r\n1\tx\n2\ty\r\n",
        ] {
            let table = try Support.parse(text, .tsv)
            #expect(table.columns == ["a", "b"], "\(text.debugDescription)")
            #expect(table.rows.map(\.values) == expected, "\(text.debugDescription)")
            #expect(table.rows.map(\.line) == [2, 3], "\(text.debugDescription)")
            #expect(!table.rows.flatMap(\.values).contains { $0.contains("\r") })
        }
        // Quoted last field before CRLF.
        let quoted = try Support.parse("a,b\r\n1,\"x\"\r\n2,\"y\"", .csv)
        #expect(quoted.rows.map(\.values) == expected)
    }

    // MARK: Ragged rows

    @Test func raggedRowsAreErrorsNamingLineAndCounts() throws {
        let short = try #require(Support.error("a,b,c,d,e\n1,2,3,4,5\n1,2,3,4,5\n1,2,3\n", .csv))
        #expect(short.description == "x.csv:4: row has 3 fields, the header has 5")
        #expect(short.line == 4)

        let long = try #require(Support.error("a\tb\n1\t2\t3\n", .tsv))
        #expect(long.description == "x.tsv:2: row has 3 fields, the header has 2")

        // A trailing delimiter is an extra (empty) field, not ignored.
        let trailing = try #require(Support.error("a,b\n1,2,\n", .csv))
        #expect(trailing.message == "row has 3 fields, the header has 2")

        let one = try #require(Support.error("a,b\n1\n", .csv))
        #expect(one.message == "row has 1 field, the header has 2")
    }

    // MARK: Quoting

    @Test func quotedFieldsWithNewlinesAndDoubledQuotesKeepLineNumbers() throws {
        let text =
            "id,text,n\n1,\"two\nlines\",a\n2,\"say \"\"hi\"\"\",b\n3,\"three\r\nline\nfield, with comma\",c\n4,plain,d\n"
        let table = try Support.parse(text, .csv)
        #expect(
            table.rows.map(\.values) == [
                ["1", "two\nlines", "a"],
                ["2", "say \"hi\"", "b"],
                ["3", "three\r\nline\nfield, with comma", "c"],
                ["4", "plain", "d"],
            ]
        )
        #expect(table.rows.map(\.line) == [2, 4, 5, 8])
        #expect(table.rows.map(\.number) == [1, 2, 3, 4])
    }

    @Test func tsvHonoursPythonCSVModuleQuoting() throws {
        // What Python's csv.writer(delimiter="\t") writes: only fields with a quote, tab or newline are quoted.
        let text = "name\tnote\tq\n\"tab\there\"\t\"line\nbreak\"\t\"5'10\"\" tall\"\nplain\t\"\"\tit's\n"
        let table = try Support.parse(text, .tsv)
        #expect(table.rows.map(\.values) == [["tab\there", "line\nbreak", "5'10\" tall"], ["plain", "", "it's"]])
        #expect(table.rows.map(\.line) == [2, 4])
    }

    @Test func quotingMistakesAreErrorsButBareQuotesAreLiteral() throws {
        let unclosed = try #require(Support.error("a,b\n1,ok\n2,\"never closed\n3,x\n", .csv))
        #expect(unclosed.line == 3)
        #expect(unclosed.field == "b")
        #expect(unclosed.message.contains("never closed"))

        let after = try #require(Support.error("a\tb\n\"x\"y\t2\n", .tsv))
        #expect(after.line == 2)
        #expect(after.field == "a")
        #expect(after.message.contains("after the closing quote"))

        // A quote inside an unquoted field is an ordinary character (as Python's csv reader does).
        let literal = try Support.parse("a\tb\n5'10\"\tx\"y\"\n", .tsv)
        #expect(literal.rows[0].values == ["5'10\"", "x\"y\""])
    }

    // MARK: Empty files, header only, blank lines

    @Test func emptyFileIsAnErrorAndHeaderOnlyIsAnEmptyTable() throws {
        let empty = try #require(Support.error("", .tsv, source: "e.tsv"))
        #expect(empty.description == "e.tsv: empty file (no header)")
        #expect(Support.error("\n\r\n", .csv)?.message == "empty file (no header)")

        for text in ["a,b", "a,b\n", "a,b\r\n", "a,b\n\n"] {
            let table = try Support.parse(text, .csv)
            #expect(table.columns == ["a", "b"])
            #expect(table.rows.isEmpty)
        }
        let blankHeader = try #require(Support.error("\na,b\n", .csv))
        #expect(blankHeader.line == 1)
    }

    @Test func trailingBlankLinesAreIgnoredAndInnerBlankLinesAreErrors() throws {
        let table = try Support.parse("a,b\n1,2\n\n\r\n\n", .csv)
        #expect(table.rows.map(\.values) == [["1", "2"]])

        let inner = try #require(Support.error("a,b\n1,2\n\n3,4\n", .csv))
        #expect(inner.line == 3)
        #expect(inner.message.contains("blank line"))

        // Also with a single column, where a blank line could be read as an empty value.
        let single = try #require(Support.error("a\n1\n\n2\n", .tsv))
        #expect(single.line == 3)
        // An explicitly quoted empty value is fine.
        let quotedEmpty = try Support.parse("a\n1\n\"\"\n2\n", .tsv)
        #expect(quotedEmpty.rows.map(\.values) == [["1"], [""], ["2"]])
    }

    // MARK: Header names

    @Test func duplicateAndEmptyHeaderNamesAreErrors() throws {
        let duplicate = try #require(Support.error("id,name,id,x,name\n", .csv))
        #expect(duplicate.line == 1)
        #expect(
            duplicate.message
                == "duplicate column names in the header: 'id' (columns 1 and 3), 'name' (columns 2 and 5)"
        )

        let one = try #require(Support.error("id\tname\tid\n1\t2\t3\n", .tsv))
        #expect(one.description == "x.tsv:1: duplicate column name in the header: 'id' (columns 1 and 3)")

        let empty = try #require(Support.error("id,,name\n1,2,3\n", .csv))
        #expect(empty.description == "x.csv:1: empty column name in the header (column 2)")
        #expect(Support.error("id\t\"\"\n1\t2\n", .tsv)?.message == "empty column name in the header (column 2)")
    }

    // MARK: NUL and large fields

    @Test func nulCharactersAreKept() throws {
        let bytes = Array("a\tb\n".utf8) + [0x78, 0x00, 0x79] + Array("\t\"".utf8) + [0x00] + Array("\"\n".utf8)
        let table = try Support.parse(bytes: bytes, .tsv)
        #expect(table.rows[0].values == ["x\u{0}y", "\u{0}"])
    }

    @Test func tenMegabyteFieldLoads() throws {
        let big = [UInt8](repeating: UInt8(ascii: "q"), count: 10 * 1024 * 1024)
        let bytes = Array("id\ttext\tafter\n1\t".utf8) + big + Array("\tend\n2\t\"x\ty\"\tz\n".utf8)
        let path = try Support.writeTemporaryFile(bytes, suffix: "big.tsv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let table = try DataLoader.load(path: path)
        #expect(table.rows.count == 2)
        #expect(table.rows[0].values[1].utf8.count == big.count)
        #expect(table.rows[0].values[2] == "end")
        #expect(table.rows[1].values == ["2", "x\ty", "z"])
        #expect(table.rows[1].line == 3)
    }

    // MARK: Robustness

    /// Random mutations of a valid file must either load consistently or fail with a located error;
    /// they must never trap, and the pre-scan and the CSV reader must never disagree.
    @Test(arguments: [DataFormat.csv, .tsv])
    func randomInputNeverCrashesOrDisagrees(format: DataFormat) throws {
        let delimiter = format == .csv ? "," : "\t"
        let seed =
            "id\(delimiter)name\(delimiter)note\r\n1\(delimiter)\"a\"\"b\"\(delimiter)x\n2\(delimiter)\"multi\nline\"\(delimiter)é\n"
        let alphabet: [UInt8] = Array("\"\r\n,\tax é".utf8) + [0x00, 0xFF, 0xC3]
        var random = SplitMix64(state: format == .csv ? 1 : 2)
        for _ in 0..<2000 {
            var bytes = Array(seed.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: index)
                case 1: if index < bytes.count { bytes.remove(at: index) }
                default: if index < bytes.count { bytes[index] = alphabet.randomElement(using: &random) ?? 0 }
                }
            }
            do {
                let table = try Support.parse(bytes: bytes, format)
                #expect(table.rows.allSatisfy { $0.values.count == table.columns.count })
                #expect(zip(table.rows, table.rows.dropFirst()).allSatisfy { $0.line < $1.line })
            } catch {
                #expect(
                    !error.message.contains("internal error"),
                    "\(error) \(String(decoding: bytes, as: UTF8.self).debugDescription)"
                )
                #expect(!error.description.contains("\n"))
            }
        }
    }
}
