internal import Sift

/// The property the query-expression fuzzer checks (`Fuzz/`, target `SiftQueryFuzzer`), shared
/// with the corpus replay test. Underscored: not public API.
///
/// An input is: one byte choosing a collation, one byte choosing how the query is grown and the
/// limits, then UTF-8 text (decoded leniently): records separated by newlines, then U+0001, then
/// a query text. The query is grown into operator texts of many terms with repeats (its words
/// joined by `|`, repeated, negated, quoted, the whole text doubled), each read as a `.words`
/// query with operators. With `QueryLimits.unlimited`, the matching records and `matches(_:_:)`
/// of every record must equal the brute-force evaluation of the expression
/// (`_SiftFuzzing.compareOperators`); every order and typo tolerance must list the same records
/// as each other's exact or typo answer does, and highlights must run. Under small limits, the
/// query must either give the same answer or be refused with `SiftError.queryTooLarge` naming a
/// limit it is past: its UTF-8 length, or its distinct terms counted independently (a term's
/// words' collation elements, phrase or not, negated or not), or its distinct typo words.
public enum _SiftQueryFuzzing {
    /// Checks one input; returns a description of the first disagreement, or nil.
    public static func check(_ data: [UInt8]) -> String? {
        guard data.count >= 2 else { return nil }
        let collation = _SiftFuzzing.collations[Int(data[0]) % _SiftFuzzing.collations.count]
        let text = String(decoding: data[2...], as: UTF8.self)
        let parts = text.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false)
        let recordTexts = parts[0].split(separator: "\n", omittingEmptySubsequences: false).prefix(24).map {
            String($0.prefix(200))
        }
        let seed = parts.count > 1 ? String(parts[1].prefix(256)) : ""
        do {
            let index = try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["t"], collation: collation, cacheCapacity: 8)
            )
            try index.insert(
                contentsOf: recordTexts.enumerated().map { Record(id: String($0.offset), fields: ["t": $0.element]) }
            )
            let reference = try ReferenceSearch(collation: collation)
            var folded: [RecordHandle: FoldedText] = [:]
            for query in grown(seed, data[1]) {
                if let problem = try checkQuery(query, data[1], index: index, reference: reference, folded: &folded) {
                    return problem
                }
            }
        } catch {
            return "unexpected error: \(error)"
        }
        return nil
    }

    /// Operator texts grown from `seed`: many terms, repeats, negations, phrases.
    static func grown(_ seed: String, _ flags: UInt8) -> [String] {
        let words = seed.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        let repeats = 1 + Int(flags >> 4)
        var texts = [seed, seed + " " + seed, seed + " | " + seed]
        if !words.isEmpty {
            let either = words.joined(separator: " | ")
            texts.append(Array(repeating: either, count: repeats).joined(separator: " | "))
            texts.append(Array(repeating: words.joined(separator: " "), count: repeats).joined(separator: " "))
            texts.append(
                words.enumerated().map { $0.offset % 3 == 1 ? "-" + $0.element : $0.element }.joined(separator: " ")
            )
            texts.append(words.map { "\"\($0) \($0)\"" }.joined(separator: " | ") + " " + words[0])
        }
        return texts
    }

    private static func checkQuery(
        _ text: String,
        _ flags: UInt8,
        index: SearchIndex,
        reference: ReferenceSearch,
        folded: inout [RecordHandle: FoldedText]
    ) throws -> String? {
        index.queryLimits = .unlimited
        if let problem = try _SiftFuzzing.compareOperators(text, index: index, reference: reference, folded: &folded) {
            return problem
        }
        let exact = Set(try index.search(Query(text, mode: .words)).rows)
        for typos in [TypoTolerance.off, .auto] {
            var members: Set<RecordHandle>? = nil
            for order in ResultOrder.allCases {
                let query = Query(text, mode: .words, order: order, typos: typos)
                let result = try index.search(query)
                let rows = Set(result.rows)
                if rows.count != result.rows.count { return "\(text.debugDescription): a row listed twice" }
                if let members, members != rows { return "\(text.debugDescription): \(order) order lists other rows" }
                if typos == .off, rows != exact { return "\(text.debugDescription): \(order) order lists other rows" }
                if !exact.isSubset(of: rows) { return "\(text.debugDescription): typos lose exact matches" }
                members = rows
                for row in result.rows.prefix(3) { _ = try index.highlights(of: row, for: query) }
            }
        }
        // Small limits: the same answer, or a refusal that names a limit the query is past.
        let limits = QueryLimits(
            maximumLength: flags & 1 == 0 ? 64 : .max,
            maximumTerms: 1 + Int(flags >> 1 & 7),
            maximumTypoWords: 1 + Int(flags >> 4 & 3)
        )
        index.queryLimits = limits
        for typos in [TypoTolerance.off, .auto] {
            let query = Query(text, mode: .words, typos: typos)
            let terms = try distinctTerms(text, index: index)
            do {
                let rows = Set(try index.search(query).rows)
                index.queryLimits = .unlimited
                let unlimited = Set(try index.search(query).rows)
                index.queryLimits = limits
                if rows != unlimited { return "\(text.debugDescription): limits change the answer" }
                if text.utf8.count > limits.maximumLength || terms > limits.maximumTerms {
                    return
                        "\(text.debugDescription): \(terms) terms, \(text.utf8.count) bytes, not refused under \(limits)"
                }
            } catch let error as SiftError {
                guard case .queryTooLarge(let limit, let size, let maximum) = error, size > maximum else {
                    return "\(text.debugDescription): unexpected error \(error)"
                }
                switch limit {
                case QueryLimits.lengthName:
                    if size != text.utf8.count || maximum != limits.maximumLength {
                        return "wrong length refusal \(error)"
                    }
                case QueryLimits.termsName:
                    if size != terms || maximum != limits.maximumTerms || text.utf8.count > limits.maximumLength {
                        return "\(text.debugDescription): \(error), \(terms) terms by count"
                    }
                case QueryLimits.typoWordsName:
                    if typos == .off || terms > limits.maximumTerms { return "\(text.debugDescription): \(error)" }
                default: return "unknown limit \(error)"
                }
            }
        }
        index.queryLimits = .unlimited
        return nil
    }

    /// The distinct terms of a `.words` text with operators, counted from the parse and ICU's
    /// collation elements: a term is its words' elements (each distinct word once, in order),
    /// whether it is a phrase, whether it is negated; terms without elements are left out. A
    /// text without operators counts its distinct words.
    static func distinctTerms(_ text: String, index: SearchIndex) throws -> Int {
        let folder = index.folded.foldings[0].folder
        let expression = QueryExpression(parsing: text)
        guard expression.usesOperators else {
            var words = Set<[Int64]>()
            for word in try folder.queryWords(text) {
                let elements = try folder.patternElements(String(word))
                if !elements.isEmpty { words.insert(elements) }
            }
            return words.count
        }
        struct Key: Hashable {
            var words: [[Int64]]
            var isPhrase: Bool
            var isNegated: Bool
        }
        var keys = Set<Key>()
        for clause in expression.clauses {
            for term in clause {
                let pieces = term.isPhrase ? [term.text] : try folder.queryWords(term.text).map(String.init)
                var words: [[Int64]] = []
                for piece in pieces {
                    let elements = try folder.patternElements(piece)
                    if !elements.isEmpty && !words.contains(elements) { words.append(elements) }
                }
                if !words.isEmpty { keys.insert(Key(words: words, isPhrase: term.isPhrase, isNegated: term.isNegated)) }
            }
        }
        return keys.count
    }
}
