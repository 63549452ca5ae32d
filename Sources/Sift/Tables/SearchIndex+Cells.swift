internal import SiftStorage

extension SearchIndex {
    /// The fields a cell shows by default: the sort field (the rows' titles), which the tables
    /// keep anyway.
    ///
    /// - Complexity: O(1).
    var defaultDisplayFields: [String] {
        [configuration.sortField ?? configuration.searchFields[0]]
    }

    /// What tables need to show rows and cells, as of now: `tableRowSource(withSections:)` with
    /// the values of `displayFields` (nil: `defaultDisplayFields`) and what highlighting needs.
    ///
    /// Each display field's column is retained like the titles: an edit made while the snapshot
    /// is alive copies the columns it writes (once per snapshot), the sort field's included.
    ///
    /// - Complexity: O(*d*) for *d* display fields, plus what `tableRowSource(withSections:)` costs.
    func tableRowSource(withSections: Bool, displayFields: [String]?) -> TableRowSource {
        var source = tableRowSource(withSections: withSections)
        let fields = displayFields ?? defaultDisplayFields
        source.displayFields = fields
        source.displayColumns = fields.map { field in
            records.fieldPositions[field].map {
                records.values.indices.contains($0) ? records.values[$0].withoutRebuild : TextColumn()
            }
                ?? TextColumn()
        }
        source.highlighting = CellHighlighting(configuration: configuration, queryLimits: queryLimits)
        return source
    }
}
