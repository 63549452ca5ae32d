extension SearchUpdate {
    /// The cell of the row at a path of one of the update's tables, read synchronously from the
    /// update: the row's values of the fields named for display
    /// (`SearchController.Options.displayFields`) as of this update, and in the results table
    /// the ranges `resultsQuery` matches in them. Original-table cells highlight nothing (use
    /// `RecordTable.cell(at:highlighting:)` to highlight a query there).
    ///
    /// ```swift
    /// let cell = update.cell(at: TableIndexPath(section: 0, row: 0))!
    /// cell.row.title                                   // "Zürich"
    /// cell[field: "name"]!.segments                    // [("Zür", highlighted), ("ich", not)]
    /// ```
    ///
    /// - Returns: nil when the path is not in the table.
    /// - Complexity: O(*s*) in the size of the row's display values; no other row is read.
    public func cell(at path: TableIndexPath, in table: TableKind = .results) -> TableCell? {
        tables[table].cell(at: path, highlighting: table == .results ? resultsQuery : nil)
    }
}
