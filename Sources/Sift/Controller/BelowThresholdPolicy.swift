/// What the results table shows while the text is shorter than the selected scope's
/// `Scope.minimumLength` (state `SearchState.tooShort(needed:)`; no query runs).
///
/// The default is `.originalList`: below the threshold no filter applies yet, so the honest
/// answer is every record, exactly as an empty search bar shows them. It never shows results of
/// a query that is no longer in the search bar (`.keepPrevious` can, right after a backspace)
/// and never flashes an empty list while the user is still typing (`.empty` does).
public enum BelowThresholdPolicy: Hashable, Sendable, CaseIterable {
    /// Every record, in the results table's layout (`.ranked` falls back to original order).
    case originalList
    /// No rows.
    case empty
    /// Whatever the results table showed before (the last answered query's matches, kept current
    /// by edits).
    case keepPrevious
}
