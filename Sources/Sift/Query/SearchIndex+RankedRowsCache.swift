/// The last few ranked answers, kept while the index does not change: ranked rows are put in
/// order by the ranking rules (groups, then field length and the tie-break within each), an
/// O(*m*) pass over every row, and a backspace or a query typed again (the user clears the box
/// and types its first letter again) would pay it again for the same rows.
extension SearchIndex {
    /// Ranked answers kept: at most this many, holding at most as many rows in all as the index
    /// has slots (eight bytes a slot). A query typed out and erased is a dozen answers, most of
    /// them small; the broad first letter is the one worth keeping.
    static let rankedRowsCacheEntries = 16

    /// The rows `query` was last answered with in `.ranked` order, if the index has not changed
    /// since; the entry becomes the most recent.
    ///
    /// - Complexity: O(*e*) for *e* ≤ 16 entries.
    func cachedRankedRows(_ query: Query) -> [RecordHandle]? {
        rankedRows.removeAll { $0.revision != revision }
        guard let hit = rankedRows.firstIndex(where: { $0.query == query }) else { return nil }
        let entry = rankedRows.remove(at: hit)
        rankedRows.append(entry)
        return entry.rows
    }

    /// Keeps `rows` as `query`'s ranked answer, dropping the oldest answers beyond the limits.
    ///
    /// - Complexity: O(*e*).
    func keepRankedRows(_ rows: [RecordHandle], for query: Query) {
        guard rows.count > 1, rows.count <= slotCapacity else { return }
        rankedRows.removeAll { $0.revision != revision || $0.query == query }
        var total = rows.count
        for entry in rankedRows { total += entry.rows.count }
        while !rankedRows.isEmpty && (rankedRows.count >= Self.rankedRowsCacheEntries || total > slotCapacity) {
            total -= rankedRows.removeFirst().rows.count
        }
        rankedRows.append(RankedRows(query: query, revision: revision, rows: rows))
    }
}

/// A ranked answer kept by `SearchIndex.keepRankedRows(_:for:)`.
struct RankedRows {
    var query: Query
    var revision: UInt64
    var rows: [RecordHandle]
}
