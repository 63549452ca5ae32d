import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// Ranked order by the ranking rules (`RankingRule`) against a brute-force ranker: for every
/// match, each rule's value computed from the record's text with ICU's own search (where each
/// match starts, in UTF-16, mapped to collation elements by ICU's folding) and a brute-force edit
/// distance for typos; the matches sorted by those values in the rules' order, then original
/// position, must be exactly `search`'s rows. In every mode, with typos, with `a | b`, with a
/// custom rule before and after length, with the rules reordered, across edits.
@Suite("Ranking rules against a brute-force ranker")
struct RankingRuleOracleTests {
    static let vocabulary = [
        "vim", "vime", "neovim", "gvim", "zur", "zürich", "zuru", "san", "santa", "sans", "python", "python3",
        "pyton", "emacs", "emac", "editor", "text", "viewer", "pdf", "über", "uber", "straße", "strasse",
        "Vim-gtk", "vim-tiny", "cream", "San Jose", "editors",
    ]

    static func text(_ generator: inout SeededGenerator) -> String {
        let count = Int.random(in: 1...3, using: &generator)
        return (0..<count).map { _ in vocabulary.randomElement(using: &generator)! }.joined(separator: " ")
    }

    static func record(_ id: String, _ generator: inout SeededGenerator) -> Record {
        Record(
            id: id,
            fields: [
                "name": text(&generator),
                "summary": text(&generator),
                "population": Int.random(in: 0..<8, using: &generator) == 0
                    ? "" : String(Int.random(in: 0...6, using: &generator) * 1000),
            ]
        )
    }

    static let popularity = RankingTieBreak(field: "population", numeric: true, descending: true)
    static let ruleLists: [[RankingRule]] = [
        RankingRule.defaults,
        [.typo, .exactness, .attribute, .custom(popularity), .length],
        [.attribute, .typo, .exactness, .length],
        [.exactness, .custom(RankingTieBreak(field: "population", numeric: true))],
        [.typo, .attribute, .exactness, .length, .custom(popularity)],
    ]

    /// One field of a record as the oracle reads it.
    struct FieldText {
        var elements: [Int64]
        var lows: [Int32]
        var wordStarts: [Int]
    }

    /// The brute-force ranker.
    struct Oracle {
        let reference: ReferenceSearch
        let folder: ICUFolder
        let fields: [String]
        let rules: [RankingRule]

        func field(_ text: String) throws -> FieldText {
            let folded = try folder.fold(text)
            let starts = folded.flags.indices.filter { folded.flags[$0] & FoldFlags.wordStart != 0 }
            return FieldText(elements: folded.elements, lows: folded.lows, wordStarts: starts)
        }

        /// How `pattern` matches `text` exactly: 0 whole field, 1 field start, 2 word start,
        /// 3 inside a word, 4 not at all, as `mode` counts matches.
        func way(_ pattern: String, in text: String, mode: MatchMode, whole: Bool) throws -> Int {
            let field = try field(text)
            let patternElements = try reference.collationElements(of: pattern)
            var best = 4
            for match in try reference.matches(of: pattern, in: text) {
                guard let element = field.lows.firstIndex(of: Int32(match.lowerBound)) else { continue }
                var way = element == 0 ? 1 : field.wordStarts.contains(element) ? 2 : 3
                if mode == .words, way == 3 { continue }
                if mode == .prefix, way != 1 { continue }
                if way == 1, whole, field.elements.count == patternElements.count { way = 0 }
                best = min(best, way)
            }
            return best
        }

        /// The smallest distance of `pattern` to a prefix of a word of `text` (`fieldStart`: to
        /// a prefix of the text).
        func distance(_ pattern: [Int64], in text: String, fieldStart: Bool) throws -> Int {
            let field = try field(text)
            let starts = fieldStart ? [0] : field.wordStarts
            var best = Int.max
            for (n, start) in starts.enumerated() where start < field.elements.count {
                let end = fieldStart || n + 1 >= starts.count ? field.elements.count : starts[n + 1]
                best = min(best, TypoOracleTests.Oracle.prefixDistance(pattern, field.elements[start..<end]))
            }
            return best
        }

        /// The sort key of one matching record: each rule's value in the rules' order (bucket
        /// rules first, those not listed after those listed), then its position.
        func key(_ record: Record, position: Int, query: Query) throws -> [Double]? {
            let texts = fields.map { record[$0] }
            var typos = 0
            // The best (way, field position) so far.
            var way = (4, 0)
            func least(_ a: (Int, Int), _ b: (Int, Int)) -> (Int, Int) { a < b ? a : b }
            let typoMode = query.typos != .off && query.mode != .contains
            if query.text.contains("|") {
                for word in query.text.split(separator: "|").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    for (position, text) in texts.enumerated() {
                        way = least(way, (try self.way(word, in: text, mode: .words, whole: true), position))
                    }
                }
            } else {
                let words =
                    query.mode == .words
                    ? query.text.split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init) : [query.text]
                for (n, word) in words.enumerated() {
                    let ways = try texts.map { try self.way(word, in: $0, mode: query.mode, whole: words.count == 1) }
                    if n == 0 { way = ways.enumerated().reduce((4, 0)) { least($0, ($1.element, $1.offset)) } }
                    guard ways.allSatisfy({ $0 == 4 }) else { continue }
                    // No exact match of this word: within its budget, or not a match at all.
                    guard typoMode else { return nil }
                    let elements = try reference.collationElements(of: word)
                    let edits = TypoOracleTests.Oracle.budget(elements.count, cap: 2)
                    let distance = try texts.map {
                        try self.distance(elements, in: $0, fieldStart: query.mode == .prefix)
                    }.min()!
                    guard edits > 0, distance <= edits else { return nil }
                    typos += max(1, distance)
                }
                // A field equal to a words query's whole text is a whole-field match.
                if words.count > 1 {
                    for (position, text) in texts.enumerated()
                    where try self.way(query.text, in: text, mode: .contains, whole: true) == 0 {
                        way = least(way, (0, position))
                    }
                }
                // A typo match of the first word counts where it starts.
                let first = try reference.collationElements(of: words[0])
                let edits = TypoOracleTests.Oracle.budget(first.count, cap: 2)
                if typoMode, typos > 0, edits > 0 {
                    for (position, text) in texts.enumerated() {
                        if try distance(first, in: text, fieldStart: true) <= edits {
                            way = least(way, (1, position))
                        } else if query.mode == .words, try distance(first, in: text, fieldStart: false) <= edits {
                            way = least(way, (2, position))
                        }
                    }
                }
            }
            var buckets: [RankingRule] = rules.filter { [.typo, .exactness, .attribute].contains($0) }
            for rule in [RankingRule.typo, .exactness, .attribute] where !buckets.contains(rule) {
                buckets.append(rule)
            }
            var key: [Double] = buckets.map { rule in
                rule == .typo ? Double(typos) : rule == .exactness ? Double(way.0) : Double(way.1)
            }
            for rule in rules {
                switch rule {
                case .length:
                    key.append(Double(min(255, try field(texts[way.1]).elements.count)))
                case .custom(let tieBreak):
                    if let number = RankingTieBreakTests.number(record[tieBreak.field]) {
                        key += [0, tieBreak.descending ? -number : number]
                    } else {
                        key += [1, 0]
                    }
                default: break
                }
            }
            return key + [Double(position)]
        }

        /// The expected ranked order of the records `search` finds for `query` in original order.
        func expected(_ index: SearchIndex, _ query: Query) throws -> [RecordHandle] {
            var plain = query
            plain.order = .original
            var keyed: [([Double], RecordHandle)] = []
            for handle in try index.search(plain).rows {
                let key = try key(index.record(handle), position: index.position(of: handle), query: query)
                let fields = try index.record(handle).fields
                try #require(key != nil, "'\(query.text)' matches \(fields)")
                keyed.append((key!, handle))
            }
            return keyed.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
        }
    }

    static let queries: [(String, MatchMode, TypoTolerance)] = [
        ("vim", .contains, .off), ("vim", .words, .off), ("vim", .prefix, .off), ("zur", .contains, .off),
        ("san", .prefix, .off), ("san", .words, .off), ("sa", .contains, .off), ("e", .contains, .off),
        ("pyhton", .words, .auto), ("pyhton", .prefix, .auto), ("zuirch", .words, .auto), ("ediotr", .words, .auto),
        ("santa jose", .words, .off), ("san jose", .words, .off), ("vim-gtk", .words, .off),
        ("vim editor", .words, .off), ("emcas text", .words, .auto),
        ("vim | emacs", .words, .off), ("emacs | vim", .words, .off), ("pdf | zur", .words, .off),
        ("strase", .prefix, .auto), ("uber", .contains, .off), ("über", .words, .off),
    ]

    @Test(
        arguments: Array(ruleLists.indices),
        [Collation(locale: "root"), Collation(locale: "de", strength: .secondary)]
    )
    func rankedRowsAreTheBruteForceOrder(_ list: Int, _ collation: Collation) throws {
        var generator = SeededGenerator(seed: stableSeed("rules \(list) \(collation.locale)"))
        let records = (0..<160).map { Self.record(String($0), &generator) }
        let rules = Self.ruleLists[list]
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "summary"],
                collation: collation,
                rankingRules: rules
            ),
            records: records
        )
        let oracle = Oracle(
            reference: try ReferenceSearch(collation: collation),
            folder: try ICUFolder(ICUCollator(collation)),
            fields: ["name", "summary"],
            rules: rules
        )
        func check(_ stage: String) throws {
            for (text, mode, typos) in Self.queries {
                // Typed a character at a time where it is one word, so narrowing and the cache
                // serve the anchored scans too.
                let typed =
                    text.contains(" ")
                    ? [text] : (1...text.count).map { String(text.prefix($0)) }.filter { !$0.hasSuffix("-") }
                for text in typed {
                    let query = Query(text, mode: mode, order: .ranked, typos: typos)
                    let got = try index.search(query).rows
                    let expected = try oracle.expected(index, query)
                    if got != expected {
                        let names = { (rows: [RecordHandle]) in
                            try rows.prefix(8).map {
                                try index.record($0)["name"] + " / " + index.record($0)["summary"]
                            }
                        }
                        Issue.record(
                            "\(stage) '\(text)' \(mode) \(typos) rules \(rules.map(\.name)) in \(collation.locale): got \(try names(got)), expected \(try names(expected))"
                        )
                    }
                    // The per-record key (what live edits place rows by) agrees.
                    let keys = try got.map { try index.rankingKey(of: $0, for: query) }
                    if let first = keys.first, first != nil {
                        let pairs = try zip(keys, got).map { ($0!, try index.position(of: $1)) }
                        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0 < $1 }, "\(stage) '\(text)' \(mode) keys")
                    }
                }
            }
        }
        try check("built")
        for n in 0..<30 {
            _ = try index.update(Self.record(String(n * 5), &generator))
        }
        for n in 0..<10 { try index.remove(id: String(n * 7 + 1)) }
        for n in 0..<12 { _ = try index.insert(Self.record("new\(n)", &generator), at: n * 9) }
        try check("edited")
    }

    /// The examples of the issue: `vim` first for `vim` in every mode over package-like records,
    /// Zürich first for `zur` and `San` first for `san` in the bundled cities with their
    /// description's rules.
    @Test func knownItemsComeFirst() throws {
        let packages = [
            ("cream", "VIM macros that make it easy to use"), ("geany-plugin-vimode", "vim-mode for geany"),
            ("neovim", "heavily refactored vim fork"), ("vim-gtk3", "Vi IMproved - enhanced vi editor - with GTK3"),
            ("vim-tiny", "Vi IMproved - enhanced vi editor - compact version"),
            ("vim", "Vi IMproved - enhanced vi editor"),
            ("emacs", "GNU Emacs editor"), ("python3", "interactive high-level object-oriented language"),
            ("python3-pip", "Python package installer"), ("2to3", "2to3 binary using python3"),
        ]
        let records = packages.enumerated().map { Record(id: String($0), fields: ["package": $1.0, "summary": $1.1]) }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["package", "summary"]),
            records: records
        )
        for mode in [MatchMode.contains, .words, .prefix, .fuzzy] {
            let first = try index.search(Query("vim", mode: mode, order: .ranked)).rows.first
            let package = try first.map { try index.record($0)["package"] }
            #expect(package == "vim", "\(mode)")
        }
        for (text, package) in [("vim | emacs", "vim"), ("emacs | vim", "vim"), ("pyhton", "python3")] {
            let rows = try index.search(Query(text, mode: .words, order: .ranked, typos: .auto)).rows
            let first = try rows.first.map { try index.record($0)["package"] }
            #expect(first == package, "\(text)")
        }
        // Both whole names: the shorter first, then the other alternative's.
        let emacs = try index.search(Query("emacs | vim", mode: .words, order: .ranked)).rows
        #expect(try emacs.prefix(2).map { try index.record($0)["package"] } == ["vim", "emacs"])
    }

    @Test func bundledCitiesPutZurichAndSanFirst() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Data")
        let lines = try String(contentsOf: directory.appendingPathComponent("cities.tsv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        let records = lines.dropFirst().map { row in
            Record(id: row[0], fields: Dictionary(uniqueKeysWithValues: zip(header, row).map { ($0, $1) }))
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "ascii_name", "country_name", "country_code"],
                collation: Collation(locale: "root", strength: .primary),
                rankingRules: [.typo, .exactness, .attribute, .custom(Self.popularity), .length]
            ),
            records: records
        )
        for mode in [MatchMode.contains, .words, .prefix] {
            let zur = try index.search(Query("zur", mode: mode, order: .ranked)).rows
            let zurFirst = try index.record(zur[0])["name"]
            #expect(zurFirst == "Zürich", "\(mode)")
            let san = try index.search(Query("san", mode: mode, order: .ranked)).rows
            let sanFirst = try index.record(san[0])["name"]
            #expect(sanFirst == "San", "\(mode)")
        }
    }

    @Test func ruleListsAreChecked() throws {
        #expect(throws: SiftError.self) { try RankingRule.validate([.length, .typo]) }
        #expect(throws: SiftError.self) { try RankingRule.validate([.typo, .typo]) }
        #expect(throws: SiftError.self) {
            try RankingRule.validate([.custom(Self.popularity), .custom(Self.popularity)])
        }
        try RankingRule.validate([.exactness])
        var configuration = IndexConfiguration(searchFields: ["name"], rankingTieBreak: Self.popularity)
        #expect(configuration.rankingRules == RankingRule.defaults + [.custom(Self.popularity)])
        configuration.rankingRules = [.typo, .custom(Self.popularity), .length]
        configuration.rankingTieBreak = RankingTieBreak(field: "name")
        #expect(configuration.rankingRules == [.typo, .custom(RankingTieBreak(field: "name")), .length])
        configuration.rankingTieBreak = nil
        #expect(configuration.rankingRules == [.typo, .length])
    }

    @Test func snapshotsKeepTheRules() throws {
        let rules: [RankingRule] = [.exactness, .typo, .attribute, .custom(Self.popularity), .length]
        let records = (0..<20).map {
            Record(id: String($0), fields: ["name": "zur \($0)", "population": String($0 * 10)])
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], rankingRules: rules),
            records: records
        )
        let path = testScratch.appendingPathComponent("rules-\(UUID()).sift").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(loaded.configuration.rankingRules == rules)
        let query = Query("zur", order: .ranked)
        #expect(try loaded.ids(loaded.search(query)) == index.ids(index.search(query)))
        #expect(try loaded.ids(loaded.search(query)).first == "19")
    }
}
