extension SearchIndex {
    /// A window of at most `length` characters around the first match in each searched field of
    /// one record that a query matches, with the matches inside it: for showing long fields.
    ///
    /// The matches are those of `matchRanges(of:for:)`; fields without a match are absent. A field
    /// of at most `length` characters is its own window. See `Snippet` for how a window is placed.
    ///
    /// ```swift
    /// let snippets = try index.snippets(of: row, for: Query("strasse"), length: 40)
    /// snippets["notes"]?.text          // 40 characters or fewer, "Straße" among them
    /// ```
    ///
    /// - Parameters:
    ///   - handle: the record.
    ///   - query: the query whose matches the snippets show.
    ///   - length: the longest window, in characters (grapheme clusters); at least 1.
    ///   - isCancelled: polled between the query's patterns (see `matchRanges(of:for:fields:isCancelled:)`).
    /// - Throws: `SiftError.staleHandle`, `SiftError.unknownScope`, `SiftError.queryTooLarge`, an
    ///   ICU failure, or `CancellationError`.
    /// - Complexity: that of `matchRanges(of:for:fields:isCancelled:)`, plus O(*s*) per field with a match.
    public func snippets(
        of handle: RecordHandle,
        for query: Query,
        length: Int,
        isCancelled: () -> Bool = { false }
    ) throws -> [String: Snippet] {
        var result: [String: Snippet] = [:]
        for (field, ranges) in try matchRanges(of: handle, for: query, isCancelled: isCancelled) where !ranges.isEmpty {
            result[field] = Snippet(field: try value(of: field, for: handle), matches: ranges, length: length)
        }
        return result
    }
}
