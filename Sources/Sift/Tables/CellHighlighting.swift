internal import Dispatch

/// How a table's cells find the ranges a query matches in the values they show, without the index
/// they came from: what the matches depend on, kept with the table's snapshot.
///
/// The ranges a query matches in one record depend only on that record's values, the index's
/// configuration (its fields, scopes and collations) and the query, never on the other records.
/// So a cell's ranges are those `SearchIndex.matchRanges(of:for:fields:isCancelled:)` gives for the
/// record in an index of that configuration that holds only the record's searched values as the
/// snapshot has them: that is how they are computed, with the index's own matching code, on
/// whatever thread reads the cell.
struct CellHighlighting: Sendable {
    /// The configuration of the index the snapshot was taken from.
    let configuration: IndexConfiguration
    /// That index's query limits: a query it would refuse highlights nothing here either.
    let queryLimits: QueryLimits

    /// The ranges `query` matches in each of `values` (field name to value) that its scope
    /// searches, in UTF-16 code units of the value; fields without a match are absent, and so is
    /// everything when the query cannot be answered (an unknown scope, a query past the limits).
    ///
    /// - Complexity: O(*s*) in the size of the values, for folding them, plus what
    ///   `matchRanges(of:for:fields:isCancelled:)` costs for one record.
    func matchRanges(of values: [String: String], for query: Query) -> [String: [Range<Int>]] {
        guard !query.text.isEmpty else { return [:] }
        let searched = Set(configuration.searchFields)
        let fields = values.filter { searched.contains($0.key) && !$0.value.isEmpty }
        guard !fields.isEmpty else { return [:] }
        return CellIndexes.withIndex(for: configuration) { index in
            index.queryLimits = queryLimits
            let record = Record(id: "cell", fields: fields)
            let handle =
                index.handle(forID: record.id) != nil ? try index.update(record) : try index.insert(record)
            return try index.matchRanges(of: handle, for: query)
        } ?? [:]
    }
}

/// The one-record indexes cells' highlights run on: one per configuration, shared by every table
/// of the process, each record of a cell replacing the one before.
///
/// An index made per cell would cost a cell the opening of its ICU folders and take one of the 256
/// handle tags that tell indexes apart (see `SearchIndex.handleTag`), so that indexes made shortly
/// after one another could share a tag. Here a configuration's index is made once; the cache
/// holds at most `capacity` of them and is emptied when full. Every use runs on one serial
/// dispatch queue (not `Synchronization.Mutex`, which ThreadSanitizer cannot see, as
/// `ICUObjectCache` explains): cells made on several threads at once take turns.
enum CellIndexes {
    /// Configurations whose index the cache holds before it is emptied.
    static let capacity = 8

    private static let queue = DispatchQueue(label: "Sift.CellIndexes")
    nonisolated(unsafe) private static var indexes: [IndexConfiguration: SearchIndex] = [:]

    /// Runs `body` with the index of `configuration` (made on first use), on the cache's queue;
    /// nil when the index cannot be made or `body` throws. An index whose `body` threw is dropped,
    /// so that no use sees an edit it left half done.
    static func withIndex<Result>(
        for configuration: IndexConfiguration,
        _ body: (SearchIndex) throws -> Result
    ) -> Result? {
        queue.sync {
            let index: SearchIndex
            if let cached = indexes[configuration] {
                index = cached
            } else {
                guard let made = try? SearchIndex(configuration: configuration) else { return nil }
                if indexes.count >= capacity { indexes.removeAll() }
                indexes[configuration] = made
                index = made
            }
            do {
                return try body(index)
            } catch {
                indexes[configuration] = nil
                return nil
            }
        }
    }
}
