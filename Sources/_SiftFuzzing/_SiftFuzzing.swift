package import Sift

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
/// with `matches(_:_:)` agreeing and highlights running; with typo tolerance (`TypoTolerance.auto`,
/// `words` and `prefix` modes, literal), the matching records and `matches(_:_:)` must be those
/// where every query word matches exactly (by the index's exact answer for that word) or within
/// its edits: the optimal string alignment distance between its collation elements (ICU's
/// iterator) and the nearest prefix of a record word (from a word start of the folded text to the
/// next; in `prefix` mode the field from its start) is at most 1 for 5–8 elements, 2 for 9 or
/// more; `prefix` mode, ranking and highlights must run without trapping. Then an edit is applied and the check repeats, so that cached,
/// narrowed results are checked against a changed index too.
public enum _SiftFuzzing {
    static let collations: [Collation] = [
        Collation(), Collation(locale: "de"), Collation(locale: "da"), Collation(locale: "es", strength: .secondary),
        Collation(locale: "th"), Collation(alternate: .shifted), Collation(locale: "cs", strength: .tertiary),
        Collation(locale: "ja"), Collation(locale: "sv", strength: .quaternary, alternate: .shifted),
        Collation(locale: "es@collation=traditional"),
    ]

    /// Checks one input; returns a description of the first disagreement, or nil. A quarter of
    /// the inputs run on the scalar kernels (a segment at a time), the others on the CPU's best
    /// (64-byte blocks).
    public static func check(_ data: [UInt8]) -> String? {
        guard data.count >= 2 else { return nil }
        guard data[1] & 6 == 0 else { return checkAtLevel(data) }
        do {
            return try KernelLevel.exclusively {
                KernelLevel.force(.scalar)
                return checkAtLevel(data)
            }
        } catch {
            return "unexpected error: \(error)"
        }
    }

    /// `check(_:)` at the kernel level in force.
    private static func checkAtLevel(_ data: [UInt8]) -> String? {
        let collation = collations[Int(data[0]) % collations.count]
        let text = String(decoding: data[2...], as: UTF8.self)
        let parts = text.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false)
        let recordTexts = parts[0].split(separator: "\n", omittingEmptySubsequences: false).prefix(24).map {
            String($0.prefix(300))
        }
        let query = parts.count > 1 ? String(parts[1].prefix(64)) : ""
        do {
            let index = try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["t"], collation: collation, cacheCapacity: 6)
            )
            // Field results kept as member lists for half the inputs, as bits for the others.
            index.knobs.sparseSlotLimitOverride = (data[0] / 10).isMultiple(of: 2) ? Int.max : 0
            // Texts folded in pieces, and stretches without a space streamed in sub-chunks of a
            // few bytes, for a third of the inputs (edits and highlights fold them so too).
            if (data[0] / 20).isMultiple(of: 3) {
                index.folded.foldings[0].folder.pieceLength = 6
                index.folded.foldings[0].folder.streamedSubChunkBytes = Int(data[0] % 7) + 1
                index.folded.foldings[0].folder.streamedChunk = Int32(data[0] % 5) + 1
            }
            // A dense narrowing base swept (as past 4,096 records) for half the inputs.
            if data[1] & 1 == 0 { index.knobs.fuzzySweepMinimumRecords = 0 }
            try index.insert(
                contentsOf: recordTexts.enumerated().map { Record(id: String($0.offset), fields: ["t": $0.element]) }
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
            let allIgnorable = try index.folded.foldings[0].folder.patternElements(typed).isEmpty
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
            if let problem = try compareTypos(typed, index: index, reference: reference, folded: &folded) {
                return problem
            }
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
    static func compareOperators(
        _ typed: String,
        index: SearchIndex,
        reference: ReferenceSearch,
        folded foldedTexts: inout [RecordHandle: FoldedText]
    ) throws -> String? {
        let query = Query(typed, mode: .words)
        let rows = Set(try index.search(query).rows)
        let expression = QueryExpression(parsing: typed)
        let folder = index.folded.foldings[0].folder
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
        let everything = try index.folded.foldings[0].folder.patternElements(typed).isEmpty
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

    /// Typo tolerance in `words` and `prefix` modes against a brute-force edit distance (see above).
    private static func compareTypos(
        _ typed: String,
        index: SearchIndex,
        reference: ReferenceSearch,
        folded foldedTexts: inout [RecordHandle: FoldedText]
    ) throws -> String? {
        let folder = index.folded.foldings[0].folder
        for mode in [MatchMode.words, .prefix] {
            let pieces = mode == .words ? try folder.queryWords(typed).map(String.init) : [typed]
            var words: [(elements: [Int64], exact: Set<RecordHandle>)] = []
            for piece in pieces where try !folder.patternElements(piece).isEmpty {
                let exact = Set(try index.search(Query(piece, mode: mode, syntax: .literal)).rows)
                words.append((try reference.collationElements(of: piece), exact))
            }
            let query = Query(typed, mode: mode, order: .ranked, syntax: .literal, typos: .auto)
            let result = try index.search(query)
            if words.isEmpty { continue }  // no elements: every record, as without typos
            var expected: Set<RecordHandle> = []
            for handle in index.handles() {
                let text = try index.value(of: "t", for: handle)
                let folded = try foldedTexts[handle] ?? folder.fold(text)
                foldedTexts[handle] = folded
                let elements = try reference.collationElements(of: text)
                guard elements.count == folded.elements.count else {
                    return
                        "\(text.debugDescription): \(elements.count) iterator elements, \(folded.elements.count) folded"
                }
                let starts =
                    mode == .prefix
                    ? [0] : folded.flags.indices.filter { folded.flags[$0] & FoldFlags.wordStart != 0 }
                var matches = true
                for word in words where !word.exact.contains(handle) {
                    let edits = TypoTolerance.auto.edits(forElements: word.elements.count)
                    var best = Int.max
                    for (n, start) in starts.enumerated() where edits > 0 && start <= elements.count {
                        let end = mode == .prefix || n + 1 == starts.count ? elements.count : starts[n + 1]
                        best = min(best, prefixDistance(word.elements, elements[start..<end]))
                    }
                    if best > edits {
                        matches = false
                        break
                    }
                }
                if matches { expected.insert(handle) }
                if try index.matches(handle, query) != matches {
                    return "\(typed.debugDescription) with typos in \(mode) mode: matches(_:_:) disagrees on "
                        + text.debugDescription
                }
            }
            let rows = Set(result.rows)
            if rows != expected || rows.count != result.rows.count {
                return "\(typed.debugDescription) with typos in \(mode) mode: Sift \(rows.count) records, "
                    + "expected \(expected.count)"
            }
            for row in result.rows.prefix(4) { _ = try index.highlights(of: row, for: query) }
        }
        return nil
    }

    /// The optimal string alignment distance (insertions, deletions, substitutions, swaps of
    /// adjacent elements) between `pattern` and the nearest prefix of `word`: the full table.
    static func prefixDistance(_ pattern: [Int64], _ word: ArraySlice<Int64>) -> Int {
        let word = Array(word)
        let m = pattern.count
        let n = word.count
        var d = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: m + 1)
        for i in 0...m { d[i][0] = i }
        for j in 0...n { d[0][j] = j }
        if m > 0 && n > 0 {
            for i in 1...m {
                for j in 1...n {
                    d[i][j] = min(
                        d[i - 1][j] + 1,
                        d[i][j - 1] + 1,
                        d[i - 1][j - 1] + (pattern[i - 1] == word[j - 1] ? 0 : 1)
                    )
                    if i > 1 && j > 1 && pattern[i - 1] == word[j - 2] && pattern[i - 2] == word[j - 1] {
                        d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                    }
                }
            }
        }
        return d[m].min()!
    }

    /// Whether `pattern` occurs in a folded text at a word start (start and word-start flags on
    /// its first element, end flag on its last): the words rule. (The operator oracle tests use
    /// it too.)
    package static func occursAtWordStart(_ pattern: [Int64], in text: FoldedText) -> Bool {
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
