/// One query's pass through the index: the query, what its scans count, and how they learn that
/// it was cancelled. `search` makes one and hands it down (`inout`) through the scope, field,
/// ranking and typo passes, instead of threading the statistics and the cancellation check
/// through each of their signatures.
struct QueryRun {
    /// The query being answered.
    let query: Query
    /// Full scans, narrowed scans and cache hits so far (returned in the `SearchResult`).
    var statistics = QueryStatistics()
    /// Polled during long scans and between terms; true means throw `CancellationError`.
    let isCancelled: () -> Bool

    /// Throws `CancellationError` once the query is cancelled.
    func checkCancellation() throws {
        if isCancelled() { throw CancellationError() }
    }
}
