/// The last few ranked answers, kept while the index does not change: ranked rows are put in
/// order by the ranking rules (groups, then field length and the tie-break within each), an
/// O(*m*) pass over every row, and a backspace or a query typed again (the user clears the box
/// and types its first letter again) would pay it again for the same rows.
extension SearchIndex {
    /// Ranked answers kept: at most this many, holding at most as many rows in all as the index
    /// has slots (eight bytes a slot). A query typed out and erased is a dozen answers, most of
    /// them small; the broad first letter is the one worth keeping.
    static let rankedRowsCacheEntries = 16

    /// The rows last kept under `key` (a query answered in `.ranked` order, or a ranked fuzzy
    /// answer), if the index has not changed since; the entry becomes the most recent.
    ///
    /// - Complexity: O(*e*) for *e* ≤ 16 entries (plus O(*n* / 64) per fuzzy entry compared).
    func cachedRankedRows(_ key: RankedRows.Key) -> ResultRows? {
        rankedRows.removeAll { $0.revision != revision }
        guard let hit = rankedRows.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = rankedRows.remove(at: hit)
        rankedRows.append(entry)
        return entry.rows
    }

    /// Keeps `rows` as the ranked answer under `key`, dropping the oldest answers beyond the
    /// limits.
    ///
    /// - Complexity: O(*e*).
    func keepRankedRows(_ rows: ResultRows, for key: RankedRows.Key) {
        guard rows.count > 1, rows.count <= slotCapacity else { return }
        rankedRows.removeAll { $0.revision != revision || $0.key == key }
        var total = rows.count
        for entry in rankedRows { total += entry.rows.count }
        while !rankedRows.isEmpty && (rankedRows.count >= Self.rankedRowsCacheEntries || total > slotCapacity) {
            total -= rankedRows.removeFirst().rows.count
        }
        rankedRows.append(RankedRows(key: key, revision: revision, rows: rows))
    }
}

/// A ranked answer kept by `SearchIndex.keepRankedRows(_:for:)`.
struct RankedRows {
    /// What an answer is kept under.
    enum Key: Equatable {
        /// A query answered in `.ranked` order (groups, then field length and the tie-break).
        case query(Query)
        /// A ranked fuzzy answer (`SearchIndex.cachedFuzzyRankedRows`): any query text whose
        /// pattern folds alike over the same scope fields and matches.
        case fuzzy(folding: Int, fields: [Int], pattern: [UInt8], matches: Bitset)
    }

    var key: Key
    var revision: UInt64
    /// The answer's rows (ranked groups ordered where they are read, shared with the answer).
    var rows: ResultRows

    /// Heap bytes of the rows and of a fuzzy key's matches.
    var memoryFootprint: Int {
        var bytes = rows.memoryFootprint
        if case .fuzzy(_, _, let pattern, let matches) = key { bytes += pattern.capacity + 8 * matches.words.capacity }
        return bytes
    }
}
