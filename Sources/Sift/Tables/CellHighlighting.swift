/// How a table's cells find the ranges a query matches in the values they show, without the index
/// they came from: what the matches depend on, kept with the table's snapshot.
///
/// The ranges a query matches in one record depend only on that record's values, the index's
/// configuration (its fields, scopes and collations) and the query, never on the other records.
/// So a cell's ranges are those `SearchIndex.matchRanges(of:for:isCancelled:)` gives for the
/// record in an index of that configuration that holds only the record's searched values as the
/// snapshot has them: that is how they are computed, with the index's own matching code, on
/// whatever thread reads the cell (the ICU objects an index opens are shared read-only between
/// threads, see `ICUObjectCache`).
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
    ///   `matchRanges(of:for:isCancelled:)` costs for one record.
    func matchRanges(of values: [String: String], for query: Query) -> [String: [Range<Int>]] {
        guard !query.text.isEmpty else { return [:] }
        let searched = Set(configuration.searchFields)
        let fields = values.filter { searched.contains($0.key) && !$0.value.isEmpty }
        guard !fields.isEmpty else { return [:] }
        do {
            let index = try SearchIndex(configuration: configuration, records: [Record(id: "cell", fields: fields)])
            index.queryLimits = queryLimits
            guard let handle = index.handle(forID: "cell") else { return [:] }
            return try index.matchRanges(of: handle, for: query)
        } catch {
            return [:]
        }
    }
}
