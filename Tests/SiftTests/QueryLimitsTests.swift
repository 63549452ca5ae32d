import Testing

@testable import Sift

/// Query cost bounded by design: `QueryLimits` refuses queries past a limit with
/// `SiftError.queryTooLarge`, repeated terms are evaluated once with answers identical to the
/// unmerged expression, highlights walk only the terms that match a row, and cancellation is
/// reached between the terms of a long query.
@Suite("Query limits")
struct QueryLimitsTests {
    static let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
        "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
        "xray", "yankee", "zulu",
    ]

    /// Records of two or three words each, so that every word term matches a few of them.
    static func makeIndex(cacheCapacity: Int = 64) throws -> SearchIndex {
        var random = SeededGenerator(seed: 27)
        let records = (0..<200).map { n in
            let count = 2 + Int(random.next() % 2)
            let text = (0..<count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
            return Record(id: String(n), fields: ["name": text, "notes": "row \(n) " + text.uppercased()])
        }
        return try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "notes"], cacheCapacity: cacheCapacity),
            records: records
        )
    }

    /// A query of `count` distinct made-up terms (`t0 | t1 | …`), each matching nothing.
    static func distinctTerms(_ count: Int) -> String {
        (0..<count).map { "zz\(String($0, radix: 26))" }.joined(separator: " | ")
    }

    // MARK: - Refusal

    @Test func aQueryOfTooManyTermsIsRefusedNamingTheLimit() throws {
        let index = try Self.makeIndex()
        index.queryLimits = QueryLimits(maximumLength: .max)
        let query = Query("alpha | " + Self.distinctTerms(300), mode: .words)
        let expected = SiftError.queryTooLarge(limit: "maximumTerms", size: 301, maximum: 256)
        #expect(throws: expected) { try index.search(query) }
        let row = index.handles()[0]
        #expect(throws: expected) { try index.matches(row, query) }
        #expect(throws: expected) { try index.matchRanges(of: row, for: query) }
        #expect(throws: expected) { try index.snippets(of: row, for: query, length: 20) }
        #expect(expected.description.contains("301 distinct terms, at most 256 (QueryLimits.maximumTerms)"))
        // Literal words count the same way.
        let literal = Query("alpha " + Self.distinctTerms(300), mode: .words, syntax: .literal)
        #expect(throws: expected) { try index.search(literal) }
        // Raised, the same query answers.
        index.queryLimits.maximumTerms = 301
        #expect(try index.search(query).rowCount > 0)
    }

    @Test func aQueryLongerThanTheLimitIsRefusedBeforeAnyWork() throws {
        let index = try Self.makeIndex()
        let text = String(repeating: "é", count: 3_000)  // 6,000 UTF-8 bytes
        for mode in MatchMode.allCases {
            #expect(throws: SiftError.queryTooLarge(limit: "maximumLength", size: 6_000, maximum: 4_096)) {
                try index.search(Query(text, mode: mode))
            }
        }
        index.queryLimits.maximumLength = 6_000
        _ = try index.search(Query(text))
    }

    @Test func typoWordsPastTheLimitAreRefused() throws {
        let index = try Self.makeIndex()
        index.queryLimits.maximumTypoWords = 3
        let four = "alphaa bravoo charliee deltaa"
        let error = SiftError.queryTooLarge(limit: "maximumTypoWords", size: 4, maximum: 3)
        #expect(throws: error) { try index.search(Query(four, mode: .words, typos: .auto)) }
        #expect(throws: error) {
            try index.search(Query(four.replacingSpaces(with: " | "), mode: .words, typos: .auto))
        }
        // Without typos, or with short words (no edit), the same count is no problem.
        _ = try index.search(Query(four, mode: .words))
        _ = try index.search(Query("echo golf kilo lima mike", mode: .words, typos: .auto))
        // Repeats count once.
        _ = try index.search(Query("alphaa | alphaa | bravoo | bravoo | -charliee", mode: .words, typos: .auto))
    }

    @Test func repeatedTermsCountOnce() throws {
        let index = try Self.makeIndex()
        // 401 terms written, 2 distinct after folding (primary strength): within the default 256.
        let text = (0..<200).map { _ in "alpha | ALPHA" }.joined(separator: " | ") + " | bravo"
        let result = try index.search(Query(text, mode: .words))
        let plain = try index.search(Query("alpha | bravo", mode: .words))
        #expect(result.rows == plain.rows)
    }

    @Test func wordsWithElementsNoRecordHoldsCountAsTheWordsTheyAre() throws {
        let index = try Self.makeIndex()
        // No record holds ω or ψ. With typos, both words are encoded with the code no record
        // holds in their last place, so their patterns are equal (and evaluated once); they are
        // still two words, as they are without typos (found by SiftQueryFuzzer).
        let text = "alphaω alphaψ"
        index.queryLimits = QueryLimits(maximumTerms: 1)
        let terms = SiftError.queryTooLarge(limit: "maximumTerms", size: 2, maximum: 1)
        for typos in [TypoTolerance.off, .auto] {
            #expect(throws: terms, "typos \(typos)") { try index.search(Query(text, mode: .words, typos: typos)) }
            #expect(throws: terms, "typos \(typos)") {
                try index.search(Query("alphaω | alphaψ", mode: .words, typos: typos))
            }
        }
        index.queryLimits = QueryLimits(maximumTypoWords: 1)
        #expect(throws: SiftError.queryTooLarge(limit: "maximumTypoWords", size: 2, maximum: 1)) {
            try index.search(Query(text, mode: .words, typos: .auto))
        }
        // Within the limits, the two words answer as one does (an edit drops ω or ψ).
        index.queryLimits = QueryLimits(maximumTypoWords: 2)
        let both = try index.search(Query(text, mode: .words, typos: .auto))
        #expect(!both.rows.isEmpty)
        #expect(both.rows == (try index.search(Query("alphaω", mode: .words, typos: .auto)).rows))
    }

    // MARK: - Merging

    @Test func aRepeatedTermIsEvaluatedOnce() throws {
        let index = try Self.makeIndex()
        // `alpha` and `ALPHA` fold alike: one pattern, scanned once in each of the two fields,
        // with no further lookups (each used to be a cache hit per field).
        let result = try index.search(Query("alpha | alpha | ALPHA | -zulu | -zulu", mode: .words))
        #expect(result.statistics.fullScans == 4)
        #expect(result.statistics.cacheHits == 0)
        #expect(result.statistics.narrowedScans == 0)
    }

    @Test(arguments: [ResultOrder.original, .ranked, .sorted], [TypoTolerance.off, .auto])
    func mergedExpressionsAnswerAsWritten(_ order: ResultOrder, _ typos: TypoTolerance) throws {
        let index = try Self.makeIndex()
        // Each pair: a text with repeats, and the same expression with every repeat written out
        // differently (terms reordered within a clause, clauses repeated apart), so that the
        // merge is the only thing that can make them agree or not.
        let pairs: [(String, String)] = [
            ("alpha | alpha | bravo", "alpha | bravo"),
            ("alpha | bravo alpha | bravo -golf", "alpha | bravo -golf"),
            ("deltaa | echo deltaa | echo", "deltaa | echo"),
            ("\"alpha\" | \"ALPHA\" | bravo", "\"alpha\" | bravo"),
            ("-kilo -kilo -kilo lima", "-kilo lima"),
        ]
        for (repeated, plain) in pairs {
            let a = try index.search(Query(repeated, mode: .words, order: order, typos: typos))
            let b = try index.search(Query(plain, mode: .words, order: order, typos: typos))
            #expect(!a.rows.isEmpty, "\(repeated)")
            #expect(a.rows == b.rows, "\(repeated) vs \(plain), \(order), typos \(typos)")
            #expect(Set(a.rows) == Set(b.rows), "\(repeated) vs \(plain), \(order), typos \(typos)")
            for row in a.rows {
                let query = Query(repeated, mode: .words, typos: typos)
                #expect(try index.matches(row, query))
                #expect(
                    try index.matchRanges(of: row, for: query)
                        == index.matchRanges(of: row, for: Query(plain, mode: .words, typos: typos))
                )
            }
        }
    }

    @Test func aRepeatedClauseStillCountsItsTyposEachTime() throws {
        // Merged, `deltaa | zzz` written twice is one clause of weight 2: a record matching
        // `deltaa` with 1 typo has 2 typos in all, as when each clause was evaluated.
        let records = [
            Record(id: "a", fields: ["t": "delta echo"]),
            Record(id: "b", fields: ["t": "deltaa echo"]),
        ]
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["t"]), records: records)
        let query = Query("deltaa | zzz -qqq deltaa | zzz -qqq", mode: .words, order: .ranked, typos: .auto)
        #expect(try index.ids(index.search(query)) == ["b", "a"])
        guard case .expression(let folded) = try index.foldQuery(query, folding: 0) else {
            Issue.record("an expression")
            return
        }
        #expect(folded.clauses.count == 2)
        #expect(folded.clauseWeights == [2, 2])
        let slot = try index.resolve(index.handles()[0])
        #expect(index.expressionTypoCount(index.folded.scopePlans[0], folded, slot: slot, tolerance: .auto) == 2)
    }

    // MARK: - Highlights

    @Test func highlightsOfManyTermsAreThoseOfTheTermsThatMatch() throws {
        let index = try Self.makeIndex()
        index.queryLimits = .unlimited
        let many = Query("alpha | " + Self.distinctTerms(400) + " | bravo", mode: .words, typos: .auto)
        let few = Query("alpha | bravo", mode: .words)
        let rows = try index.search(many).rows
        #expect(rows == (try index.search(few).rows))
        for row in rows {
            #expect(try index.matchRanges(of: row, for: many) == index.matchRanges(of: row, for: few))
            #expect(try index.snippets(of: row, for: many, length: 12) == index.snippets(of: row, for: few, length: 12))
        }
    }

    /// Rows of one answer fold its query once (`FoldedQueryMemo`); an edit that adds elements
    /// to the code book folds it again.
    @Test func rowsShownOneByOneFoldTheQueryOnceUntilAnEdit() throws {
        let index = try Self.makeIndex()
        let query = Query("alpha | ωψ", mode: .words)
        let rows = try index.search(query).rows
        #expect(!rows.isEmpty)
        _ = try index.matchRanges(of: rows[0], for: query)
        #expect(index.caches.foldedQueryMemo?.text == query.text)
        // ω and ψ were in no record: the term matched nothing. Now a record holds them.
        let new = try index.insert(Record(id: "new", fields: ["name": "ωψ", "notes": ""]))
        #expect(try index.matches(new, query))
        #expect(try index.matchRanges(of: new, for: query) == ["name": [0..<2]])
        let alpha = Query("alpha", mode: .words)
        #expect(try index.matchRanges(of: rows[0], for: query) == index.matchRanges(of: rows[0], for: alpha))
    }

    // MARK: - Cancellation

    /// A cancellation check that says "cancelled" from its `after`-th call on, counting calls.
    final class CountingCancellation: @unchecked Sendable {
        var calls = 0
        let after: Int
        init(after: Int) { self.after = after }
        func check() -> Bool {
            calls += 1
            return calls >= after
        }
    }

    @Test func aManyTermQueryAnsweredFromTheCacheStopsWhenCancelled() throws {
        // Every term's results cached: no scan runs, so only the term loop can see the request.
        let index = try Self.makeIndex(cacheCapacity: 4_096)
        index.queryLimits = .unlimited
        let text = Self.words.joined(separator: " | ") + " | " + Self.distinctTerms(200)
        for typos in [TypoTolerance.off, .auto] {
            for order in [ResultOrder.original, .ranked] {
                let query = Query(text, mode: .words, order: order, typos: typos)
                _ = try index.search(query)
                index.caches.keptRows = []  // not the kept answer: evaluate the terms again
                let cancellation = CountingCancellation(after: 10)
                #expect(throws: CancellationError.self, "\(typos) \(order)") {
                    try index.search(query, isCancelled: cancellation.check)
                }
                #expect(cancellation.calls == 10)
            }
        }
    }

    @Test func literalWordsAndTypoLevelsPollBetweenWords() throws {
        let index = try Self.makeIndex(cacheCapacity: 4_096)
        let query = Query(Self.words.prefix(20).joined(separator: " "), mode: .words, order: .ranked, typos: .auto)
        _ = try index.search(query)
        index.caches.keptRows = []
        let cancellation = CountingCancellation(after: 5)
        #expect(throws: CancellationError.self) { try index.search(query, isCancelled: cancellation.check) }
    }

    @Test func highlightsOfAManyTermQueryStopWhenCancelled() throws {
        let index = try Self.makeIndex()
        index.queryLimits = .unlimited
        let query = Query("alpha | " + Self.distinctTerms(400), mode: .words)
        let row = try index.search(Query("alpha", mode: .words)).rows[0]
        let cancellation = CountingCancellation(after: 20)
        #expect(throws: CancellationError.self) {
            try index.matchRanges(of: row, for: query, isCancelled: cancellation.check)
        }
        #expect(cancellation.calls == 20)
    }
}

extension String {
    fileprivate func replacingSpaces(with separator: String) -> String {
        split(separator: " ").joined(separator: separator)
    }
}
