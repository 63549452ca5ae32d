/// How a query's text must occur in a field.
public enum MatchMode: String, Hashable, Sendable, CaseIterable {
    /// Anywhere in the field: exactly the matches of ICU string search (usearch) with the collator.
    case contains
    /// At the start of the field (its first collation element).
    case prefix
    /// Every word of the query matches the start of some word of the record, in any order and in
    /// any searched field. Words come from ICU's word break iterator, so Thai and Japanese work.
    /// With `QuerySyntax.operators` (the default), `-word` excludes, `"two words"` must occur
    /// contiguously and `a | b` matches either.
    case words
    /// The query's collation elements occur in the field in order, not necessarily adjacent (fzf's
    /// subsequence rule, on the elements `contains` compares). `.ranked` results are ordered by a
    /// score (see <doc:HowMatchingWorks>), ties by field order, then original order.
    case fuzzy
}

/// The order of a query's results.
public enum ResultOrder: String, Hashable, Sendable, CaseIterable {
    /// The records' order in the original list.
    case original
    /// Collation order of the index's sort field (ICU sort keys), ties by id.
    case sorted
    /// Best matches first, by the index's ranking rules (`IndexConfiguration.rankingRules`, see `RankingRule`), in
    /// every mode but `.fuzzy`; by default:
    /// 1. **typo**: with typo tolerance (`Query.typos`), exact matches first, then by number of
    ///    typos, fewest first;
    /// 2. **exactness**: how the query (its first word, in `.words` mode; each record's best
    ///    alternative of `a | b`) matches a searched field: the whole field (a one-word query, or
    ///    a words query's whole text, equal to the field), then at the field's start, then at a
    ///    word start (`.contains` mode), then inside a word; a typo match counts where its word
    ///    starts;
    /// 3. **attribute**: the first searched field (in `IndexConfiguration.searchFields` order)
    ///    where it matches that way, so a match in the name outranks the same kind of match in a
    ///    summary;
    /// 4. **length**: the shorter deciding field (the field of rule 3), in collation elements as
    ///    the index stores it folded (the elements `.contains` compares: the collator's at its
    ///    strength, ignorable ones dropped), counted up to 255 (longer fields tie);
    /// 5. a **custom** rule (`IndexConfiguration.rankingTieBreak`), if the configuration names
    ///    one: numeric or text, ascending or descending, records without a value last (a list
    ///    may put it before length);
    /// 6. original order.
    ///
    /// Searching `vim` in a package list ranks the package `vim` (whole name), then `vim-gtk`
    /// (name starts with it), then `cream` (summary starts with "VIM"), then `neovim`.
    ///
    /// In `.fuzzy` mode: by score, best first, ties by the field with the best score (earlier
    /// search field first), then that field's length (rule 4), the custom rule, then original
    /// order.
    case ranked
}

/// What to search for: text, scope, mode and order.
public struct Query: Hashable, Sendable {
    /// The search text as typed.
    public var text: String
    /// Name of the scope (see `IndexConfiguration.scopes`).
    public var scope: String
    /// How the text must occur in a field; `.contains` by default.
    public var mode: MatchMode
    /// The order of the results; `.original` by default.
    public var order: ResultOrder
    /// How `.words` mode reads `-`, `"…"` and `|`: `.operators` (the default) or `.literal`.
    /// Other modes read every query literally.
    public var syntax: QuerySyntax
    /// How many typos `.words` and `.prefix` queries forgive; `.off` by default. Other modes
    /// ignore it. In `.words` mode each query word has its own budget (by its length); with
    /// operators (`-`, `"…"`, `|`) the words of positive word terms do, and phrases and negated
    /// terms match exactly. In `.prefix` mode the whole query is one word, compared with the start
    /// of the field, and its length sets the budget.
    public var typos: TypoTolerance

    /// A query of `text` in a scope ("All" by default).
    ///
    /// ```swift
    /// let query = Query("san jo", scope: "Name", mode: .words, order: .ranked)
    /// let either = Query("vim | emacs -neovim", mode: .words)   // operators: the default syntax
    /// let plain = Query("vim | emacs", mode: .words, syntax: .literal)   // both words must match
    /// let typo = Query("ripgrpe", mode: .words, typos: .auto)   // finds "ripgrep"
    /// ```
    public init(
        _ text: String,
        scope: String = "All",
        mode: MatchMode = .contains,
        order: ResultOrder = .original,
        syntax: QuerySyntax = .operators,
        typos: TypoTolerance = .off
    ) {
        self.text = text
        self.scope = scope
        self.mode = mode
        self.order = order
        self.syntax = syntax
        self.typos = typos
    }
}

/// The answer to a query.
public struct SearchResult: Sendable {
    /// What kind of answer this is.
    public enum State: Hashable, Sendable {
        /// The query text is empty: `rows` is every record in the scope.
        case all
        /// The query is shorter than the scope's minimum length: no search ran and `rows` is empty.
        case tooShort(needed: Int)
        /// `rows` are the records that match.
        case matches
    }

    /// The number of records a scope matches for the same text and mode (a scope-button badge).
    public struct ScopeCount: Hashable, Sendable {
        /// The scope's name.
        public var scope: String
        /// nil when the text is too short for that scope.
        public var count: Int?
    }

    /// The query this answers.
    public var query: Query
    /// Whether `rows` are matches, every record of the scope, or nothing (too short).
    public var state: State
    /// Matching records in result order.
    ///
    /// - Complexity: O(1) when the search made its handles; a broad result in original or ranked
    ///   order may keep its rows as bitsets until they are read (`ResultRows`): the first read
    ///   makes them, O(*m*), and later reads share them.
    public var rows: [RecordHandle] {
        get { resultRows.handles }
        set { resultRows = ResultRows(newValue) }
    }
    /// The rows, maybe not made yet.
    var resultRows: ResultRows
    /// The number of matching records in `rows`.
    ///
    /// - Complexity: O(1).
    public var rowCount: Int { resultRows.count }

    /// The rows numbered `numbers` (from 0, in result order): a page of the result, read without
    /// making every row's handle.
    ///
    /// - Precondition: the numbers are in `0..<rowCount`.
    /// - Complexity: O(*k* log *n*) for *k* rows (O(*k*) once `rows` was read), after a first
    ///   read of rows kept as bitsets that makes their rank directories, O(*n* / 64) per group.
    public func rows(numbered numbers: Range<Int>) -> [RecordHandle] {
        precondition(numbers.lowerBound >= 0 && numbers.upperBound <= rowCount, "rows \(numbers) of \(rowCount)")
        return numbers.map { resultRows.handle(at: $0) }
    }
    /// Match counts for every scope of the index, in scope order.
    public var scopeCounts: [ScopeCount]
    /// The index revision the result was computed at.
    public var revision: UInt64
    /// How the work was done, for tests and tools.
    public var statistics: QueryStatistics
}

/// How a query was answered: full scans, narrowed scans and cache hits, per (field, pattern).
public struct QueryStatistics: Hashable, Sendable {
    /// Field patterns answered by scanning every record of the field.
    public var fullScans = 0
    /// Field patterns answered by scanning only the candidates of a shorter, cached pattern.
    public var narrowedScans = 0
    /// Field patterns answered straight from the cache (e.g. after backspace).
    public var cacheHits = 0
    /// One-element field patterns answered from the index's postings (see
    /// <doc:HowMatchingWorks>): no scan at all.
    public var postingsHits = 0
    /// Records examined by narrowed scans.
    public var candidatesExamined = 0

    /// No work yet: every count is 0.
    public init() {}
}
