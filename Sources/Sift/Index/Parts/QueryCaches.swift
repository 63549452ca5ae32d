/// What a `SearchIndex` keeps from one query for the next: field results, whole-field matches,
/// ordered answers, fuzzy scores and the last folded query. Every edit keeps them exact or drops
/// them; `discardCachedResults()` empties them.

internal import SiftStorage

struct QueryCaches {
    /// Field results by exact key, and the narrowing bases of longer patterns.
    var matches: MatchCache
    /// Whole-field matches of ranked queries' patterns (see `rowsInRankingGroups`), valid while
    /// `revision` stays `wholeFieldRevision`: typing on and erasing a query reads them again.
    var wholeFieldMatches: [MatchKey: Bitset] = [:]
    var wholeFieldRevision: UInt64 = 0
    /// The last few ranked and sorted answers (see `cachedOrderedRows`), most recent last.
    var keptRows: [KeptRows] = []
    /// Scores of recent fuzzy field results (see `fuzzyFieldScores`), most recent last.
    var keptFuzzyScores: [FuzzyFieldScores] = []
    /// Set while a ranked fuzzy query runs: its narrowed fuzzy scans score each match as they find
    /// it (`fuzzyScoringNarrowedScan`).
    var scoresFuzzyMatches = false
    /// The last query folded (see `FoldedQueryMemo`): rows of one answer shown one by one fold
    /// its query once.
    var foldedQueryMemo: FoldedQueryMemo?

    init(capacity: Int) { matches = MatchCache(capacity: capacity) }
}
