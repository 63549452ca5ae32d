import Testing

@testable import Sift

/// The operators of `.words` mode (`-word`, `"phrase"`, `a | b`): how a text reads, and what
/// each reading matches through the library.
@Suite("Query operators")
struct QueryOperatorTests {
    typealias Term = QueryExpression.Term

    static func word(_ text: String, negated: Bool = false) -> Term {
        Term(text: text, isPhrase: false, isNegated: negated)
    }

    static func phrase(_ text: String, negated: Bool = false) -> Term {
        Term(text: text, isPhrase: true, isNegated: negated)
    }

    @Test(
        arguments: [
            ("vim|emacs", [[word("vim"), word("emacs")]], true),
            ("vim | emacs", [[word("vim"), word("emacs")]], true),
            ("a b | c d", [[word("a")], [word("b"), word("c")], [word("d")]], true),
            ("a|b|c", [[word("a"), word("b"), word("c")]], true),
            ("vim -neovim", [[word("vim")], [word("neovim", negated: true)]], true),
            ("\"two words\" x", [[phrase("two words")], [word("x")]], true),
            ("-\"new york\"", [[phrase("new york", negated: true)]], true),
            ("a|-b", [[word("a"), word("b", negated: true)]], true),
            ("x\"y z\"w", [[word("x")], [phrase("y z")], [word("w")]], true),
            // Literal readings: a lone `-`, a `-` inside a word, an unclosed quote, an empty `|` side.
            ("-", [[word("-")]], false),
            ("a - b", [[word("a")], [word("-")], [word("b")]], false),
            ("foo-bar", [[word("foo-bar")]], false),
            ("\"open words", [[word("\"open")], [word("words")]], false),
            ("a |", [[word("a")]], false),
            ("| a", [[word("a")]], false),
            ("a || b", [[word("a")], [word("b")]], false),
            ("|", [], false),
            ("\"a\" \"b", [[phrase("a")], [word("\"b")]], true),
            ("--x", [[word("-x", negated: true)]], true),
            ("-|a", [[word("-"), word("a")]], true),  // a lone `-` is a term without words
            ("", [], false),
        ] as [(String, [[Term]], Bool)]
    )
    func textsReadAsDocumented(_ text: String, _ clauses: [[Term]], _ usesOperators: Bool) {
        let expression = QueryExpression(parsing: text)
        #expect(expression.clauses == clauses, "\(text.debugDescription)")
        #expect(expression.usesOperators == usesOperators, "\(text.debugDescription)")
    }

    static let records = [
        Record(id: "vim", fields: ["name": "Vim", "about": "modal text editor"]),
        Record(id: "neovim", fields: ["name": "Neovim", "about": "vim fork, modal text editor"]),
        Record(id: "emacs", fields: ["name": "GNU Emacs", "about": "extensible text editor"]),
        Record(id: "nano", fields: ["name": "nano", "about": "small editor, text mode"]),
        Record(id: "ny", fields: ["name": "New York", "about": "city"]),
        Record(id: "yn", fields: ["name": "York New", "about": "not a city"]),
    ]

    static func index(_ collation: Collation = Collation()) throws -> SearchIndex {
        try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "about"], collation: collation),
            records: records
        )
    }

    static func ids(_ index: SearchIndex, _ text: String, syntax: QuerySyntax = .operators) throws -> Set<String> {
        Set(try index.ids(index.search(Query(text, mode: .words, syntax: syntax))))
    }

    /// The user report: `vim|emacs` read as two words, `vim -neovim` not excluding, quotes ignored.
    @Test func theReportedQueriesUseTheirOperators() throws {
        let index = try Self.index()
        #expect(try Self.ids(index, "vim|emacs") == ["vim", "neovim", "emacs"])
        #expect(try Self.ids(index, "vim | emacs") == ["vim", "neovim", "emacs"])
        #expect(try Self.ids(index, "vim -neovim") == ["vim"])
        #expect(try Self.ids(index, "\"new york\"") == ["ny"])
        #expect(try Self.ids(index, "new york") == ["ny", "yn"])
        #expect(try Self.ids(index, "\"text editor\" -vim") == ["emacs"])
        #expect(try Self.ids(index, "-editor") == ["ny", "yn"])
        #expect(try Self.ids(index, "-editor -city") == [])
        #expect(try Self.ids(index, "editor -\"text editor\"") == ["nano"])
        #expect(try Self.ids(index, "nano|-editor") == ["nano", "ny", "yn"])
        // A phrase follows the contains rule: inside a word too.
        #expect(try Self.ids(index, "\"ew yo\"") == ["ny"])
        // The literal syntax keeps today's reading.
        #expect(try Self.ids(index, "vim|emacs", syntax: .literal) == [])
        #expect(try Self.ids(index, "vim -neovim", syntax: .literal) == ["neovim"])
        #expect(try Self.ids(index, "\"ew yo\"", syntax: .literal) == [])
        // Other modes read every query literally.
        #expect(try index.search(Query("vim|emacs")).rows.isEmpty)
    }

    @Test func literalReadingsMatchAsLiteralWords() throws {
        let index = try Self.index()
        for text in ["-", "a -", "\"text", "text |", "| text", "text || editor", "text-editor", "\"text editor", "-|"] {
            #expect(
                try Self.ids(index, text) == Self.ids(index, text, syntax: .literal),
                "\(text.debugDescription)"
            )
        }
    }

    /// `matches`, ranking and highlights agree with `search`; negated terms are never highlighted.
    @Test func singleRecordAnswersAgreeWithSearch() throws {
        let index = try Self.index()
        for text in ["vim|emacs", "vim -neovim", "\"text editor\" -vim", "-editor", "nano|-editor", "\"fork\" | gnu"] {
            let query = Query(text, mode: .words, order: .ranked)
            let result = try index.search(query)
            for handle in index.handles() {
                #expect(try index.matches(handle, query) == result.rows.contains(handle), "\(text)")
            }
            let groups = try result.rows.map { try index.rankingGroup(of: $0, for: query) ?? 0 }
            #expect(groups == groups.sorted(), "\(text)")
        }
        let neovim = try #require(index.handle(forID: "neovim"))
        let ranges = try index.matchRanges(of: neovim, for: Query("\"text editor\" | vim -emacs", mode: .words))
        #expect(ranges == ["about": [0..<3, 16..<27]])
        let vim = try #require(index.handle(forID: "vim"))
        #expect(try index.matchRanges(of: vim, for: Query("vim -neovim", mode: .words)) == ["name": [0..<3]])
    }

    /// A ranked query ranks by its first positive term: field-start matches first; within a
    /// group, the shorter field (here every "text" starts a word of `about`: 17, 22, 23 and 27
    /// elements).
    @Test func rankedOrderFollowsTheFirstPositiveTerm() throws {
        let index = try Self.index()
        let rows = try index.ids(index.search(Query("-city text|york", mode: .words, order: .ranked)))
        #expect(rows == ["vim", "emacs", "nano", "neovim"])
        let york = try index.ids(index.search(Query("-nothing york", mode: .words, order: .ranked)))
        #expect(york == ["yn", "ny"])
    }

    /// Hostile texts: never an error (with the `QueryLimits` lifted; with the defaults, those
    /// past 4,096 bytes are refused, see QueryLimitsTests), never a crash, in every mode and syntax.
    @Test(arguments: [Collation(), Collation(alternate: .shifted), Collation(locale: "th", strength: .tertiary)])
    func hostileOperatorTextsHaveAnswers(_ collation: Collation) throws {
        let index = try Self.index(collation)
        index.queryLimits = .unlimited
        let texts = [
            "-", "\"", "|", "||", "-\"", "\"-", "-|", "|-", "\"\"", "\"\"\"", "- - -", "| | |", "-\"\"", "a\"|\"b",
            "\"|\"", "-a -b -c -d", String(repeating: "-a|b \"c d\" ", count: 500),
            String(repeating: "|", count: 5_000), String(repeating: "\"", count: 5_001),
            String(repeating: "-", count: 5_000),
            String(repeating: "a|", count: 2_000), String(repeating: "x -", count: 2_000), "-\u{301}a", "\"\u{301}a\"",
            "👩‍👩‍👧|-👩", "\0|\0", "-\u{10FFFF}",
        ]
        for text in texts {
            for syntax in QuerySyntax.allCases {
                for order in ResultOrder.allCases {
                    let query = Query(text, mode: .words, order: order, syntax: syntax)
                    let result = try index.search(query)
                    for handle in index.handles() {
                        #expect(try index.matches(handle, query) == result.rows.contains(handle))
                    }
                    for row in result.rows { _ = try index.highlights(of: row, for: query) }
                }
            }
        }
    }
}
