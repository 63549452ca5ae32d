import Testing
import _SiftFuzzing

@testable import Sift

/// The operators' definitions, by brute force over one record at a time: a word term's ICU words
/// must each occur at a word start of some field (the folded elements of the field, with the start,
/// end and word-start flags ICU usearch and the break iterator give); a phrase must occur in some
/// field by ICU usearch itself (`ReferenceSearch`, the contains rule); `-` negates a term; a clause
/// is an OR of its terms, the query an AND of its clauses; a term without collation elements is
/// left out, and so is a clause left without terms. With typo tolerance (at most `typoCap`
/// edits), a word of a positive word term also matches where the prefix of a record word (its
/// elements from a word start to the next) is within the word's edits (`TypoTolerance.auto`'s
/// budget: 1 from 5 elements, 2 from 9), by optimal string alignment distance.
struct OperatorOracle {
    let folder: ICUFolder
    let reference: ReferenceSearch
    let typoCap: Int

    init(_ collation: Collation, typoCap: Int = 0) throws {
        folder = try ICUFolder(ICUCollator(collation))
        reference = try ReferenceSearch(collation: collation)
        self.typoCap = typoCap
    }

    /// A record's searched field as the oracle reads it.
    struct Field {
        var text: String
        var folded: FoldedText
    }

    func field(_ text: String) throws -> Field { Field(text: text, folded: try folder.fold(text)) }

    /// Whether a term, negation aside, matches some of `fields`; nil when the term has no
    /// collation elements (left out).
    func termMatches(_ term: QueryExpression.Term, _ fields: [Field]) throws -> Bool? {
        if term.isPhrase {
            if try folder.patternElements(term.text).isEmpty { return nil }
            return try fields.contains { try reference.contains(term.text, in: $0.text) }
        }
        let patterns = try folder.queryWords(term.text).map { try folder.patternElements(String($0)) }
            .filter { !$0.isEmpty }
        if patterns.isEmpty { return nil }
        return patterns.allSatisfy { pattern in
            if fields.contains(where: { _SiftFuzzing.occursAtWordStart(pattern, in: $0.folded) }) { return true }
            let edits = term.isNegated ? 0 : TypoOracleTests.Oracle.budget(pattern.count, cap: typoCap)
            return edits > 0 && fields.contains { field in Self.nearestWordPrefix(pattern, in: field.folded) <= edits }
        }
    }

    /// The typos a term holds with in `fields` (a positive word term: the sum over its words of
    /// the nearest word prefix's distance, 0 for a word matched exactly; a phrase or a negated term:
    /// 0), or nil when it does not hold; nil too for a term left out (no collation elements).
    func termTypos(_ term: QueryExpression.Term, _ fields: [Field]) throws -> Int?? {
        guard let matched = try termMatches(term, fields) else { return .some(nil) }
        guard matched != term.isNegated else { return nil }
        if term.isPhrase || term.isNegated { return 0 }
        var total = 0
        for word in try folder.queryWords(term.text) {
            let pattern = try folder.patternElements(String(word))
            if pattern.isEmpty || fields.contains(where: { _SiftFuzzing.occursAtWordStart(pattern, in: $0.folded) }) {
                continue
            }
            total += fields.map { Self.nearestWordPrefix(pattern, in: $0.folded) }.min()!
        }
        return total
    }

    /// The typos a record matches an expression with: per clause the fewest of its terms that
    /// hold, summed; nil when it does not match.
    func typos(_ expression: QueryExpression, _ fields: [Field]) throws -> Int? {
        var total = 0
        for clause in expression.clauses {
            var counted = false
            var fewest: Int? = nil
            for term in clause {
                guard let holds = try termTypos(term, fields) else {
                    counted = true
                    continue
                }
                guard let typos = holds else { continue }  // left out
                counted = true
                fewest = min(fewest ?? typos, typos)
            }
            if counted {
                guard let fewest else { return nil }
                total += fewest
            }
        }
        return total
    }

    /// The smallest distance of a pattern to a prefix of a word of a field.
    static func nearestWordPrefix(_ pattern: [Int64], in folded: FoldedText) -> Int {
        let starts = folded.flags.indices.filter { folded.flags[$0] & FoldFlags.wordStart != 0 }
        var best = Int.max
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : folded.elements.count
            best = min(best, TypoOracleTests.Oracle.prefixDistance(pattern, folded.elements[start..<end]))
        }
        return best
    }

    /// The expression over per-term answers (`termMatches`, nil for a term left out).
    static func evaluate(
        _ expression: QueryExpression,
        _ termMatches: (QueryExpression.Term) throws -> Bool?
    ) rethrows
        -> Bool
    {
        for clause in expression.clauses {
            var counted = false
            var any = false
            for term in clause {
                guard let matched = try termMatches(term) else { continue }
                counted = true
                if matched != term.isNegated { any = true }
            }
            if counted && !any { return false }
        }
        return true
    }
}

/// Operator queries against `OperatorOracle` on real multilingual data, typed a character at a time
/// with backspaces, with edits of the index between queries: the results of every scope, the
/// badge counts, single-record `matches`, ranked order and highlights.
@Suite("Differential: query operators against a brute-force oracle")
struct QueryOperatorOracleTests {
    static let configurations: [Collation] = [
        Collation(locale: "root"),
        Collation(locale: "es", strength: .primary),
        Collation(locale: "da", strength: .tertiary),
        Collation(locale: "de", strength: .secondary),
        Collation(locale: "sv", strength: .tertiary),
        Collation(locale: "cs", strength: .secondary),
        Collation(locale: "tr"),
        Collation(locale: "th"),
        Collation(locale: "ja", strength: .tertiary),
        Collation(locale: "root", alternate: .shifted),
    ]

    /// A generated query: its clauses as written, and its text.
    struct Generated {
        var clauses: [[QueryExpression.Term]]
        var text: String
    }

    /// Random expressions of words (whole or cut) and phrases taken from the records, some
    /// negated, joined by `|` with or without spaces.
    static func generate(
        _ texts: [String],
        folder: ICUFolder,
        seed: UInt64,
        count: Int,
        misspelling: Bool = false
    ) throws -> [Generated] {
        var generator = SeededGenerator(seed: seed)
        let sources = texts.filter { $0.count >= 3 && !$0.contains("\"") }
        var result: [Generated] = []
        while result.count < count {
            var clauses: [[QueryExpression.Term]] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                var clause: [QueryExpression.Term] = []
                for _ in 0..<(Int.random(in: 0..<5, using: &generator) == 0 ? 2 : 1) {
                    let source = Array(sources.randomElement(using: &generator)!)
                    let negated = Int.random(in: 0..<4, using: &generator) == 0
                    if Int.random(in: 0..<4, using: &generator) == 0 {
                        let length = Int.random(in: 2...min(8, source.count), using: &generator)
                        let start = Int.random(in: 0...(source.count - length), using: &generator)
                        let text = String(source[start..<(start + length)])
                        clause.append(.init(text: text, isPhrase: true, isNegated: negated))
                    } else {
                        let words = try folder.queryWords(String(source))
                        guard let word = words.randomElement(using: &generator) else { continue }
                        var cut = Array(word.prefix(Int.random(in: 1...word.count, using: &generator)))
                        if misspelling, cut.count >= 6 {
                            // A typo: two adjacent characters swapped.
                            let i = Int.random(in: 1..<(cut.count - 1), using: &generator)
                            cut.swapAt(i, i + 1)
                        }
                        clause.append(.init(text: String(cut), isPhrase: false, isNegated: negated))
                    }
                }
                if !clause.isEmpty { clauses.append(clause) }
            }
            guard !clauses.isEmpty else { continue }
            let text = clauses.map { clause in
                clause.map { term in
                    (term.isNegated ? "-" : "") + (term.isPhrase ? "\"\(term.text)\"" : term.text)
                }
                .joined(separator: Bool.random(using: &generator) ? " | " : "|")
            }
            .joined(separator: " ")
            result.append(Generated(clauses: clauses, text: text))
        }
        return result
    }

    /// What is typed for a query: each prefix in turn, a few characters erased and typed again
    /// halfway, then erased back to its first half.
    static func keystrokes(_ text: String) -> [String] {
        let characters = Array(text)
        var typed: [String] = []
        for end in 1...characters.count {
            typed.append(String(characters[..<end]))
            if end == characters.count / 2, end > 3 {
                for back in 1...3 { typed.append(String(characters[..<(end - back)])) }
                for again in (end - 2)...end { typed.append(String(characters[..<again])) }
            }
        }
        for end in stride(from: characters.count - 1, through: max(1, characters.count / 2), by: -1) {
            typed.append(String(characters[..<end]))
        }
        return typed
    }

    @Test(arguments: configurations)
    func typedOperatorQueriesMatchTheOracle(_ collation: Collation) throws {
        try Self.typeQueries(collation, typos: .off)
    }

    /// As `typedOperatorQueriesMatchTheOracle`, with typo tolerance: positive word terms match
    /// within their edits, phrases and negated terms exactly; ranked results put the exact
    /// matches first.
    @Test(arguments: [configurations[0], configurations[1], configurations[2], configurations[5], configurations[9]])
    func typedOperatorQueriesWithTyposMatchTheOracle(_ collation: Collation) throws {
        try Self.typeQueries(collation, typos: .auto)
    }

    static func typeQueries(_ collation: Collation, typos: TypoTolerance) throws {
        var generator = SeededGenerator(seed: stableSeed("operators " + collation.locale))
        let corpus = DifferentialTests.corpus.shuffled(using: &generator).prefix(
            TestScale.size(full: 3000, default: 500)
        )
        let texts = Array(corpus)
        func makeRecord(_ id: String, _ i: Int) -> Record {
            Record(
                id: id,
                fields: [
                    "text": texts[i % texts.count], "other": texts[(i * 7 + 3) % texts.count],
                    "kind": i % 3 == 0 ? "a" : "b",
                ]
            )
        }
        var records = texts.indices.map { makeRecord(String($0), $0) }
        let scopes = [
            Scope(name: "All"), Scope(name: "Text", fields: ["text"]),
            Scope(name: "KindA", filter: .init(field: "kind", values: ["a"])),
        ]
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["text", "other"],
                collation: collation,
                scopes: scopes,
                cacheCapacity: 48
            ),
            records: records
        )
        // Term results kept as member lists (category filters and negations then meet lists) in
        // about half the locales, as bits in the others.
        index.knobs.sparseSlotLimitOverride = stableSeed(collation.locale).isMultiple(of: 2) ? Int.max : 0
        let oracle = try OperatorOracle(collation, typoCap: typos == .off ? 0 : 2)
        var fields: [String: (text: OperatorOracle.Field, other: OperatorOracle.Field)] = [:]
        func refold(_ record: Record) throws {
            fields[record.id] = (try oracle.field(record["text"]), try oracle.field(record["other"]))
        }
        for record in records { try refold(record) }
        let queries = try Self.generate(
            texts,
            folder: oracle.folder,
            seed: stableSeed(collation.locale),
            count: TestScale.size(full: 24, default: typos == .off ? 8 : 12),
            misspelling: typos != .off
        )
        var narrowed = 0
        var cacheHits = 0
        var typoOnlyMatches = 0
        var rankedTypoCounts: Set<Int> = []
        var nextID = texts.count
        for (number, generated) in queries.enumerated() {
            #expect(QueryExpression(parsing: generated.text).clauses == generated.clauses, "\(generated.text)")
            // One term's answer per record, computed once per term until the next edit.
            var answers: [QueryExpression.Term: [String: (all: Bool?, text: Bool?)]] = [:]
            func answer(_ term: QueryExpression.Term, _ id: String) throws -> (all: Bool?, text: Bool?) {
                if let known = answers[term]?[id] { return known }
                let (text, other) = fields[id]!
                let result = (try oracle.termMatches(term, [text, other]), try oracle.termMatches(term, [text]))
                answers[term, default: [:]][id] = result
                return result
            }
            for (step, typed) in Self.keystrokes(generated.text).enumerated() {
                let expression = QueryExpression(parsing: typed)
                let query = Query(typed, mode: .words, typos: typos)
                let result = try index.search(query)
                if typos != .off {
                    typoOnlyMatches += result.rows.count - (try index.search(Query(typed, mode: .words)).rows.count)
                }
                narrowed += result.statistics.narrowedScans
                cacheHits += result.statistics.cacheHits
                var expected: [String: Set<String>] = ["All": [], "Text": [], "KindA": []]
                for record in records {
                    let all = try OperatorOracle.evaluate(expression) { try answer($0, record.id).all }
                    let text = try OperatorOracle.evaluate(expression) { try answer($0, record.id).text }
                    if all { expected["All"]!.insert(record.id) }
                    if text { expected["Text"]!.insert(record.id) }
                    if all && record["kind"] == "a" { expected["KindA"]!.insert(record.id) }
                }
                let got = Set(try index.ids(result))
                #expect(
                    got == expected["All"]!,
                    "\(collation) \(typed.debugDescription): extra \(got.subtracting(expected["All"]!).prefix(4)), missing \(expected["All"]!.subtracting(got).prefix(4))"
                )
                for count in result.scopeCounts {
                    #expect(count.count == expected[count.scope]!.count, "\(collation) \(typed) badge \(count.scope)")
                }
                // One record at a time, as the controller re-evaluates edited records.
                for record in records where Int(record.id)! % 41 == step % 41 {
                    let handle = try #require(index.handle(forID: record.id))
                    #expect(try index.matches(handle, query) == expected["All"]!.contains(record.id), "\(typed)")
                }
                if step % 3 == 0 {
                    let rankedQuery = Query(typed, mode: .words, order: .ranked, typos: typos)
                    let ranked = try index.search(rankedQuery).rows
                    #expect(Set(ranked) == Set(result.rows), "ranked \(typed)")
                    let groups = try ranked.map { try index.rankingGroup(of: $0, for: rankedQuery) ?? 0 }
                    #expect(groups == groups.sorted(), "ranked groups \(collation) \(typed)")
                    if typos != .off {
                        // Exact matches (the query's without tolerance) come first.
                        let exact = Set(try index.search(Query(typed, mode: .words)).rows)
                        let firstTypo = ranked.firstIndex { !exact.contains($0) } ?? ranked.count
                        #expect(ranked[..<firstTypo].count == exact.count, "exact first \(collation) \(typed)")
                        // Then by typos, fewest first, as the oracle counts them.
                        let counts = try ranked.map { row in
                            let (text, other) = fields[try index.id(of: row)]!
                            return try oracle.typos(expression, [text, other]) ?? -1
                        }
                        #expect(!counts.contains(-1), "ranked rows match \(collation) \(typed)")
                        #expect(counts == counts.sorted(), "ranked by typos \(collation) \(typed): \(counts)")
                        #expect(counts[..<firstTypo].allSatisfy { $0 == 0 })
                        rankedTypoCounts.formUnion(counts)
                    }
                }
                // Highlights: the merged highlights of the positive terms that match the record,
                // each as its own literal query (words or contains), which are tested against ICU.
                for row in result.rows.prefix(3) {
                    let id = try index.id(of: row)
                    var parts: [String: [Range<Int>]] = [:]
                    for clause in expression.clauses {
                        for term in clause where try !term.isNegated && answer(term, id).all == true {
                            let single = Query(
                                term.text,
                                mode: term.isPhrase ? .contains : .words,
                                syntax: .literal,
                                typos: typos
                            )
                            for (field, ranges) in try index.matchRanges(of: row, for: single) {
                                parts[field, default: []] += ranges
                            }
                        }
                    }
                    let got = try index.matchRanges(of: row, for: query)
                    #expect(got == parts.mapValues(Self.merged), "highlights \(collation) \(typed) in \(id)")
                }
            }
            // An edit between queries: an update, a removal or an insertion.
            switch number % 3 {
            case 0:
                let position = Int.random(in: 0..<records.count, using: &generator)
                records[position] = makeRecord(records[position].id, Int.random(in: 0..<texts.count, using: &generator))
                try index.update(records[position])
                try refold(records[position])
            case 1:
                let position = Int.random(in: 0..<records.count, using: &generator)
                try index.remove(id: records.remove(at: position).id)
            default:
                let record = makeRecord(String(nextID), Int.random(in: 0..<texts.count, using: &generator))
                nextID += 1
                let position = Int.random(in: 0...records.count, using: &generator)
                try index.insert(record, at: position)
                records.insert(record, at: position)
                try refold(record)
            }
        }
        #expect(narrowed > 0, "typing should narrow term patterns")
        #expect(typos == .off || typoOnlyMatches > 0, "some records should match only within typos")
        #expect(typos == .off || rankedTypoCounts.contains(1), "some ranked rows should need one typo")
        #expect(cacheHits > 0, "backspaces and unchanged terms should be served from the cache")
    }

    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.sorted(by: { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }) {
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
