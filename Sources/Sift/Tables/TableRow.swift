/// One row of a table: a record, by id and handle, with the text a cell usually shows.
///
/// Rows are values: an updated record is a different row (new handle, maybe a new title) with the
/// same `id`, which is what makes a change set report it as reloaded rather than unchanged.
public struct TableRow: Hashable, Sendable {
    /// The record's id: stable across updates, the identity a diffable data source wants.
    public let id: String
    /// The record's value of the index's sort field (the field the sections and the collation
    /// order come from), ready for a cell's text.
    public let title: String
    /// The record's handle in the controller's index; it changes when the record is updated.
    public let handle: RecordHandle
    /// The record's AlphabeticIndex bucket (an index into the index's `sectionTitles`).
    let bucket: Int32

    init(id: String, title: String, handle: RecordHandle, bucket: Int32) {
        self.id = id
        self.title = title
        self.handle = handle
        self.bucket = bucket
    }
}
