import Testing

@testable import Sift

/// Queries a careless user or a fuzzer would type. None may crash; each has a defined answer
/// (documented in the README under "Defined edge cases") that matches ICU usearch wherever ICU
/// has an answer.
@Suite("Hostile queries")
struct HostileQueryTests {
    static let texts = [
        "Paris", "São Paulo", "  spaced  out  ", "Rock'n'Roll", "👩‍👩‍👧 family", "שלום עולם", "مرحبا بالعالم",
        "e\u{301}cole", "\u{301}\u{302} marks first", "東京", "Zürich", "\u{0378}unassigned", "tab\tand\nnewline", "",
        String(repeating: "a", count: 10_000),
    ]

    static let queries = [
        "", " ", "   ", "\t", "\n", "--", "'", "\u{301}", "\u{301}\u{302}", String(repeating: "a", count: 10_000),
        String(repeating: "ab", count: 5_000), "👩‍👩‍👧", "👩", "\u{200D}", "שלום", "לום", "بالعالم", "\u{0378}",
        "\u{E000}", "\u{10FFFF}", "e\u{301}", "é", "\u{FFFD}", "\0", "a\0b",
    ]

    @Test(arguments: [Collation(), Collation(alternate: .shifted), Collation(locale: "he", strength: .tertiary)])
    func hostileQueriesHaveDefinedAnswersMatchingICU(_ collation: Collation) throws {
        let records = Self.texts.enumerated().map { Record(id: String($0.offset), fields: ["text": $0.element]) }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["text"], collation: collation),
            records: records
        )
        // Queries of 10,000 characters: past the default `QueryLimits` (refused, see
        // QueryLimitsTests), answered once the limits are lifted.
        index.queryLimits = .unlimited
        let reference = try ReferenceSearch(collation: collation)
        let folder = try ICUFolder(ICUCollator(collation))
        for query in Self.queries {
            for mode in MatchMode.allCases {
                let result = try index.search(Query(query, mode: mode))
                if query.isEmpty {
                    #expect(result.state == .all && result.rows.count == records.count)
                    continue
                }
                #expect(result.state == .matches)
                let ids = Set(try index.ids(result))
                let elements = try folder.patternElements(query)
                if mode == .contains {
                    if elements.isEmpty {
                        // No collation elements: every record matches, nothing is highlighted.
                        #expect(ids.count == records.count, "\(collation) \(query.debugDescription)")
                    } else {
                        let expected = Set(
                            try records.filter { try reference.contains(query, in: $0["text"]) }.map(\.id)
                        )
                        #expect(ids == expected, "\(collation) \(query.debugDescription)")
                    }
                }
                for row in result.rows { _ = try index.highlights(of: row, for: Query(query, mode: mode)) }
            }
        }
    }

    @Test func whitespaceQueriesAreLiteralUnlessShifted() throws {
        let records = [Record(id: "1", fields: ["t": "New York"]), Record(id: "2", fields: ["t": "Boston"])]
        let literal = try SearchIndex(configuration: IndexConfiguration(searchFields: ["t"]), records: records)
        #expect(try literal.ids(literal.search(Query(" "))) == ["1"])  // a space is a character
        let shifted = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["t"], collation: Collation(alternate: .shifted)),
            records: records
        )
        #expect(try shifted.search(Query(" ")).rows.count == 2)  // ignorable: matches everything
        // In words mode a query without words (spaces, punctuation) matches everything.
        #expect(try literal.search(Query(" - ", mode: .words)).rows.count == 2)
    }

    @Test func aVeryLongQueryIsFastAndExact() throws {
        let long = String(repeating: "a", count: 10_000)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["t"]),
            records: [Record(id: "long", fields: ["t": long]), Record(id: "short", fields: ["t": "aaa"])]
        )
        // Past the default limit (4,096 bytes): refused at once, naming the limit.
        #expect(throws: SiftError.queryTooLarge(limit: "maximumLength", size: 10_000, maximum: 4_096)) {
            try index.search(Query(long))
        }
        index.queryLimits.maximumLength = 10_001
        #expect(try index.ids(index.search(Query(long))) == ["long"])
        #expect(try index.matchRanges(of: index.handle(forID: "long")!, for: Query(long)) == ["t": [0..<10_000]])
        #expect(try index.search(Query(long + "a")).rows.isEmpty)
    }
}
