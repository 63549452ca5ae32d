import Foundation
import SiftDataset
import Testing

@Suite struct JSONLinesTests {
    @Test func loadsObjectsWithKeysInFirstSeenOrderAndMissingKeysEmpty() throws {
        let text = """
            {"name": "Oslo", "pop": 700000, "capital": true}
            {"pop": 290000, "name": "Bergen", "nick": "Rain city", "capital": false}
            {"name": "Trondheim", "note": null}
            """
        let path = try Support.writeTemporaryFile(Array(text.utf8), suffix: "cities.ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let table = try DataLoader.load(path: path)
        #expect(table.format == .jsonLines)
        #expect(table.columns == ["name", "pop", "capital", "nick", "note"])
        #expect(
            table.rows.map(\.values) == [
                ["Oslo", "700000", "true", "", ""],
                ["Bergen", "290000", "false", "Rain city", ""],
                ["Trondheim", "", "", "", ""],
            ]
        )
        #expect(table.rows.map(\.line) == [1, 2, 3])
        #expect(table.rows.map(\.number) == [1, 2, 3])
    }

    @Test func numbersAreKeptAsWrittenAndStringsAreDecoded() throws {
        let text =
            #"{"a": 1.0, "b": 1e3, "c": -0, "d": 12345678901234567890123, "e": 2.50, "s": "tab\there \"q\" \u00e9 \ud83d\ude00"}"#
        let table = try Support.parse(text, .jsonLines)
        #expect(table.rows[0].values == ["1.0", "1e3", "-0", "12345678901234567890123", "2.50", "tab\there \"q\" é 😀"])
    }

    @Test func blankLinesAreSkippedAndLineNumbersStayReal() throws {
        let table = try Support.parse("\n{\"a\":1}\r\n   \n\t\r\n{\"a\":2}\n\n", .jsonLines)
        #expect(table.rows.map(\.values) == [["1"], ["2"]])
        #expect(table.rows.map(\.line) == [2, 5])
        #expect(table.rows.map(\.number) == [1, 2])
    }

    @Test func crlfBOMAndMissingFinalNewline() throws {
        let table = try Support.parse(
            bytes: [0xEF, 0xBB, 0xBF] + Array("{\"id\":\"x\"}\r\n{\"id\":\"y\"}".utf8),
            .jsonLines
        )
        #expect(table.columns == ["id"])
        #expect(table.rows.map(\.values) == [["x"], ["y"]])
    }

    @Test func nonObjectsAndInvalidJSONAreErrorsWithLines() throws {
        let array = try #require(Support.error("{\"a\":1}\n[1,2]\n", .jsonLines))
        #expect(array.description == "x.jsonl:2: not a JSON object")
        #expect(Support.error("{\"a\":1}\n\n\"text\"\n", .jsonLines)?.description == "x.jsonl:3: not a JSON object")
        #expect(Support.error("42\n", .jsonLines)?.description == "x.jsonl:1: not a JSON object")

        let broken = try #require(Support.error("{\"a\":1}\n{\"a\": tru}\n", .jsonLines))
        #expect(broken.line == 2)
        #expect(broken.message.hasPrefix("invalid JSON"))
        #expect(Support.error("{\"a\":1}\n{\"a\":1\n", .jsonLines)?.line == 2)
        // Foundation's parser accepts a trailing comma; this loader insists on standard JSON.
        let trailingComma = try #require(Support.error("{\"a\":1,}\n", .jsonLines))
        #expect(trailingComma.line == 1 && trailingComma.message.hasPrefix("invalid JSON"))
    }

    @Test func nestedValuesAreErrorsNamingLineAndKey() throws {
        let array = try #require(Support.error("{\"a\":1}\n{\"a\":2, \"tags\": [\"x\"]}\n", .jsonLines))
        #expect(array.line == 2)
        #expect(array.field == "tags")
        #expect(array.message.hasPrefix("nested array"))
        #expect(array.description.hasPrefix("x.jsonl:2: field 'tags': nested array"))

        let object = try #require(Support.error("{\"geo\": {\"lat\": 1}}\n", .jsonLines))
        #expect(object.line == 1 && object.field == "geo" && object.message.hasPrefix("nested object"))
    }

    @Test(arguments: ["1e999", "-1e999", "1E400", "1.8e308"])
    func numbersBeyondADoubleAreErrorsNamingLineAndKey(number: String) throws {
        let error = try #require(Support.error("{\"id\":1}\n{\"id\":2, \"pop\": \(number), \"x\": 1}\n", .jsonLines))
        #expect(error.line == 2)
        #expect(error.field == "pop")
        #expect(error.description.hasPrefix("x.jsonl:2: field 'pop': number \(number) is out of range"))
        // Numbers within range are kept as written, however long or small.
        let table = try Support.parse(
            "{\"a\": 1e-999, \"b\": 1.7976931348623157e308, \"c\": 12345678901234567890123}\n",
            .jsonLines
        )
        #expect(table.rows[0].values == ["1e-999", "1.7976931348623157e308", "12345678901234567890123"])
    }

    @Test func loneSurrogateEscapesAreErrorsNamingLineAndKey() throws {
        let high = try #require(Support.error("{\"id\":1}\n{\"id\":2, \"name\": \"x\\ud800y\"}\n", .jsonLines))
        #expect(
            high
                == DataFileError(
                    file: "x.jsonl",
                    line: 2,
                    field: "name",
                    message: "lone surrogate escape \\ud800 (not a Unicode character)"
                )
        )

        let low = try #require(Support.error("{\"name\": \"\\uDC00\"}\n", .jsonLines))
        #expect(low.line == 1 && low.field == "name" && low.message.contains("\\uDC00"))

        let reversed = try #require(Support.error("{\"name\": \"\\udc00\\ud800\"}\n", .jsonLines))
        #expect(reversed.field == "name")

        let atEnd = try #require(Support.error("{\"name\": \"\\ud83d\"}\n", .jsonLines))
        #expect(atEnd.field == "name")

        let inKey = try #require(Support.error("{\"k\\ud800\": 1}\n", .jsonLines))
        #expect(inKey.line == 1 && inKey.message.contains("in a key"))
    }

    @Test func invalidUTF8NamesLineAndKey() throws {
        let bytes = Array("{\"a\":\"ok\"}\n{\"a\":\"ok\",\"name\":\"ab".utf8) + [0xFF] + Array("\"}\n".utf8)
        let error = try #require(Support.error(bytes: bytes, .jsonLines))
        #expect(error.description == "x.jsonl:2: field 'name': invalid UTF-8 at byte 3 of the value")

        let outside = try #require(Support.error(bytes: [0xFF] + Array("{\"a\":1}\n".utf8), .jsonLines))
        #expect(outside.line == 1 && outside.field == nil && outside.message == "invalid UTF-8 at byte 1 of the line")
    }

    @Test func duplicateAndEmptyKeysAreErrors() throws {
        let duplicate = try #require(Support.error("{\"a\":1,\"b\":2,\"a\":3}\n", .jsonLines))
        #expect(duplicate.line == 1 && duplicate.field == "a" && duplicate.message == "duplicate key")
        // Escaped spelling of the same key is still a duplicate.
        #expect(Support.error("{\"ab\":1,\"a\\u0062\":2}\n", .jsonLines)?.field == "ab")
        #expect(Support.error("{\"\":1}\n", .jsonLines)?.message == "empty key name")
    }

    @Test func nulCharactersAreKept() throws {
        let table = try Support.parse("{\"a\":\"x\\u0000y\"}\n", .jsonLines)
        #expect(table.rows[0].values == ["x\u{0}y"])
    }

    @Test func emptyFileIsAnError() throws {
        #expect(Support.error("", .jsonLines)?.description == "x.jsonl: empty file (no records)")
        #expect(Support.error("\n  \n", .jsonLines)?.message == "empty file (no records)")
        // An empty object is a record with no values.
        let table = try Support.parse("{}\n{\"a\":\"1\"}\n", .jsonLines)
        #expect(table.rows.map(\.values) == [[""], ["1"]])
    }

    @Test func tenMegabyteStringValueLoads() throws {
        let big = String(repeating: "é", count: 5 * 1024 * 1024)  // 10 MiB of UTF-8
        let text = "{\"id\":1,\"text\":\"\(big)\"}\n{\"id\":2}\n"
        let table = try Support.parse(text, .jsonLines)
        #expect(table.rows.count == 2)
        #expect(table.rows[0].values[1].utf8.count == 10 * 1024 * 1024)
        #expect(table.rows[1].values == ["2", ""])
    }

    @Test func randomInputNeverCrashes() throws {
        let seed = "{\"a\": \"x\\u00e9\\\"\", \"b\": [1, {\"c\": null}], \"n\": -1.5e3}\n{\"a\": true}\n"
        let alphabet: [UInt8] = Array("{}[]\":,\\u0d8 \nae".utf8) + [0x00, 0xFF, 0xC3]
        var random = SplitMix64(state: 3)
        for _ in 0..<2000 {
            var bytes = Array(seed.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                if Bool.random(using: &random) {
                    bytes[index] = alphabet.randomElement(using: &random) ?? 0
                } else {
                    bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: index)
                }
            }
            do {
                let table = try Support.parse(bytes: bytes, .jsonLines)
                #expect(table.rows.allSatisfy { $0.values.count == table.columns.count })
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
