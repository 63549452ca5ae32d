/// Which of the two tables a search display shows: the full list or the current matches.
public enum TableKind: Hashable, Sendable, CaseIterable {
    /// Every record, shown while no search is active.
    case original
    /// The current query's matches (or what the below-threshold policy shows).
    case results
}
