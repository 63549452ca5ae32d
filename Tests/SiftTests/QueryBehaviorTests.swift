import Testing

@testable import Sift

@Suite("Modes, orders, scopes, thresholds, sections")
struct QueryBehaviorTests {
    static let cities: [Record] = [
        ("1", "São Paulo", "BR", "SA"), ("2", "Paris", "FR", "EU"), ("3", "Kraków", "PL", "EU"),
        ("4", "Zürich", "CH", "EU"), ("5", "Malmö", "SE", "EU"), ("6", "Ñuñoa", "CL", "SA"),
        ("7", "Nuuk", "GL", "NA"), ("8", "Saint-Paul", "RE", "AF"), ("9", "Lapa", "BR", "SA"),
    ].map { Record(id: $0.0, fields: ["name": $0.1, "country": $0.2, "continent": $0.3]) }

    static func index(locale: String = "es", scopes: [Scope]? = nil) throws -> SearchIndex {
        try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "country"],
                collation: Collation(locale: locale),
                scopes: scopes ?? [
                    Scope(name: "All"), Scope(name: "Name", fields: ["name"]),
                    Scope(name: "Country", fields: ["country"], minimumLength: 2),
                    Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
                ]
            ),
            records: cities
        )
    }

    @Test func rankedPutsPrefixThenWordStartThenInner() throws {
        let index = try Self.index()
        let result = try index.search(Query("pa", scope: "Name", order: .ranked))
        // Paris (prefix), São Paulo and Saint-Paul (word start), Lapa (inner)
        #expect(try index.ids(result) == ["2", "1", "8", "9"])
        let original = try index.search(Query("pa", scope: "Name"))
        #expect(try index.ids(original) == ["1", "2", "8", "9"])
    }

    @Test func sortedUsesCollationOrderOfTheLocale() throws {
        // Spanish sorts Ñ after N; root sorts it with N.
        let spanish = try Self.index(locale: "es")
        let names = try spanish.handles(in: .sorted).map { try spanish.value(of: "name", for: $0) }
        #expect(names == ["Kraków", "Lapa", "Malmö", "Nuuk", "Ñuñoa", "Paris", "Saint-Paul", "São Paulo", "Zürich"])
        let sortedMatches = try spanish.search(Query("a", scope: "Name", order: .sorted))
        #expect(try sortedMatches.rows.map { try spanish.value(of: "name", for: $0) }.first == "Kraków")
    }

    @Test func sectionsComeFromAlphabeticIndex() throws {
        let spanish = try Self.index(locale: "es")
        let titles = spanish.sectionTitles
        let n = try #require(titles.firstIndex(of: "N"))
        #expect(titles[n + 1] == "Ñ" && titles[n + 2] == "O")
        let nunoa = try #require(spanish.handle(forID: "6"))
        #expect(titles[try spanish.section(of: nunoa)] == "Ñ")
        #expect(titles[try spanish.section(of: try #require(spanish.handle(forID: "7")))] == "N")
        let swedish = try Self.index(locale: "sv")
        #expect(Array(swedish.sectionTitles.suffix(5).prefix(4)) == ["Z", "Å", "Ä", "Ö"])
    }

    @Test func thresholdsAnswerTooShortExplicitly() throws {
        let index = try Self.index()
        let short = try index.search(Query("c", scope: "Country"))
        #expect(short.state == .tooShort(needed: 2) && short.rows.isEmpty)
        #expect(short.scopeCounts.first { $0.scope == "Country" }?.count == nil)
        #expect(short.scopeCounts.first { $0.scope == "All" }?.count == 2)  // CH and CL
        let enough = try index.search(Query("ch", scope: "Country"))
        #expect(enough.state == .matches)
        #expect(try index.ids(enough) == ["4"])
        // Counted in user-perceived characters: one flag emoji is one character.
        let emoji = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], scopes: [Scope(name: "All", minimumLength: 2)]),
            records: [Record(id: "1", fields: ["name": "🇫🇷 France"])]
        )
        #expect(try emoji.search(Query("🇫🇷")).state == .tooShort(needed: 2))
        #expect(try emoji.search(Query("e\u{301}")).state == .tooShort(needed: 2))
        let all = try index.search(Query(""))
        #expect(all.state == .all && all.rows.count == Self.cities.count)
    }

    @Test func categoryScopesAndBadgeCountsComeFromOnePass() throws {
        let index = try Self.index()
        let result = try index.search(Query("a", scope: "Europe"))
        #expect(try index.ids(result) == ["2", "3", "5"])
        #expect(result.scopeCounts.map(\.count) == [7, 7, nil, 3])
        let statistics = result.statistics
        #expect(statistics.fullScans == 2)  // "a" in name and in country, shared by all scopes
    }

    @Test func wordsModeMatchesWordStartsInAnyOrderAcrossFields() throws {
        let index = try Self.index()
        #expect(try index.ids(index.search(Query("pau sa", mode: .words))) == ["1", "8"])
        #expect(try index.ids(index.search(Query("pau br", mode: .words))) == ["1"])
        #expect(try index.ids(index.search(Query("aulo", mode: .words))).isEmpty)
        #expect(try index.ids(index.search(Query("aulo"))) == ["1"])
        let highlights = try index.matchRanges(
            of: try #require(index.handle(forID: "1")),
            for: Query("pau sa", mode: .words)
        )
        #expect(highlights == ["name": [0..<2, 4..<7]])  // "Sã" and "Pau"
    }

    @Test func wordsModeUsesDictionaryWordBreaksForThaiAndJapanese() throws {
        let thai = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "th")),
            records: [
                Record(id: "1", fields: ["name": "ประเทศไทยสวยงาม"]), Record(id: "2", fields: ["name": "ภาษาไทย"]),
            ]
        )
        // Unspaced Thai: the dictionary splits ประเทศไทย|สวยงาม and ภาษา|ไทย.
        #expect(try thai.ids(thai.search(Query("สวยงาม", mode: .words))) == ["1"])
        #expect(try thai.ids(thai.search(Query("ไทย", mode: .words))) == ["2"])
        #expect(try thai.ids(thai.search(Query("ไทย"))) == ["1", "2"])
        let japanese = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "ja")),
            records: [Record(id: "1", fields: ["name": "東京都庁"]), Record(id: "2", fields: ["name": "京都市"])]
        )
        #expect(try japanese.ids(japanese.search(Query("京都", mode: .words))) == ["2"])
        #expect(try japanese.ids(japanese.search(Query("京都"))) == ["1", "2"])
    }

    @Test func highlightsAreStringRangesInTheOriginal() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "de")),
            records: [
                Record(id: "1", fields: ["name": "Große Straße"]),
                Record(id: "2", fields: ["name": "Cafe\u{301} 😀 Müller"]),
            ]
        )
        let row = try #require(index.handle(forID: "1"))
        let name = try index.value(of: "name", for: row)
        let ranges = try #require(try index.highlights(of: row, for: Query("STRASSE"))["name"])
        #expect(ranges.map { String(name[$0]) } == ["Straße"])
        let cafe = try #require(index.handle(forID: "2"))
        let text = try index.value(of: "name", for: cafe)
        #expect(try index.highlights(of: cafe, for: Query("café"))["name"]!.map { String(text[$0]) } == ["Cafe\u{301}"])
        #expect(try index.highlights(of: cafe, for: Query("muller"))["name"]!.map { String(text[$0]) } == ["Müller"])
    }

    @Test func ignorableQueriesMatchEverythingAndShiftedIgnoresPunctuation() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(alternate: .shifted)),
            records: [Record(id: "1", fields: ["name": "Rock'n'Roll"]), Record(id: "2", fields: ["name": "Jazz"])]
        )
        #expect(try index.ids(index.search(Query("rock n roll"))) == ["1"])
        let punctuation = try index.search(Query("--"))
        #expect(punctuation.state == .matches && punctuation.rows.count == 2)
        #expect(try index.matchRanges(of: punctuation.rows[0], for: Query("--")).isEmpty)
    }
}

/// The ranking rules of `ResultOrder.ranked`, on the example its documentation gives.
@Suite("Ranked order: whole field, field start, word start, inside; earlier fields first")
struct RankingRuleTests {
    static let packages = [
        ("neovim", "Vim-fork focused on extensibility and usability"),
        ("cream", "VIM macros that make it easy to use"),
        ("vim-gtk", "Vi IMproved, with a GTK user interface"),
        ("vim", "Vi IMproved - enhanced vi editor"),
        ("gvim-tiny", "compact vim build"),
        ("editor", "a vim clone"),
    ]

    static func index() throws -> SearchIndex {
        let records = packages.map { Record(id: $0.0, fields: ["name": $0.0, "summary": $0.1]) }
        return try SearchIndex(configuration: IndexConfiguration(searchFields: ["name", "summary"]), records: records)
    }

    @Test(arguments: [0, Int.max])
    func wholeFieldThenFieldStartThenWordStartThenInsideEarlierFieldsFirst(sparseLimit: Int) throws {
        let index = try Self.index()
        let ranked = try index.ids(index.search(Query("vim", order: .ranked)))
        // vim: whole name. vim-gtk: name starts with it. cream and neovim: summary starts with
        // "VIM" (neovim's only inside its name), the shorter summary first (35 elements, 47).
        // editor and gvim-tiny: a word of the summary, shorter first (11, 17).
        #expect(ranked == ["vim", "vim-gtk", "cream", "neovim", "editor", "gvim-tiny"])
        let groups = try index.search(Query("vim", order: .ranked)).rows.map {
            try index.rankingGroup(of: $0, for: Query("vim", order: .ranked))!
        }
        #expect(groups == groups.sorted())

        // Moved out of slot order, what length leaves tied keeps the list's order.
        try index.move(from: 4, to: 0)  // gvim-tiny first
        try index.move(from: 2, to: 5)  // cream after editor
        _ = try index.insert(Record(id: "vim-nox", fields: ["name": "vim-nox", "summary": "Vi IMproved"]), at: 1)
        let moved = try index.ids(index.search(Query("vim", order: .ranked)))
        #expect(moved == ["vim", "vim-nox", "vim-gtk", "cream", "neovim", "editor", "gvim-tiny"])
        let list = try index.ids(index.search(Query("")))
        #expect(list == ["gvim-tiny", "vim-nox", "neovim", "vim-gtk", "vim", "editor", "cream"])
    }

    @Test(arguments: [0, Int.max])
    func wordsModeRanksTheFirstWordsMatchesByField(sparseLimit: Int) throws {
        let index = try Self.index()
        let ranked = try index.ids(index.search(Query("vim", mode: .words, order: .ranked)))
        #expect(ranked == ["vim", "vim-gtk", "cream", "neovim", "editor", "gvim-tiny"])
        // Two words: no whole-field class (the field would have to be both words).
        let twoWords = try index.ids(index.search(Query("vim build", mode: .words, order: .ranked)))
        #expect(twoWords == ["gvim-tiny"])
    }
}

/// Ranked fuzzy answers kept for a keystroke that comes back to them: equal to a fresh ranking,
/// and never kept across an edit.
@Suite("Ranked fuzzy answers served again")
struct RankedFuzzyReuseTests {
    @Test func aRetypedQueryGetsTheSameRowsAndAnEditIsSeen() throws {
        let names = (try? readTSV("cities.tsv"))?.rows.prefix(2000).map { $0[1] } ?? []
        let records = names.enumerated().map { Record(id: String($0.offset), fields: ["name": $0.element]) }
        let configuration = IndexConfiguration(searchFields: ["name"])
        let index = try SearchIndex(configuration: configuration, records: records)
        func fresh(_ text: String, _ index: SearchIndex) throws -> [String] {
            let records = try index.handles().map { try index.record($0) }
            let copy = try SearchIndex(configuration: configuration, records: records)
            return try copy.ids(copy.search(Query(text, mode: .fuzzy, order: .ranked)))
        }
        for text in ["s", "sa", "san", "sa", "san", "sn", "san"] {
            let got = try index.ids(index.search(Query(text, mode: .fuzzy, order: .ranked)))
            #expect(got == (try fresh(text, index)), "'\(text)'")
        }
        // An edit: the kept answer for "san" must not be served.
        _ = try index.update(Record(id: "5", fields: ["name": "San"]))
        let got = try index.ids(index.search(Query("san", mode: .fuzzy, order: .ranked)))
        #expect(got.first == "5", "the whole-name match ranks first")
        #expect(got == (try fresh("san", index)))
    }
}
