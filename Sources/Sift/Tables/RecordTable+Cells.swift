extension RecordTable {
    /// The cell of the row at a path: the row's values of the fields named for display, with the
    /// ranges `query` matches in them (see `TableCell`), as of the update the table came from.
    ///
    /// `SearchUpdate.cell(at:in:)` passes the query the results table shows. A table rebuilt from
    /// rows rather than made by a controller (`TableChangeSet.apply(to:dataSource:)` makes
    /// one when its data source is such a table) has no snapshot: its cells have no fields.
    ///
    /// - Parameters:
    ///   - path: the row.
    ///   - query: the query to highlight; nil highlights nothing.
    /// - Returns: nil when the path is not in the table.
    /// - Complexity: O(*s*) in the size of the row's display values; no other row is read.
    public func cell(at path: TableIndexPath, highlighting query: Query? = nil) -> TableCell? {
        rowNumber(of: path).map { cell(number: $0, highlighting: query) }
    }

    /// The cells of the rows numbered `numbers`, counting from 0 across sections: a page of the
    /// table (see `cell(at:highlighting:)`).
    ///
    /// - Precondition: the numbers are in `0..<rowCount`.
    /// - Complexity: O(*s*) in the size of the rows' display values.
    public func cells(numbered numbers: Range<Int>, highlighting query: Query? = nil) -> [TableCell] {
        precondition(numbers.lowerBound >= 0 && numbers.upperBound <= rowCount, "rows \(numbers) of \(rowCount)")
        return numbers.map { cell(number: $0, highlighting: query) }
    }

    /// The fields the table's cells show, in order (empty for a table rebuilt from rows).
    ///
    /// - Complexity: O(1).
    public var displayFields: [String] {
        if case .snapshot(let source) = content { return source.displayFields }
        return []
    }

    /// The cell of the row numbered `number`.
    func cell(number: Int, highlighting query: Query?) -> TableCell {
        let row = row(number: number)
        if case .snapshot(let source) = content { return TableCell(row: row, source: source, query: query) }
        return TableCell(row: row, source: nil, query: query)
    }
}
