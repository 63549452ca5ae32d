/// What a table's rows show, as of the moment the table was made: the ids, the sort field's
/// values (the rows' titles), the AlphabeticIndex section of every slot, and the values of the
/// fields named for display (see `TableCell`).
///
/// A snapshot of the index's columns (see `SearchIndex.tableRowSource`), which are copy-on-write
/// arrays: taking one costs a few retains, and an edit of the index made while a table holds one
/// copies what the edit writes, so a table never changes under its reader. Rows and cells are
/// made from it only when they are read.

internal import SiftStorage

struct TableRowSource: Sendable {
    let ids: TextColumn
    let titles: TextColumn
    /// The AlphabeticIndex section (bucket) of each slot.
    let sections: [UInt16]
    /// The fields a cell shows, in order (see `SearchController.Options.displayFields`).
    var displayFields: [String] = []
    /// The values of `displayFields`, parallel to it (a field the index did not know when the
    /// snapshot was taken is an empty column: every value "").
    var displayColumns: [TextColumn] = []
    /// What a cell's highlights need of the index: its configuration (the fields, scopes and
    /// collations a query's matches depend on) and its query limits; nil when the snapshot has
    /// no display fields.
    var highlighting: CellHighlighting? = nil

    /// The row of a record.
    ///
    /// - Precondition: the record was live when the snapshot was taken.
    /// - Complexity: O(1).
    func row(for handle: RecordHandle) -> TableRow {
        TableRow(
            id: ids.string(handle.slot),
            title: titles.string(handle.slot),
            handle: handle,
            bucket: section(ofSlot: handle.slot)
        )
    }

    /// The section of a slot (0 for a slot the snapshot does not know).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func section(ofSlot slot: Int32) -> Int32 {
        Int(slot) < sections.count ? Int32(sections[Int(slot)]) : 0
    }
}
