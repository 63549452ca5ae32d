/// A `QueryExpression` folded under one collation: an AND of clauses, each an OR of terms.

internal import SiftStorage

struct FoldedExpression {
    /// One term: field patterns that must all match (a word term's words, a phrase's one pattern),
    /// under one anchor.
    struct Term {
        /// The term's patterns with their texts; empty when the term occurs nowhere.
        var patterns: [(bytes: [UInt8], text: String)]
        /// `.wordStart` for a word term, `.anywhere` for a phrase.
        var anchor: Anchor
        /// Whether the term matches the records its patterns do not.
        var isNegated: Bool
        /// Some element of the term never occurs in the index: its patterns match no record.
        var occursNowhere: Bool

        /// The term's text, kept only when it occurs nowhere (its patterns are then empty): what
        /// tells two such terms apart in `key`.
        var nowhereText = ""

        /// Whether typo tolerance (`Query.typos`) applies to the term: a positive word term.
        /// Phrases and negated terms match exactly.
        var toleratesTypos: Bool { !isNegated && anchor == .wordStart }

        /// What makes two terms the same term after folding: their patterns' codes (and texts, at
        /// identical strength, where matches are also checked against the text), anchor and
        /// negation. Terms with equal keys match the same records with the same typos.
        func key(identical: Bool) -> TermKey {
            TermKey(
                patterns: patterns.map { PatternKey(bytes: $0.bytes, text: identical ? $0.text : nil) },
                anchor: anchor,
                isNegated: isNegated,
                nowhereText: occursNowhere ? nowhereText : nil
            )
        }
    }

    /// A folded pattern as merging compares it: its codes, and its text only at identical strength.
    struct PatternKey: Hashable {
        var bytes: [UInt8]
        var text: String?
    }

    /// A term as merging compares it (see `Term.key(identical:)`).
    struct TermKey: Hashable {
        var patterns: [PatternKey]
        var anchor: Anchor
        var isNegated: Bool
        var nowhereText: String?
    }

    /// Whether a tolerance gives some pattern of a positive word term an edit: only then does the
    /// expression match (and rank) otherwise than without it.
    func hasTypoPatterns(_ tolerance: TypoTolerance) -> Bool {
        tolerance != .off
            && clauses.contains { clause in
                clause.contains { term in
                    term.toleratesTypos && !term.occursNowhere
                        && term.patterns.contains { SearchIndex.typoEdits($0.bytes, tolerance) > 0 }
                }
            }
    }

    /// Non-empty clauses of non-empty terms (terms without collation elements are left out), each
    /// term once per clause and each clause (as a set of terms) once: a repeated term or clause
    /// is evaluated once (`a | a | a` costs one term).
    var clauses: [[Term]]
    /// How many times each clause was written: a record's typos count a repeated clause's typos
    /// that many times, as they would without merging. All 1 unless a clause repeats.
    var clauseWeights: [Int]

    /// An expression of `clauses`, each written once.
    init(clauses: [[Term]]) {
        self.clauses = clauses
        self.clauseWeights = Array(repeating: 1, count: clauses.count)
    }

    /// An expression of `clauses`, written `weights` times each.
    init(clauses: [[Term]], weights: [Int]) {
        precondition(clauses.count == weights.count, "a weight per clause")
        self.clauses = clauses
        self.clauseWeights = weights
    }

    /// The distinct terms of the expression (what `QueryLimits.maximumTerms` counts).
    ///
    /// - Complexity: O(*t*) for *t* terms.
    func termCount(identical: Bool) -> Int {
        var keys = Set<TermKey>()
        for clause in clauses { for term in clause { keys.insert(term.key(identical: identical)) } }
        return keys.count
    }

    /// The distinct patterns of positive word terms that a tolerance gives an edit (what
    /// `QueryLimits.maximumTypoWords` counts).
    ///
    /// - Complexity: O(*p*) for *p* patterns.
    func typoWordCount(_ tolerance: TypoTolerance) -> Int {
        guard tolerance != .off else { return 0 }
        var words = Set<[UInt8]>()
        for clause in clauses {
            for term in clause where term.toleratesTypos && !term.occursNowhere {
                for pattern in term.patterns where SearchIndex.typoEdits(pattern.bytes, tolerance) > 0 {
                    words.insert(pattern.bytes)
                }
            }
        }
        return words.count
    }
}

extension FoldedQuery {
    /// The pattern `.ranked` order groups by, and the mode whose ranking groups apply: the first
    /// pattern in `mode`; for an expression, the first positive term's first pattern, ranked as
    /// in `.words` mode for a word and as in `.contains` mode for a phrase. Nil when nothing ranks
    /// (no pattern, or only negated terms).
    func rankingPattern(mode: MatchMode) -> (pattern: (bytes: [UInt8], text: String), mode: MatchMode)? {
        switch self {
        case .everything, .nothing: return nil
        case .patterns(let patterns): return patterns.first.map { ($0, mode) }
        case .expression(let expression):
            for clause in expression.clauses {
                for term in clause where !term.isNegated && !term.occursNowhere {
                    return (term.patterns[0], term.anchor == .anywhere ? .contains : .words)
                }
            }
            return nil
        }
    }
}

extension FoldedQuery {
    /// The patterns the ranking rules read (see `RankingRule`): a literal query's first pattern
    /// (in the query's mode); an expression's first clause that has a positive term, each of its
    /// positive terms' first pattern (`.contains` for a phrase, `.words` for a word), so that a
    /// record ranks by its best alternative. `whole` says whether a field equal to the pattern
    /// is a whole-field match: for a one-pattern query or alternative of a one-clause expression.
    /// Empty where nothing ranks.
    func rankingAlternatives(mode: MatchMode) -> [RankingAlternative] {
        switch self {
        case .everything, .nothing: return []
        case .patterns(let patterns):
            return patterns.first.map { [RankingAlternative(pattern: $0, mode: mode, whole: patterns.count == 1)] }
                ?? []
        case .expression(let expression):
            for clause in expression.clauses {
                let terms = clause.filter { !$0.isNegated && !$0.occursNowhere }
                guard !terms.isEmpty else { continue }
                return terms.map { term in
                    RankingAlternative(
                        pattern: term.patterns[0],
                        mode: term.anchor == .anywhere ? .contains : .words,
                        whole: expression.clauses.count == 1 && term.patterns.count == 1
                    )
                }
            }
            return []
        }
    }
}

/// One pattern the ranking rules read (`FoldedQuery.rankingAlternatives(mode:)`).
struct RankingAlternative {
    var pattern: (bytes: [UInt8], text: String)
    /// `.contains`, `.words` or `.prefix`: which ways it can match (field start, word start,
    /// inside a word).
    var mode: MatchMode
    /// Whether a field as long as the pattern at its start is a whole-field match.
    var whole: Bool
    /// Whether only a whole-field match counts: a words query's whole text, so that a field equal
    /// to the query (`libconfig-simple-perl`) is a whole-field match.
    var wholeOnly = false
}

extension FoldedQuery {
    /// Whether the query is one pattern, all of it positive: only then can a field equal the
    /// query (the whole-field ranking group).
    var isOnePattern: Bool {
        switch self {
        case .everything, .nothing: return false
        case .patterns(let patterns): return patterns.count == 1
        case .expression(let expression):
            return expression.clauses.count == 1 && expression.clauses[0].count == 1
                && !expression.clauses[0][0].isNegated && expression.clauses[0][0].patterns.count == 1
        }
    }
}

extension SearchIndex {
    // MARK: - Folding

    /// A words-mode query read with operators, folded; nil when its text uses no operator (it
    /// then reads exactly as a literal words query). Repeats are merged: a term written again in
    /// a clause is left out (an OR of equal terms is the term), and a clause written again (the
    /// same set of terms) is kept once with a weight (an AND of equal clauses is the clause; its
    /// typos still count as often as it was written).
    ///
    /// - Complexity: O(*n*) in the length of the text, plus ICU's word breaking and folding;
    ///   polls `isCancelled` every 64 terms.
    func foldOperators(
        _ text: String,
        folding index: Int,
        _ isCancelled: () -> Bool = { false }
    ) throws
        -> FoldedQuery?
    {
        let expression = QueryExpression(parsing: text)
        guard expression.usesOperators else { return nil }
        let identical = folded.foldings[index].collation.strength == .identical
        var clauses: [[FoldedExpression.Term]] = []
        var weights: [Int] = []
        var clauseOfKeys: [Set<FoldedExpression.TermKey>: Int] = [:]
        var folded = 0
        for clause in expression.clauses {
            var terms: [FoldedExpression.Term] = []
            var keys = Set<FoldedExpression.TermKey>()
            for term in clause {
                folded += 1
                if folded & 63 == 0, isCancelled() { throw CancellationError() }
                guard let term = try foldTerm(term, folding: index) else { continue }
                if keys.insert(term.key(identical: identical)).inserted { terms.append(term) }
            }
            if terms.isEmpty { continue }
            if let earlier = clauseOfKeys[keys] {
                weights[earlier] += 1
            } else {
                clauseOfKeys[keys] = clauses.count
                clauses.append(terms)
                weights.append(1)
            }
        }
        return clauses.isEmpty ? .everything : .expression(FoldedExpression(clauses: clauses, weights: weights))
    }

    /// One term's patterns; nil for a term without collation elements.
    private func foldTerm(_ term: QueryExpression.Term, folding index: Int) throws(SiftError) -> FoldedExpression.Term?
    {
        let folding = folded.foldings[index]
        let pieces = term.isPhrase ? [term.text] : try folding.folder.queryWords(term.text).map(String.init)
        let identical = folding.collation.strength == .identical
        var patterns: [(bytes: [UInt8], text: String)] = []
        var occursNowhere = false
        // The elements of the term's words, for a term that occurs nowhere: what tells it apart.
        var nowhereText = ""
        var nowhereWords = Set<String>()
        for piece in pieces {
            let elements = try folding.folder.patternElements(piece)
            if elements.isEmpty { continue }
            let word = Self.elementsText(elements, identical ? piece : nil)
            if nowhereWords.insert(word).inserted { nowhereText += word }
            guard let bytes = folding.codeBook.encode(elements) else {
                occursNowhere = true
                continue
            }
            // A word repeated in the term after folding (its codes; at identical strength its
            // text too) is one pattern.
            if !patterns.contains(where: { $0.bytes == bytes && (!identical || $0.text == piece) }) {
                patterns.append((bytes, piece))
            }
        }
        if occursNowhere { patterns = [] } else if patterns.isEmpty { return nil }
        return FoldedExpression.Term(
            patterns: patterns,
            anchor: term.isPhrase ? .anywhere : .wordStart,
            isNegated: term.isNegated,
            occursNowhere: occursNowhere,
            nowhereText: occursNowhere ? nowhereText : ""
        )
    }

    /// A word's collation elements (and its text, at identical strength) as text: the identity
    /// of a word that occurs nowhere (it has no codes), for merging and counting terms.
    static func elementsText(_ elements: [Int64], _ text: String?) -> String {
        elements.map { String($0, radix: 16) }.joined(separator: ",") + (text.map { "=" + $0 } ?? "") + ";"
    }

    // MARK: - Evaluation

    /// The records of a scope's fields an expression matches (before the scope's category
    /// filter). Every term's field result comes from `fieldMatch`, so each is cached, narrowed on
    /// the next keystroke and served on backspace like a pattern of a literal query. With a
    /// `tolerance`, a pattern of a positive word term also matches where a record word's prefix is
    /// within its edits (`TypoTolerance`), as a word of a literal `.words` query does. A pattern
    /// that several terms share is looked up once (`SharedPatternMatches`); `isCancelled` is
    /// polled before every term, so that a query of many terms answered from the cache still
    /// stops when superseded.
    ///
    /// - Complexity: one `fieldMatch` per distinct term pattern and field (two for a pattern with
    ///   edits), plus O(*n* / 64) per term for the bitset operations over *n* slots.
    func expressionMatches(
        _ plan: ScopePlan,
        _ expression: FoldedExpression,
        tolerance: TypoTolerance = .off,
        _ run: inout QueryRun
    ) throws -> Bitset {
        var shared = SharedPatternMatches(expression, identical: isIdentical(plan), tolerance: tolerance)
        var result = records.live
        for clause in expression.clauses {
            var any = Bitset()
            for term in clause {
                try run.checkCancellation()
                any.formUnion(try termHolds(plan, term, tolerance: tolerance, &run, &shared))
            }
            result.formIntersection(any)
        }
        return result
    }

    /// Whether the plan's folding compares at identical strength (where a pattern's text counts).
    func isIdentical(_ plan: ScopePlan) -> Bool { folded.foldings[plan.folding].collation.strength == .identical }

    /// The records where a term holds: its patterns all match some searched field (a positive
    /// word term's within their edits, with a tolerance), or for a negated term, not.
    ///
    /// - Complexity: one `fieldMatch` per pattern and field (two for a pattern with edits) not
    ///   in `shared`, plus O(*n* / 64) for the bitset operations over *n* slots.
    func termHolds(
        _ plan: ScopePlan,
        _ term: FoldedExpression.Term,
        tolerance: TypoTolerance,
        _ run: inout QueryRun,
        _ shared: inout SharedPatternMatches
    ) throws -> Bitset {
        var matched = Bitset()
        if !term.occursNowhere {
            for (position, pattern) in term.patterns.enumerated() {
                let edits = term.toleratesTypos ? Self.typoEdits(pattern.bytes, tolerance) : 0
                let sharedKey = shared.key(pattern, of: term)
                var inSomeField: Bitset
                if let known = shared.take(sharedKey) {
                    inSomeField = known
                } else {
                    inSomeField = Bitset()
                    for field in plan.fields {
                        inSomeField.formUnion(
                            try fieldMatch(key(plan, field, term.anchor, pattern), &run).matched
                        )
                    }
                    if edits > 0 {
                        for field in plan.fields {
                            let typoKey = typoKey(plan, field, .wordStart, pattern, edits: edits)
                            inSomeField.formUnion(try fieldMatch(typoKey, &run).matched)
                        }
                    }
                    shared.keep(inSomeField, for: sharedKey)
                }
                if position == 0 { matched = inSomeField } else { matched.formIntersection(inSomeField) }
            }
        }
        if term.isNegated {
            var rest = records.live
            rest.formSubtraction(matched)
            matched = rest
        }
        return matched
    }

    /// The records of `matches` (an expression's matches within `tolerance`) by the number of
    /// typos they match it with: element *k* holds those with *k*. A term's typos are its words'
    /// (as a literal `.words` query counts them, `typoCounts`; a phrase or a negated term has
    /// none), a clause's are the fewest of the terms that hold, and the expression's are the sum
    /// of its clauses'. Element 0 is the exact matches.
    ///
    /// - Complexity: `typoCounts` per positive word term, plus O(*n* / 64) per term and count for
    ///   the bitset operations over *n* slots.
    func expressionTypoCounts(
        _ matches: Bitset,
        plan: ScopePlan,
        expression: FoldedExpression,
        tolerance: TypoTolerance,
        _ run: inout QueryRun
    ) throws -> [Bitset] {
        var totals = [matches]
        var shared = SharedPatternMatches(expression, identical: isIdentical(plan), tolerance: tolerance)
        for (clause, weight) in zip(expression.clauses, expression.clauseWeights) {
            // Per term, the records where it holds with at most k typos, k = 0, 1, ...
            var cumulative: [[Bitset]] = []
            for term in clause {
                try run.checkCancellation()
                var holds = try termHolds(plan, term, tolerance: tolerance, &run, &shared)
                holds.formIntersection(matches)
                let counts =
                    term.toleratesTypos && !term.occursNowhere
                    ? try typoCounts(
                        holds,
                        plan: plan,
                        patterns: term.patterns,
                        mode: .words,
                        tolerance: tolerance,
                        &run
                    ) : [holds]
                var running = Bitset()
                cumulative.append(
                    counts.map { members in
                        running.formUnion(members)
                        return running
                    }
                )
            }
            // The clause's count: the fewest over its terms.
            let largest = cumulative.map(\.count).max() ?? 0
            var exactly: [Bitset] = []
            var below = Bitset()
            for k in 0..<largest {
                var atMost = Bitset()
                for sets in cumulative { atMost.formUnion(sets[min(k, sets.count - 1)]) }
                var part = atMost
                part.formSubtraction(below)
                exactly.append(part)
                below = atMost
            }
            // A clause written `weight` times counts its typos that many times.
            var next = [Bitset](repeating: Bitset(), count: totals.count + max(0, largest - 1) * weight)
            for (total, members) in totals.enumerated() where members.wordCount > 0 {
                for (k, part) in exactly.enumerated() where part.wordCount > 0 {
                    var both = members
                    both.formIntersection(part)
                    next[total + k * weight].formUnion(both)
                }
            }
            totals = next
        }
        return totals
    }

    /// The number of typos one slot matches an expression with (see `expressionTypoCounts`), or
    /// nil when it does not match it within `tolerance`.
    ///
    /// - Complexity: O(*s*) per term pattern in the size *s* of the slot's searched fields.
    func expressionTypoCount(
        _ plan: ScopePlan,
        _ expression: FoldedExpression,
        slot: Int32,
        tolerance: TypoTolerance
    ) -> Int? {
        var total = 0
        for (clause, weight) in zip(expression.clauses, expression.clauseWeights) {
            var fewest: Int? = nil
            for term in clause {
                let count: Int?
                if term.isNegated || !term.toleratesTypos || term.occursNowhere {
                    count = termMatches(plan, term, slot: slot) != term.isNegated ? 0 : nil
                } else {
                    count = typoCount(
                        slot: slot,
                        plan: plan,
                        patterns: term.patterns,
                        mode: .words,
                        tolerance: tolerance
                    )
                }
                if let count { fewest = min(fewest ?? count, count) }
            }
            guard let fewest else { return nil }
            total += fewest * weight
        }
        return total
    }

    /// Whether one slot's searched fields match an expression: `expressionMatches` for one record.
    ///
    /// - Complexity: O(*s*) per term pattern in the size *s* of the slot's searched fields.
    func expressionMatches(
        _ plan: ScopePlan,
        _ expression: FoldedExpression,
        slot: Int32,
        tolerance: TypoTolerance = .off
    ) -> Bool {
        expression.clauses.allSatisfy { clause in
            clause.contains { term in termMatches(plan, term, slot: slot, tolerance: tolerance) != term.isNegated }
        }
    }

    /// Whether a term's patterns (not counting its negation) all match some searched field of a
    /// slot, exactly or (a positive word term's, with a tolerance) within their edits.
    func termMatches(
        _ plan: ScopePlan,
        _ term: FoldedExpression.Term,
        slot: Int32,
        tolerance: TypoTolerance = .off
    ) -> Bool {
        !term.occursNowhere
            && term.patterns.allSatisfy { pattern in
                if plan.fields.contains(where: { evaluate(key(plan, $0, term.anchor, pattern), slot: slot).matched }) {
                    return true
                }
                let edits = term.toleratesTypos ? Self.typoEdits(pattern.bytes, tolerance) : 0
                return edits > 0
                    && plan.fields.contains { field in
                        evaluate(typoKey(plan, field, .wordStart, pattern, edits: edits), slot: slot).matched
                    }
            }
    }

    /// The patterns whose matches a record's highlights show, each with its anchor: every pattern
    /// of a literal query; of an expression, the patterns of the positive terms that match the
    /// record, within `tolerance` (a negated term, or a word of a term that does not match as a
    /// whole, shows nothing).
    ///
    /// `isCancelled` is polled before each term.
    ///
    /// - Complexity: O(*s*) per distinct term pattern in the size *s* of the slot's searched fields.
    func highlightPatterns(
        _ folded: FoldedQuery,
        mode: MatchMode,
        plan: ScopePlan,
        slot: Int32,
        tolerance: TypoTolerance = .off,
        _ isCancelled: () -> Bool = { false }
    ) throws -> [(pattern: (bytes: [UInt8], text: String), anchor: Anchor)] {
        switch folded {
        case .everything, .nothing: return []
        case .patterns(let patterns): return patterns.map { ($0, Self.anchor(for: mode)) }
        case .expression(let expression):
            // Each pattern checked against the record once, and shown once, however many terms
            // hold it.
            var holds: [SharedPatternMatches.Key: Bool] = [:]
            var shown = Set<SharedPatternMatches.Key>()
            let shared = SharedPatternMatches(
                FoldedExpression(clauses: []),
                identical: isIdentical(plan),
                tolerance: tolerance
            )
            var result: [(pattern: (bytes: [UInt8], text: String), anchor: Anchor)] = []
            for clause in expression.clauses {
                for term in clause where !term.isNegated && !term.occursNowhere {
                    if isCancelled() { throw CancellationError() }
                    let matched = term.patterns.allSatisfy { pattern in
                        let key = shared.key(pattern, of: term)
                        if let known = holds[key] { return known }
                        let one = FoldedExpression.Term(
                            patterns: [pattern],
                            anchor: term.anchor,
                            isNegated: false,
                            occursNowhere: false
                        )
                        let matches = termMatches(plan, one, slot: slot, tolerance: tolerance)
                        holds[key] = matches
                        return matches
                    }
                    guard matched else { continue }
                    for pattern in term.patterns where shown.insert(shared.key(pattern, of: term)).inserted {
                        result.append((pattern, term.anchor))
                    }
                }
            }
            return result
        }
    }
}
