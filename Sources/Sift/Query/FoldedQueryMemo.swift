/// The last query `SearchIndex.foldQuery(_:folding:_:)` folded, with what its folding depends
/// on: so that showing many rows of one answer (`matchRanges(of:for:)`, `highlights(of:for:)`,
/// `snippets(of:for:length:)` once per row, as `sift query` does for every row it prints) folds
/// the query once, not once per row. A query of 10,000 words takes milliseconds to fold; over
/// 60,000 rows, that was minutes.
///
/// A folded query depends on the query's text, mode, syntax and typo tolerance, the folding
/// (collation), its code book (which only grows between edits, and every edit that commits bumps
/// the index's revision; an insert that fails restores the count), and the limits it was checked
/// against. Only a fold that completed within the limits is kept.
struct FoldedQueryMemo {
    var text: String
    var mode: MatchMode
    var syntax: QuerySyntax
    var typos: TypoTolerance
    var folding: Int
    var revision: UInt64
    var codeCount: Int
    var limits: QueryLimits
    var folded: FoldedQuery

    /// Whether `folded` is what folding `query` under `folding` would give now.
    ///
    /// - Complexity: O(*n*) in the length of the query's text, at worst.
    func answers(_ query: Query, folding: Int, revision: UInt64, codeCount: Int, limits: QueryLimits) -> Bool {
        self.folding == folding && self.revision == revision && self.codeCount == codeCount
            && self.limits == limits && mode == query.mode && syntax == query.syntax && typos == query.typos
            && text == query.text
    }
}
