/// The last few ranked and sorted answers, kept while the index does not change: ranked rows are
/// put in order by the ranking rules (groups, then field length and the tie-break within each),
/// sorted ones picked out of the sorted order, each a pass over every row (or every slot), and a
/// backspace or a query typed again (the user clears the box and types its first letter again)
/// would pay it again for the same rows. Answers in original order need no cache: their rows are
/// the matches' bitset.

internal import SiftStorage

extension SearchIndex {
    /// Answers kept: at most this many, taking at most eight bytes a slot of the index in all
    /// (as many rows' handles as the index has slots), as measured when an answer is kept. A query
    /// typed out and erased is a dozen answers, most of them small; the broad first letter is the
    /// one worth keeping, and kept as its ranking groups (`RankedRowGroups`) it takes a few bitsets
    /// until a table reads its rows.
    static let keptRowsCacheEntries = 16

    /// The rows last kept under `key` (a query answered in `.ranked` or `.sorted` order, or a
    /// ranked fuzzy answer), if the index has not changed since; the entry becomes the most recent.
    ///
    /// - Complexity: O(*e*) for *e* ≤ 16 entries (plus O(*n* / 64) per fuzzy entry compared).
    func cachedOrderedRows(_ key: KeptRows.Key) -> ResultRows? {
        caches.keptRows.removeAll { $0.revision != revision }
        guard let hit = caches.keptRows.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = caches.keptRows.remove(at: hit)
        caches.keptRows.append(entry)
        return entry.rows
    }

    /// Keeps `rows` as the answer under `key`, dropping the oldest answers beyond the
    /// limits.
    ///
    /// - Complexity: O(*e*).
    func keepOrderedRows(_ rows: ResultRows, for key: KeptRows.Key) {
        let entry = KeptRows(key: key, revision: revision, rows: rows)
        let budget = 8 * max(slotCapacity, 1)
        guard rows.count > 1, entry.memoryFootprint <= budget else { return }
        caches.keptRows.removeAll { $0.revision != revision || $0.key == key }
        var footprints = caches.keptRows.map(\.memoryFootprint)
        var total = footprints.reduce(entry.memoryFootprint, +)
        while !caches.keptRows.isEmpty && (caches.keptRows.count >= Self.keptRowsCacheEntries || total > budget) {
            caches.keptRows.removeFirst()
            total -= footprints.removeFirst()
        }
        caches.keptRows.append(entry)
    }
}

/// A ranked or sorted answer kept by `SearchIndex.keepOrderedRows(_:for:)`.
struct KeptRows {
    /// What an answer is kept under.
    enum Key: Equatable {
        /// A query answered in `.ranked` order (groups, then field length and the tie-break) or
        /// in `.sorted` order.
        case query(Query)
        /// A ranked answer of one folded pattern (`.fuzzy`: `SearchIndex.cachedFuzzyRankedRows`;
        /// `.contains`, `.prefix`: `SearchIndex.cachedRankedRows`): any query text that folds to
        /// that pattern, with the same tolerance, over the same scope fields and matches (`mu`
        /// and `mü` at primary strength).
        case pattern(
            mode: MatchMode,
            typos: TypoTolerance,
            folding: Int,
            fields: [Int],
            pattern: [UInt8],
            matches: Bitset
        )
    }

    var key: Key
    var revision: UInt64
    /// The answer's rows (ranked groups ordered where they are read, shared with the answer).
    var rows: ResultRows

    /// Heap bytes of the rows and of a pattern key's pattern and matches.
    var memoryFootprint: Int {
        var bytes = rows.memoryFootprint
        if case .pattern(_, _, _, _, let pattern, let matches) = key {
            bytes += pattern.capacity + matches.memoryFootprint
        }
        return bytes
    }
}
