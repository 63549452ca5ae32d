/// What a cell of a table shows for one row: the values of the fields named for display, the
/// ranges a query matches in them, and snippets of long ones, read synchronously from the table.
///
/// A cell is made from the table's snapshot of the index (see `RecordTable`), so it shows the
/// values of the update the table came from, whatever edits came later; no `await`, and no other
/// row is read. Which fields it shows is `SearchController.Options.displayFields` (by default
/// the sort field only: name the others a cell shows).
///
/// ```swift
/// let update = try await controller.settledUpdate(for: controller.setText("zur"))
/// let cell = update.cell(at: TableIndexPath(section: 0, row: 0))!   // highlights "zur"
/// for field in cell.fields {
///     let styled = field.segments.map { $0.isHighlighted ? "[\($0.text)]" : String($0.text) }
///     print(field.name, styled.joined())                          // name [Zür]ich
/// }
/// cell[field: "notes"]?.snippet(length: 40).text                  // 40 characters around the match
/// ```

internal import SiftStorage

public struct TableCell: Hashable, Sendable {
    /// The row the cell shows.
    public let row: TableRow
    /// The query whose matches the fields highlight; nil when they highlight nothing.
    public let query: Query?
    /// The fields named for display, in their order, each with its value and highlights.
    public let fields: [Field]

    /// One field of a cell: its name, its value and what the query matches in it.
    public struct Field: Hashable, Sendable {
        /// The field's name.
        public let name: String
        /// The record's value of the field ("" when it has none).
        public let text: String
        /// The ranges of `text` the query matches, first to last, disjoint: those of
        /// `SearchIndex.highlights(of:for:isCancelled:)`. Empty for a field the query's scope
        /// does not search, or without a match.
        public let highlights: [Range<String.Index>]
        /// The same ranges in UTF-16 code units of `text`: those of
        /// `SearchIndex.matchRanges(of:for:fields:isCancelled:)`.
        public let utf16Highlights: [Range<Int>]

        /// `text` as runs to style, highlighted or not, of whole characters (see
        /// `HighlightSegment.segments(of:highlighting:)`).
        ///
        /// - Complexity: O(*n*) in the length of `text`.
        public var segments: [HighlightSegment] { HighlightSegment.segments(of: text, highlighting: highlights) }

        /// A window of at most `length` characters of `text` around its first match (from the
        /// start when it has none), with the matches inside it: what `SearchIndex.snippets(of:for:length:isCancelled:)`
        /// gives for a field with a match. Use `Snippet.segments` to style it.
        ///
        /// - Complexity: O(*n*) in the length of `text`.
        public func snippet(length: Int) -> Snippet {
            Snippet(field: text, matches: utf16Highlights, length: length)
        }
    }

    /// The field named `name`, or nil when the cell does not show it.
    ///
    /// - Complexity: O(*d*) for *d* display fields.
    public subscript(field name: String) -> Field? { fields.first { $0.name == name } }

    /// The cell of `row` from a table's snapshot, its fields highlighted for `query`.
    ///
    /// - Complexity: O(*s*) in the size of the row's display values (see
    ///   `CellHighlighting.matchRanges(of:for:)` for a query).
    init(row: TableRow, source: TableRowSource?, query: Query?) {
        self.row = row
        self.query = query
        guard let source else {
            fields = []
            return
        }
        var values: [String: String] = [:]
        let texts = source.displayColumns.map { $0.string(row.handle.slot) }
        for (name, text) in zip(source.displayFields, texts) { values[name] = text }
        let ranges =
            query.flatMap { query in source.highlighting.map { $0.matchRanges(of: values, for: query) } } ?? [:]
        fields = zip(source.displayFields, texts).map { name, text in
            let utf16 = ranges[name] ?? []
            return Field(name: name, text: text, highlights: text.ranges(ofUTF16: utf16), utf16Highlights: utf16)
        }
    }
}
