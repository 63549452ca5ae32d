/// What a search display is doing, as of one update.
public enum SearchState: Hashable, Sendable {
    /// No search: the display shows the original table (initially, and after Cancel). The results
    /// table is empty.
    case inactive
    /// The text is shorter than the selected scope needs; no query runs. The results table shows
    /// what the controller's `BelowThresholdPolicy` says.
    case tooShort(needed: Int)
    /// Search on submit: the text changed and waits for the Search button. The results table is
    /// unchanged.
    case awaitingSubmit
    /// A query is scheduled or running. The results table still shows the previous answer.
    case searching(SearchProgress)
    /// The results table shows the current query's matches.
    case results
    /// The source failed to answer the current query (its error, described). The results table is
    /// unchanged.
    case failed(String)

    /// Whether the state waits for nothing: no query is scheduled or running.
    public var isSettled: Bool {
        if case .searching = self { return false }
        return true
    }
}
