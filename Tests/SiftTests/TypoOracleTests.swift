import Foundation
import Testing

@testable import Sift

/// Typo tolerance (`Query.typos`) against a brute-force oracle written from its definition: a
/// query word matches a record exactly (the mode's own rule, which the other oracles check) or
/// within its edits: the optimal string alignment distance between its collation elements (ICU's
/// collation element iterator, `ReferenceSearch.collationElements(of:)`) and the nearest prefix of
/// a record word (from a word start of ICU's word break iterator to the next; in `.prefix` mode
/// the whole query against the field) is at most 1 for 5–8 elements, 2 for 9 or more. Real
/// multilingual data, typed one keystroke at a time with backspaces and edits in between.
@Suite("Typo tolerance vs a brute-force edit-distance oracle")
struct TypoOracleTests {
    static let texts: [String] = {
        var generator = SeededGenerator(seed: 20_261_125)
        var texts: [String] = []
        if let cities = try? readTSV("cities.tsv") {
            let name = cities.header.firstIndex(of: "name")!
            texts += cities.rows.map { $0[name] }.shuffled(using: &generator)
                .prefix(TestScale.size(full: 400, default: 200))
        }
        if let names = try? readTSV("country_names_i18n.tsv") {
            let value = names.header.firstIndex(of: "value")!
            texts += names.rows.map { $0[value] }.shuffled(using: &generator)
                .prefix(TestScale.size(full: 500, default: 250))
        }
        texts += [
            "ripgrep", "ripgrep-all", "Straße", "STRASSE", "Aalborg", "Ålborg", "El niño juega", "nino", "José Martí",
            "Müller", "Mueller", "İzmir", "Łódź", "Rock'n'Roll", "東京都", "กรุงเทพมหานคร", "e\u{301}clair", "",
            "Mission Jobs", "Kopenhagen", "København", "Chrudim", "chata",
        ]
        return texts.shuffled(using: &generator)
    }()

    static func records(seed: UInt64) -> [Record] { OracleCorpus.records(texts, seed: seed) }

    static let configurations = OracleCorpus.collations

    /// Typed sequences: fixed ones for collation cases, then words of records with a typo or two.
    static func sequences(seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var result = ["ripgrpe", "rigprep", "strase", "straße", "kobenhavn", "kopenhagn", "aalbrog", "ninoo", "niño j"]
        let nonEmpty = texts.filter { $0.count >= 5 }
        for i in 0..<TestScale.size(full: 30, default: 6) {
            var text = Array(nonEmpty.randomElement(using: &generator)!.prefix(14))
            for _ in 0..<(i % 3) {
                let at = Int.random(in: 0..<text.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: text.remove(at: at)
                case 1: text.insert(text[Int.random(in: 0..<text.count, using: &generator)], at: at)
                case 2: text[at] = text[Int.random(in: 0..<text.count, using: &generator)]
                default: if at + 1 < text.count { text.swapAt(at, at + 1) }
                }
                if text.isEmpty { text = ["a"] }
            }
            result.append(i % 2 == 0 ? String(text).lowercased() : String(text))
        }
        return result
    }

    /// The oracle's elements and word starts of every record's fields, kept current through edits.
    struct Oracle {
        let reference: ReferenceSearch
        let folder: ICUFolder
        /// Per record id, per field: the elements and the indexes of the elements starting a word.
        var fields: [String: [(elements: [Int64], wordStarts: [Int])]] = [:]

        init(_ collation: Collation, folder: ICUFolder, records: [Record]) throws {
            reference = try ReferenceSearch(collation: collation)
            self.folder = folder
            for record in records { try set(record) }
        }

        mutating func set(_ record: Record) throws {
            fields[record.id] = try ["name", "place"].map { name in
                let text = record[name]
                let elements = try reference.collationElements(of: text)
                // Word starts: ICU's word break iterator, as the folder marks them on its elements.
                let folded = try folder.fold(text)
                #expect(folded.elements == elements, "the folder's elements are the iterator's: \(text)")
                let starts = folded.flags.indices.filter { folded.flags[$0] & FoldFlags.wordStart != 0 }
                return (elements, starts)
            }
        }

        /// The optimal string alignment distance between `pattern` and the nearest prefix of `word`.
        ///
        /// With a `cap`, a distance above it comes back as some value above it: only the prefixes
        /// of at most `pattern.count + cap` elements can be that close (each cell is at least
        /// the difference of its lengths), and once two rows in a row are all above the cap so
        /// is every later one (a cell comes from the row above or, by a transposition, plus one
        /// from the one before).
        static func prefixDistance(_ pattern: [Int64], _ word: ArraySlice<Int64>, cap: Int = .max) -> Int {
            // One flat table on raw buffers: the test binary is unoptimized, where nested arrays
            // cost a retain and a release per cell.
            let m = pattern.count
            let n = cap == .max ? word.count : min(word.count, m + cap)
            let width = n + 1
            let d = UnsafeMutablePointer<Int>.allocate(capacity: (m + 1) * width)
            defer { d.deallocate() }
            return pattern.withUnsafeBufferPointer { pattern in
                word.withUnsafeBufferPointer { word in
                    for i in 0...m { d[i * width] = i }
                    for j in 0...n { d[j] = j }
                    if m > 0 && n > 0 {
                        var previousMinimum = 0
                        for i in 1...m {
                            let row = d + i * width
                            let above = row - width
                            var minimum = row[0]
                            for j in 1...n {
                                let cost = pattern[i - 1] == word[j - 1] ? 0 : 1
                                var best = min(above[j] + 1, row[j - 1] + 1, above[j - 1] + cost)
                                if i > 1 && j > 1 && pattern[i - 1] == word[j - 2] && pattern[i - 2] == word[j - 1] {
                                    best = min(best, (above - width)[j - 2] + 1)
                                }
                                row[j] = best
                                minimum = min(minimum, best)
                            }
                            if minimum > cap && previousMinimum > cap { return cap + 1 }
                            previousMinimum = minimum
                        }
                    }
                    var best = Int.max
                    for j in 0...n { best = min(best, d[m * width + j]) }
                    return best
                }
            }
        }

        /// The edits a query word of `count` elements may match with (`TypoTolerance.auto`).
        static func budget(_ count: Int, cap: Int) -> Int { min(cap, count >= 9 ? 2 : count >= 5 ? 1 : 0) }

        /// The smallest distance of a pattern to a record word of one record (any field), exact up
        /// to `cap` (see `prefixDistance`); `Int.max` without words.
        func distance(_ pattern: [Int64], id: String, prefix: Bool, cap: Int) -> Int {
            var best = Int.max
            for field in fields[id]! {
                let starts = prefix ? [0] : field.wordStarts
                for (n, start) in starts.enumerated() where start <= field.elements.count {
                    let end =
                        prefix ? field.elements.count : n + 1 < starts.count ? starts[n + 1] : field.elements.count
                    best = min(best, Self.prefixDistance(pattern, field.elements[start..<end], cap: cap))
                }
            }
            return best
        }

        /// The number of typos each record matches `words` with (0: exact), given the exact matches
        /// of each word; records that do not match are absent.
        func typos(_ words: [[Int64]], exact: [Set<String>], cap: Int, prefix: Bool) -> [String: Int] {
            var result: [String: Int] = [:]
            for id in fields.keys {
                var total = 0
                var matches = true
                for (word, exactIDs) in zip(words, exact) where !exactIDs.contains(id) {
                    let edits = Self.budget(word.count, cap: cap)
                    let distance = edits > 0 ? distance(word, id: id, prefix: prefix, cap: edits) : Int.max
                    if distance > edits {
                        matches = false
                        break
                    }
                    total += max(1, distance)
                }
                if matches { result[id] = total }
            }
            return result
        }
    }

    @Test(arguments: configurations)
    func everyKeystrokeMatchesTheOracle(_ collation: Collation) throws {
        var records = Self.records(seed: stableSeed(collation.locale))
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "place"], collation: collation),
            records: records
        )
        let folder = index.folded.foldings[0].folder
        var oracle = try Oracle(collation, folder: folder, records: records)
        var generator = SeededGenerator(seed: stableSeed(collation.locale + "typos"))
        var narrowed = 0
        var cacheHits = 0
        var typoMatches = 0
        for (number, sequence) in Self.sequences(seed: stableSeed(collation.locale)).enumerated() {
            let keystrokes = typedWithBackspaces(sequence)
            for (k, text) in keystrokes.enumerated() {
                if (number + k) % 5 == 4 {
                    let victim = Int.random(in: 0..<records.count, using: &generator)
                    let replacement = Self.texts.randomElement(using: &generator)!
                    switch (number + k) % 3 {
                    case 0:
                        records[victim] = Record(
                            id: records[victim].id,
                            fields: ["name": replacement, "place": records[victim]["place"]]
                        )
                        _ = try index.update(records[victim])
                        try oracle.set(records[victim])
                    case 1:
                        let removed = records.remove(at: victim)
                        try index.remove(id: removed.id)
                        oracle.fields[removed.id] = nil
                    default:
                        let record = Record(id: "new\(number)-\(k)", fields: ["name": sequence, "place": replacement])
                        records.append(record)
                        _ = try index.insert(record)
                        try oracle.set(record)
                    }
                }
                for mode in [MatchMode.words, .prefix] {
                    let cap = (number + k) % 4 == 1 ? 1 : 2
                    let tolerance: TypoTolerance = cap == 1 ? .maximum(1) : .auto
                    // Exact results of the same patterns in the cache must never serve typo ones.
                    if number % 2 == 0 { _ = try index.search(Query(text, mode: mode)) }
                    let pieces = mode == .words ? try folder.queryWords(text).map(String.init) : [text]
                    var words: [[Int64]] = []
                    var exact: [Set<String>] = []
                    for piece in pieces {
                        let elements = try oracle.reference.collationElements(of: piece)
                        if elements.isEmpty { continue }
                        words.append(elements)
                        exact.append(Set(try index.ids(index.search(Query(piece, mode: mode, syntax: .literal)))))
                    }
                    let query = Query(
                        text,
                        mode: mode,
                        order: k % 2 == 0 ? .ranked : .original,
                        syntax: .literal,
                        typos: tolerance
                    )
                    let result = try index.search(query)
                    narrowed += result.statistics.narrowedScans
                    cacheHits += result.statistics.cacheHits
                    let got = try index.ids(result)
                    if words.isEmpty {
                        #expect(Set(got) == Set(records.map(\.id)))
                        continue
                    }
                    let expected = oracle.typos(words, exact: exact, cap: cap, prefix: mode == .prefix)
                    #expect(
                        Set(got) == Set(expected.keys),
                        "\(collation) \(mode) '\(text)': extra \(Set(got).subtracting(expected.keys).prefix(5)), missing \(Set(expected.keys).subtracting(got).prefix(5))"
                    )
                    #expect(got.count == Set(got).count)
                    typoMatches += expected.values.filter { $0 > 0 }.count
                    if query.order == .ranked {
                        // Fewer typos first; the per-record group agrees and never decreases.
                        var previous = (typos: 0, group: Int.min)
                        for (row, id) in zip(result.rows, got) {
                            let typos = expected[id] ?? 0
                            #expect(typos >= previous.typos, "'\(text)': \(id) with \(typos) typos after more")
                            let group = try index.rankingGroup(of: row, for: query) ?? 0
                            #expect(group >= previous.group, "'\(text)': group \(group) after \(previous.group)")
                            previous = (typos, group)
                        }
                    }
                    for row in result.rows.prefix(30) {
                        #expect(try index.matches(row, query))
                        let highlights = try index.matchRanges(of: row, for: query)
                        let id = try index.id(of: row)
                        #expect(!highlights.isEmpty, "'\(text)' highlights something in \(id)")
                    }
                    for record in records.prefix(40) where expected[record.id] == nil {
                        let handle = index.handle(forID: record.id)!
                        #expect(try !index.matches(handle, query), "\(collation) '\(text)' matches '\(record.id)'")
                    }
                }
            }
        }
        #expect(narrowed > 0, "typing one character at a time should narrow")
        #expect(cacheHits > 0, "a backspace should be served from the cache")
        #expect(typoMatches > 0, "some records should match with typos")
    }

    @Test func meilisearchUsersFindRipgrep() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: ["ripgrep", "grep", "ripgrep-all", "rip", "ripper"].enumerated().map {
                Record(id: String($0.offset), fields: ["name": $0.element])
            }
        )
        func ids(_ text: String, _ mode: MatchMode = .words, _ typos: TypoTolerance = .auto) throws -> [String] {
            try index.ids(index.search(Query(text, mode: mode, order: .ranked, typos: typos)))
        }
        #expect(try ids("ripgrpe") == ["0", "2"])
        #expect(try ids("ripgrpe", .prefix) == ["0", "2"])
        #expect(try ids("ripgrpe", .words, .off) == [])
        #expect(try ids("ripgre") == ["0", "2"])  // exact
        #expect(try ids("ripgrep") == ["0", "2"])
        #expect(try ids("rpigrep") == ["0", "2"])  // a swap is one edit
        #expect(try ids("ripgr") == ["0", "2"])  // 5 elements: exact, then typos: none here
        #expect(try ids("rigrp") == [])  // 2 edits for 5 elements
        #expect(try ids("ripg~ep", .prefix) == ["0", "2"])  // an element no record holds, replaced
        #expect(try ids("ripg~ep", .prefix, .off) == [])
        let ripgrepAll = index.handle(forID: "2")!
        #expect(
            try index.highlights(of: ripgrepAll, for: Query("ripgrpe", mode: .words, typos: .auto))["name"]?.count == 1
        )
    }

    /// With operators, positive word terms forgive typos and phrases and negated terms do not;
    /// ranked, the exact matches come first.
    @Test func operatorQueriesForgiveTyposInPositiveWordsOnly() throws {
        let names = ["ripgrep", "vim", "neovim editor", "ripgrep-all vim", "emacs", "ripper"]
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: names.enumerated().map { Record(id: String($0.offset), fields: ["name": $0.element]) }
        )
        func ids(_ text: String, _ typos: TypoTolerance = .auto) throws -> [String] {
            try index.ids(index.search(Query(text, mode: .words, order: .ranked, typos: typos)))
        }
        #expect(try ids("ripgrpe | emacs") == ["4", "0", "3"])  // exact first, then the typo matches
        #expect(try ids("ripgrpe | emacs", .off) == ["4"])
        #expect(try ids("ripgrpe -vim") == ["0"])
        #expect(try ids("ripgrep -ripgrpe") == ["0", "3"])  // a negated word matches exactly
        #expect(try ids("\"ripgrpe\" | vim") == ["1", "3"])  // so does a phrase
        #expect(try ids("emcas | vim") == ["1", "3", "4"])  // "emcas": 5 elements, 1 edit
        let ripgrepAll = index.handle(forID: "3")!
        let query = Query("ripgrpe -emacs", mode: .words, typos: .auto)
        #expect(try index.matches(ripgrepAll, query))
        #expect(try index.highlights(of: ripgrepAll, for: query)["name"]?.count == 1)
        #expect(
            try index.rankingGroup(
                of: ripgrepAll,
                for: Query("ripgrpe | vim", mode: .words, order: .ranked, typos: .auto)
            ) != nil
        )
    }

    /// The two-edit sweep's filter (in `typo_sweep_masked_body`, `CSiftKernels/typo.c`) lets a word through
    /// when one of the pattern's blocks (q0 q1), (q3 q4), (q6 q7) stands whole at an offset two
    /// edits can move it to. Each record here is two edits from `abcdefghij` that leave one block
    /// whole, at every offset it can then have; the last two have a multi-byte code before a block,
    /// where byte offsets are not element offsets and the filter must not judge.
    @Test func twoEditWordsPassTheSweepFilterAtEveryOffset() throws {
        let words = [
            "abcxefyhij",  // d and g substituted: (a b) alone whole, at element 0
            "acdefgxij",  // b deleted, h substituted: (d e) alone, at 2
            "axbcdefyhij",  // insertion in (a b), g substituted: (d e) alone, at 4
            "acdfghij",  // b and e deleted: (g h) alone, at 4
            "acxefghij",  // b deleted, d substituted: (g h) alone, at 5
            "xbcyefghij",  // a and d substituted: (g h) alone, at 6
            "axbcyefghij",  // insertion in (a b), d substituted: (g h) alone, at 7
            "axbcdyefghij",  // insertions in (a b) and (d e): (g h) alone, at 8
            "bacdefhgij",  // (a b) and (g h) swapped: (d e) alone, at 3
            // Hebrew letters, of one word with Latin ones (ICU's word rules), have multi-byte codes:
            "ששabcdefghij",  // two insertions before (a b): at element 2, byte 4 or more
            "axbcdשefghij",  // insertions in (a b) and (d e): (g h) at element 8, byte 9 or more
        ]
        // The letters first (one-byte codes), then 150 other letters, so that ש gets a longer code.
        let ranges: [ClosedRange<UInt32>] = [
            0x430...0x44F, 0x3B1...0x3C9, 0x561...0x586, 0x10D0...0x10FA, 0x5D0...0x5EA,
        ]
        let filler = String(ranges.joined().map { Character(Unicode.Scalar($0)!) })
        let records =
            [
                Record(id: "letters", fields: ["name": "abcdefghijklmnopqrstuvwxyz"]),
                Record(id: "cjk", fields: ["name": filler]),
            ]
            + words.enumerated().map { Record(id: "w\($0.offset)", fields: ["name": "zz " + $0.element]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        #expect(index.folded.foldings[0].codeBook.count > 150)  // beyond the 127 one-byte codes
        let found = Set(try index.ids(index.search(Query("abcdefghij", mode: .words, typos: .auto))))
        for (i, word) in words.enumerated() {
            #expect(found.contains("w\(i)"), "\(word): two edits from abcdefghij")
        }
    }
}
