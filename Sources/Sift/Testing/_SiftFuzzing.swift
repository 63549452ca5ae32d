/// The property the fuzzer checks, shared by the libFuzzer target (`Fuzz/`) and the corpus
/// replay test. Underscored: not public API.
///
/// An input is: one byte choosing a collation, one byte choosing edits, then UTF-8 text (decoded
/// leniently): records separated by newlines, then U+0001, then a query. The query is typed one
/// character at a time; after every keystroke, in `contains` mode, the set of matching records
/// and every match range must equal ICU usearch's; in `words` mode, read with operators
/// (`-word`, `"phrase"`, `a | b`), the matching records and `matches(_:_:)` of every record must
/// equal a brute-force evaluation of the expression (phrases by ICU usearch, words at the word
/// starts of each record's folded text); in `fuzzy` mode the set of matching records must be
/// those whose collation elements (ICU's collation element iterator,
/// `ReferenceSearch.collationElements(of:)`) hold the query's as a subsequence, in every order,
/// with `matches(_:_:)` agreeing and highlights running; `prefix` mode, ranking and highlights
/// must run without trapping. Then an edit is applied and the check repeats, so that cached,
/// narrowed results are checked against a changed index too.
public enum _SiftFuzzing {
    static let collations: [Collation] = [
        Collation(), Collation(locale: "de"), Collation(locale: "da"), Collation(locale: "es", strength: .secondary),
        Collation(locale: "th"), Collation(alternate: .shifted), Collation(locale: "cs", strength: .tertiary),
        Collation(locale: "ja"), Collation(locale: "sv", strength: .quaternary, alternate: .shifted),
        Collation(locale: "es@collation=traditional"),
    ]

    /// Checks one input; returns a description of the first disagreement, or nil.
    public static func check(_ data: [UInt8]) -> String? {
        guard data.count >= 2 else { return nil }
        let collation = collations[Int(data[0]) % collations.count]
        let text = String(decoding: data[2...], as: UTF8.self)
        let parts = text.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false)
        let recordTexts = parts[0].split(separator: "\n", omittingEmptySubsequences: false).prefix(24).map {
            String($0.prefix(300))
        }
        let query = parts.count > 1 ? String(parts[1].prefix(64)) : ""
        do {
            let index = try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["t"], collation: collation, cacheCapacity: 6),
                records: recordTexts.enumerated().map { Record(id: String($0.offset), fields: ["t": $0.element]) }
            )
            let reference = try ReferenceSearch(collation: collation)
            if let problem = try typeAndCompare(query, index: index, reference: reference) { return problem }
            // An edit while results are cached, then again.
            if !recordTexts.isEmpty {
                let victim = String(Int(data[1]) % recordTexts.count)
                switch data[1] % 3 {
                case 0: try index.remove(id: victim)
                case 1: try index.update(Record(id: victim, fields: ["t": String(query.reversed())]))
                default:
                    try index.insert(Record(id: "new", fields: ["t": query + " " + (recordTexts.first ?? "")]), at: 0)
                }
                if let problem = try typeAndCompare(query, index: index, reference: reference) { return problem }
            }
        } catch {
            return "unexpected error: \(error)"
        }
        return nil
    }

    private static func typeAndCompare(
        _ query: String,
        index: SearchIndex,
        reference: ReferenceSearch
    ) throws -> String? {
        var typed = ""
        var folded: [RecordHandle: FoldedText] = [:]  // the records do not change while typing
        for character in query {
            typed.append(character)
            let result = try index.search(Query(typed))
            let allIgnorable = try index.foldings[0].folder.patternElements(typed).isEmpty
            var matched: [String: RecordHandle] = [:]
            for row in result.rows { matched[try index.id(of: row)] = row }
            for handle in index.handles() {
                let id = try index.id(of: handle)
                let text = try index.value(of: "t", for: handle)
                let expected = try reference.matches(of: typed, in: text)
                if allIgnorable {
                    if matched[id] == nil { return "'\(typed)' (no collation elements) should match record \(id)" }
                    continue
                }
                if (matched[id] != nil) != !expected.isEmpty {
                    return
                        "\(typed.debugDescription) membership of \(text.debugDescription): Sift \(matched[id] != nil), ICU \(!expected.isEmpty)"
                }
                if let row = matched[id] {
                    let ranges = try index.matchRanges(of: row, for: Query(typed))["t"] ?? []
                    if ranges != expected {
                        return
                            "\(typed.debugDescription) ranges in \(text.debugDescription): Sift \(ranges), ICU \(expected)"
                    }
                }
            }
            if let problem = try compareOperators(typed, index: index, reference: reference, folded: &folded) {
                return problem
            }
            if let problem = try compareFuzzy(typed, index: index, reference: reference) { return problem }
            for mode in [MatchMode.prefix, .words] {
                var members: Set<RecordHandle>? = nil
                for order in ResultOrder.allCases {
                    let other = try index.search(Query(typed, mode: mode, order: order))
                    let rows = Set(other.rows)
                    if let members, members != rows {
                        return "\(typed.debugDescription) in \(mode) mode: \(order) order lists other records"
                    }
                    members = rows
                    // Highlights depend on the row and the query, not the order: once per mode, for
                    // the best-ranked rows.
                    if order == .ranked {
                        for row in other.rows.prefix(4) {
                            _ = try index.highlights(of: row, for: Query(typed, mode: mode))
                        }
                    }
                }
            }
        }
        return nil
    }

    /// The words-mode query `typed`, read with operators, against a brute-force evaluation of its
    /// expression on every record: through `search` and through `matches(_:_:)`.
    private static func compareOperators(
        _ typed: String,
        index: SearchIndex,
        reference: ReferenceSearch,
        folded foldedTexts: inout [RecordHandle: FoldedText]
    ) throws -> String? {
        let query = Query(typed, mode: .words)
        let rows = Set(try index.search(query).rows)
        let expression = QueryExpression(parsing: typed)
        let folder = index.foldings[0].folder
        for handle in index.handles() {
            let text = try index.value(of: "t", for: handle)
            let folded = try foldedTexts[handle] ?? folder.fold(text)
            foldedTexts[handle] = folded
            var expected = true
            for clause in expression.clauses {
                var counted = false
                var any = false
                for term in clause {
                    let matched: Bool
                    if term.isPhrase {
                        if try folder.patternElements(term.text).isEmpty { continue }
                        matched = try reference.contains(term.text, in: text)
                    } else {
                        let patterns = try folder.queryWords(term.text).map { try folder.patternElements(String($0)) }
                            .filter { !$0.isEmpty }
                        if patterns.isEmpty { continue }
                        matched = patterns.allSatisfy { occursAtWordStart($0, in: folded) }
                    }
                    counted = true
                    if matched != term.isNegated { any = true }
                }
                if counted && !any { expected = false }
            }
            let id = try index.id(of: handle)
            if rows.contains(handle) != expected {
                return "\(typed.debugDescription) (words, operators) on \(text.debugDescription): Sift \(!expected), "
                    + "brute force \(expected) (record \(id))"
            }
            if try index.matches(handle, query) != expected {
                return "\(typed.debugDescription) (words, operators): matches(_:_:) disagrees on record \(id)"
            }
        }
        return nil
    }

    /// Fuzzy mode against the subsequence rule on ICU's collation elements, in every order.
    private static func compareFuzzy(
        _ typed: String,
        index: SearchIndex,
        reference: ReferenceSearch
    ) throws -> String? {
        let pattern = try reference.collationElements(of: typed)
        // A query usearch sees no elements in (its pattern's CE table is empty: NUL at quaternary
        // strength, shifted, say) matches every record, in every mode (a defined edge case).
        let everything = try index.foldings[0].folder.patternElements(typed).isEmpty
        var expected: Set<RecordHandle> = []
        for handle in index.handles() {
            if everything {
                expected.insert(handle)
                continue
            }
            let elements = try reference.collationElements(of: try index.value(of: "t", for: handle))
            var i = 0
            for element in elements where i < pattern.count && element == pattern[i] { i += 1 }
            if i == pattern.count { expected.insert(handle) }
        }
        for order in ResultOrder.allCases {
            let query = Query(typed, mode: .fuzzy, order: order)
            let result = try index.search(query)
            let rows = Set(result.rows)
            if rows != expected || rows.count != result.rows.count {
                return
                    "\(typed.debugDescription) in fuzzy mode, \(order) order: Sift \(rows.count) records, expected \(expected.count)"
            }
            for handle in index.handles() where try index.matches(handle, query) != expected.contains(handle) {
                return
                    "\(typed.debugDescription) in fuzzy mode: matches(_:_:) disagrees on record \(try index.id(of: handle))"
            }
            if order == .ranked {
                for row in result.rows.prefix(4) { _ = try index.highlights(of: row, for: query) }
            }
        }
        return nil
    }

    /// Whether `pattern` occurs in a folded text at a word start (start and word-start flags on
    /// its first element, end flag on its last): the words rule. (The operator oracle tests use
    /// it too.)
    static func occursAtWordStart(_ pattern: [Int64], in text: FoldedText) -> Bool {
        let count = pattern.count
        guard count > 0, text.elements.count >= count else { return false }
        let start = FoldFlags.startOK | FoldFlags.wordStart
        for i in 0...(text.elements.count - count) where text.flags[i] & start == start {
            if text.flags[i + count - 1] & FoldFlags.endOK != 0,
                text.elements[i..<(i + count)].elementsEqual(pattern)
            {
                return true
            }
        }
        return false
    }
}
