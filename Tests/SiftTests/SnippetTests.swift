import Testing

@testable import Sift

/// Snippets: a window of a long field around its first match, cut at grapheme boundaries, with
/// the highlights inside it.
@Suite("Snippets")
struct SnippetTests {
    @Test func aShortFieldIsItsOwnWindow() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["t"]),
            records: [Record(id: "1", fields: ["t": "Große Straße"])]
        )
        let row = try #require(index.handle(forID: "1"))
        let snippet = try #require(try index.snippets(of: row, for: Query("strasse"), length: 40)["t"])
        #expect(snippet.text == "Große Straße")
        #expect(!snippet.isCutAtStart && !snippet.isCutAtEnd)
        #expect(snippet.ranges.map { String(snippet.text[$0]) } == ["Straße"])
        #expect(snippet.utf16Ranges == [6..<12] && snippet.utf16Offset == 0)
        #expect(try index.snippets(of: row, for: Query("nowhere"), length: 40).isEmpty)
    }

    @Test func aLongFieldIsCutAroundTheFirstMatchAtWordBoundaries() throws {
        let words = (0..<200).map { "word\($0)" }
        let text = (words[..<100] + ["Straße", "and", "Strasse"] + words[100...]).joined(separator: " ")
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["t"]),
            records: [Record(id: "1", fields: ["t": text])]
        )
        let row = try #require(index.handle(forID: "1"))
        let snippet = try #require(try index.snippets(of: row, for: Query("strasse"), length: 40)["t"])
        #expect(snippet.text.count <= 40)
        #expect(snippet.isCutAtStart && snippet.isCutAtEnd)
        #expect(snippet.ranges.map { String(snippet.text[$0]) } == ["Straße", "Strasse"])
        #expect(!snippet.text.hasPrefix(" ") && !snippet.text.hasSuffix(" "))
        // Cut at word boundaries: every word of the window is a whole word of the field.
        #expect(snippet.text.split(separator: " ").allSatisfy { text.split(separator: " ").contains($0) })
        let utf16 = Array(text.utf16)
        let window = Array(snippet.text.utf16)
        #expect(Array(utf16[snippet.utf16Offset..<(snippet.utf16Offset + window.count)]) == window)
    }

    @Test func windowsCutOnlyAtGraphemeBoundaries() throws {
        let family = "👩‍👩‍👧"
        let text =
            String(repeating: family + "e\u{301}", count: 30) + " café " + String(repeating: "🇫🇷x\u{308}", count: 30)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["t"]),
            records: [Record(id: "1", fields: ["t": text])]
        )
        let row = try #require(index.handle(forID: "1"))
        for length in [1, 2, 3, 5, 8, 13, 21, 200] {
            let snippet = try #require(try index.snippets(of: row, for: Query("cafe"), length: length)["t"])
            #expect(snippet.text.count <= length, "\(length)")
            // Whole clusters: the window's characters are the field's, in the same place.
            let characters = Array(text)
            let before = String(text.utf16.prefix(snippet.utf16Offset))!
            let start = before.count
            #expect(Array(snippet.text) == Array(characters[start..<(start + snippet.text.count)]), "\(length)")
        }
    }

    /// On real data, long fields made of many records' texts: the window holds at most `length`
    /// characters, shows the start of the first match, and its ranges are the record's highlights clipped to the window.
    @Test(arguments: [Collation(), Collation(locale: "th"), Collation(locale: "de", strength: .secondary)])
    func snippetsAreTheHighlightsClippedToTheWindow(_ collation: Collation) throws {
        var generator = SeededGenerator(seed: stableSeed("snippets " + collation.locale))
        let corpus = DifferentialTests.corpus.filter { !$0.isEmpty }
        let records = (0..<60).map { i in
            let parts = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                corpus.randomElement(using: &generator)!
            }
            return Record(id: String(i), fields: ["t": parts.joined(separator: " ")])
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["t"], collation: collation),
            records: records
        )
        for _ in 0..<12 {
            let source = Array(corpus.randomElement(using: &generator)!)
            let cut = String(source.prefix(Int.random(in: 1...min(5, source.count), using: &generator)))
            for query in [Query(cut), Query(cut, mode: .words), Query("\"\(cut)\" | \(cut)", mode: .words)] {
                for row in try index.search(query).rows.prefix(10) {
                    let field = try index.value(of: "t", for: row)
                    let highlights = try index.matchRanges(of: row, for: query)["t"] ?? []
                    for length in [1, 7, 30, 120] {
                        let snippet = try index.snippets(of: row, for: query, length: length)["t"]
                        guard let snippet else {
                            #expect(highlights.isEmpty)
                            continue
                        }
                        let windowEnd = snippet.utf16Offset + snippet.text.utf16.count
                        let clipped = highlights.compactMap { range -> Range<Int>? in
                            let low = max(range.lowerBound, snippet.utf16Offset)
                            let high = min(range.upperBound, windowEnd)
                            return low < high ? (low - snippet.utf16Offset)..<(high - snippet.utf16Offset) : nil
                        }
                        #expect(snippet.utf16Ranges == clipped, "\(query.text) \(length)")
                        #expect(snippet.text.count <= length)
                        #expect(snippet.isCutAtStart == (snippet.utf16Offset > 0))
                        #expect(snippet.isCutAtEnd == (windowEnd < field.utf16.count))
                        let first = try #require(highlights.first)
                        #expect(
                            snippet.utf16Offset <= first.lowerBound && first.lowerBound < windowEnd,
                            "window \(snippet.utf16Offset)..<\(windowEnd) misses the first match \(first)"
                        )
                    }
                }
            }
        }
    }
}
