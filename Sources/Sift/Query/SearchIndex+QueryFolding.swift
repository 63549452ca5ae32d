internal import CSiftKernels

extension SearchIndex {
    // MARK: - Folding the query

    /// The plan of the query's scope.
    ///
    /// - Throws: `SiftError.unknownScope`.
    /// - Complexity: O(*p*) for *p* scopes.
    func scopePlan(of query: Query) throws(SiftError) -> ScopePlan {
        guard let plan = folded.scopePlans.first(where: { $0.scope.name == query.scope }) else {
            throw .unknownScope(query.scope)
        }
        return plan
    }

    /// Refuses a query whose text is longer than `queryLimits.maximumLength` UTF-8 bytes.
    ///
    /// - Throws: `SiftError.queryTooLarge`.
    /// - Complexity: O(1) for a native string.
    func checkLength(_ query: Query) throws(SiftError) {
        let length = query.text.utf8.count
        guard length <= queryLimits.maximumLength else {
            throw .queryTooLarge(limit: QueryLimits.lengthName, size: length, maximum: queryLimits.maximumLength)
        }
    }

    /// `query`'s text folded under one folding, in its mode, syntax and typo tolerance (see
    /// `foldQuery(_:mode:syntax:typos:folding:)`), refused past `queryLimits`: its length is
    /// checked before folding, its distinct terms and words that tolerate typos after.
    ///
    /// - Throws: `SiftError.queryTooLarge`, an ICU failure, or `CancellationError`.
    func foldQuery(_ query: Query, folding index: Int, _ isCancelled: () -> Bool = { false }) throws -> FoldedQuery {
        try checkLength(query)
        let codeCount = folded.foldings[index].codeBook.count
        if let memo = caches.foldedQueryMemo,
            memo.answers(query, folding: index, revision: revision, codeCount: codeCount, limits: queryLimits)
        {
            return memo.folded
        }
        let (folded, terms, typoWords) = try foldQueryCountingTerms(
            query.text,
            mode: query.mode,
            syntax: query.syntax,
            typos: query.typos,
            folding: index,
            isCancelled
        )
        let limits = queryLimits
        guard terms <= limits.maximumTerms else {
            throw SiftError.queryTooLarge(limit: QueryLimits.termsName, size: terms, maximum: limits.maximumTerms)
        }
        guard typoWords <= limits.maximumTypoWords else {
            throw SiftError.queryTooLarge(
                limit: QueryLimits.typoWordsName,
                size: typoWords,
                maximum: limits.maximumTypoWords
            )
        }
        caches.foldedQueryMemo = FoldedQueryMemo(
            text: query.text,
            mode: query.mode,
            syntax: query.syntax,
            typos: query.typos,
            folding: index,
            revision: revision,
            codeCount: codeCount,
            limits: limits,
            folded: folded
        )
        return folded
    }

    /// The query folded under one folding: its patterns (one per query word in `.words` mode),
    /// `.nothing` when some element never occurs in the index, `.everything` without elements.
    /// With typo tolerance (`.words` and `.prefix` modes), a pattern long enough for an edit may
    /// hold elements the index has never seen (an edit can replace or drop them): they take the
    /// code after the code book's last (`CodeBook.encodeForTypos`), which no record holds.
    /// A word repeated after folding (its codes equal; at identical strength its text too) is
    /// one pattern.
    func foldQuery(
        _ text: String,
        mode: MatchMode,
        syntax: QuerySyntax = .literal,
        typos: TypoTolerance = .off,
        folding index: Int
    ) throws -> FoldedQuery {
        try foldQueryCountingTerms(text, mode: mode, syntax: syntax, typos: typos, folding: index).folded
    }

    /// `foldQuery(_:mode:syntax:typos:folding:)`, with the number of distinct terms the query
    /// searches for (what `QueryLimits.maximumTerms` counts): its distinct words in `.words`
    /// mode (those that occur nowhere included), its distinct terms with operators, otherwise 1
    /// (0 for a text without collation elements); and the number of those words that tolerate
    /// typos (what `QueryLimits.maximumTypoWords` counts). Words are told apart by their
    /// collation elements, not their codes: a word encoded for typos
    /// (`CodeBook.encodeForTypos`) gives every element no record holds the same code, so two
    /// distinct words (`search`, `searhc` in an index without `s`) can share a pattern. They are
    /// evaluated once but counted as the two words they are, so that what a query counts does
    /// not depend on the index's contents or on its typo tolerance. Polls `isCancelled` every
    /// 64 words.
    ///
    /// - Complexity: O(*n*) in the length of the text, plus ICU's word breaking and folding.
    func foldQueryCountingTerms(
        _ text: String,
        mode: MatchMode,
        syntax: QuerySyntax = .literal,
        typos: TypoTolerance = .off,
        folding index: Int,
        _ isCancelled: () -> Bool = { false }
    ) throws -> (folded: FoldedQuery, terms: Int, typoWords: Int) {
        let identical = folded.foldings[index].collation.strength == .identical
        if mode == .words, syntax == .operators, let expression = try foldOperators(text, folding: index, isCancelled) {
            if case .expression(let folded) = expression {
                return (expression, folded.termCount(identical: identical), folded.typoWordCount(typos))
            }
            return (expression, 0, 0)
        }
        let folding = folded.foldings[index]
        let pieces: [String] = mode == .words ? try folding.folder.queryWords(text).map(String.init) : [text]
        var patterns: [(bytes: [UInt8], text: String)] = []
        var seen = Set<FoldedExpression.PatternKey>()
        // Words with an element no record holds, by their elements: the query matches nothing,
        // but they count as terms all the same.
        var nowhere = Set<String>()
        // Words encoded for typos, by their elements: their codes are lossy, so they are counted
        // here rather than by their patterns.
        var encodedForTypos = Set<String>()
        // Patterns of words the code book encodes exactly (codes and elements correspond one to
        // one), and how many of those tolerate typos.
        var exactPatterns = 0
        var exactTypoPatterns = 0
        for (position, piece) in pieces.enumerated() {
            if position & 63 == 63, isCancelled() { throw CancellationError() }
            let elements = try folding.folder.patternElements(piece)
            if elements.isEmpty { continue }
            let forgiving = Self.typoAnchor(for: mode) != nil && typos.edits(forElements: elements.count) > 0
            let bytes: [UInt8]
            let isExact: Bool
            if let exact = folding.codeBook.encode(elements) {
                (bytes, isExact) = (exact, true)
            } else if forgiving {
                isExact = false
                bytes = folding.codeBook.encodeForTypos(elements)
                encodedForTypos.insert(Self.elementsText(elements, identical ? piece : nil))
            } else {
                nowhere.insert(Self.elementsText(elements, identical ? piece : nil))
                continue
            }
            if seen.insert(.init(bytes: bytes, text: identical ? piece : nil)).inserted {
                patterns.append((bytes, piece))
                if isExact {
                    exactPatterns += 1
                    if forgiving { exactTypoPatterns += 1 }
                }
            }
        }
        let terms = exactPatterns + encodedForTypos.count + nowhere.count
        if !nowhere.isEmpty { return (.nothing, terms, 0) }
        let typoWords = exactTypoPatterns + encodedForTypos.count
        return (patterns.isEmpty ? .everything : .patterns(patterns), terms, typoWords)
    }

    static func anchor(for mode: MatchMode) -> Anchor {
        switch mode {
        case .contains: return .anywhere
        case .prefix: return .fieldStart
        case .words: return .wordStart
        case .fuzzy: return .fuzzy
        }
    }

    func key(_ plan: ScopePlan, _ field: Int, _ anchor: Anchor, _ pattern: (bytes: [UInt8], text: String)) -> MatchKey {
        // A fuzzy match is not contiguous: no canonical-equality check (see `MatchMode.fuzzy`).
        let identical = folded.foldings[plan.folding].collation.strength == .identical && anchor != .fuzzy
        return MatchKey(
            folding: plan.folding,
            field: field,
            anchor: anchor,
            pattern: pattern.bytes,
            identicalText: identical ? pattern.text : nil
        )
    }
}
