internal import SiftStorage

/// A column that `PooledColumns` can keep as bytes in a buffer shared with other columns.
protocol PackableColumn {
    /// The empty column, as `init()` makes it (shared, so that reading it allocates nothing).
    static var empty: Self { get }
    /// Whether the column is as `init()` made it.
    var isUnused: Bool { get }
    /// Whether the column's largest buffer fits `bytes`: false rules out packing it within
    /// `bytes` without writing it (a column of a million records is not copied to find out).
    func mayPackWithin(_ bytes: Int) -> Bool
    /// Whether a rebuild should start (see `SearchIndex.advanceCompaction()`).
    var wantsRebuild: Bool { get }
    /// Writes the column so that `init(unpacking:)` gives it back; returns false, having written
    /// nothing, for a column that cannot be packed (a rebuild in progress).
    func pack(into writer: inout PackedBytesWriter) -> Bool
    /// The column `pack(into:)` wrote.
    init(unpacking reader: inout PackedBytesReader)
}

extension FoldedColumn: PackableColumn {
    static let empty = FoldedColumn()

    func mayPackWithin(_ bytes: Int) -> Bool { byteCount <= bytes }
}

extension TextColumn: PackableColumn {
    static let empty = TextColumn()

    func mayPackWithin(_ bytes: Int) -> Bool { self.bytes.count <= bytes }
}
