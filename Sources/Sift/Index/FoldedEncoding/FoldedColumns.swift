/// The folded columns of one folding, one per search field, stored only once some field is used.
///
/// An index over a header of a million columns and no rows used to spend 168 bytes a field on
/// empty columns (issue 27's wide headers). Here, while no column has held a segment, no column
/// is stored: every field reads as one shared empty column. The first mutation of any field
/// (`columns[field].set(...)`, `reserveCapacity`) stores a column for every field at once, with
/// exact capacity: the first record gives every field a segment anyway.
///
/// - Invariant: `stored` is empty or holds one column per field.
struct FoldedColumns: RandomAccessCollection, MutableCollection {
    /// One column per field, or none while every field is unused.
    private var stored: [FoldedColumn] = []
    /// Number of fields.
    private(set) var endIndex: Int
    /// What every field reads as while none is stored (its buffers are shared by the copies).
    /// Static, so that copying the collection retains one buffer, as a `[FoldedColumn]` did.
    private static let empty = FoldedColumn()

    /// `count` unused fields.
    init(count: Int) {
        endIndex = count
    }

    /// The given columns; none is stored when none was ever used.
    init<C: Collection>(_ columns: C) where C.Element == FoldedColumn {
        endIndex = 0
        for column in columns { append(column) }
    }

    var startIndex: Int { 0 }

    /// The column of field `position`. A mutation stores every field's column first if none was.
    ///
    /// - Complexity: O(1); O(*f*) for the first mutation, for *f* fields.
    subscript(position: Int) -> FoldedColumn {
        @inline(__always) _read {
            if _slowPath(stored.isEmpty) {
                precondition(position >= 0 && position < endIndex, "field out of range")
                yield Self.empty
            } else {
                yield stored[position]
            }
        }
        @inline(__always) _modify {
            if _slowPath(stored.isEmpty) { storeAll() }
            yield &stored[position]
        }
    }

    /// Appends a field with `column`.
    ///
    /// - Complexity: O(1) amortized while the columns are unused or stored; O(*f*) when the
    ///   first used column arrives.
    mutating func append(_ column: FoldedColumn) {
        if stored.isEmpty && column.isUnused {
            endIndex += 1
            return
        }
        storeAll(reserving: endIndex + 1)
        stored.append(column)
        endIndex += 1
    }

    /// Whether each field has a column of its own.
    var isStored: Bool { !stored.isEmpty }

    /// Calls `body` on every stored column (unstored ones are empty: nothing to trim, prefetch or
    /// rebuild).
    ///
    /// - Complexity: O(*f*) calls once stored, none before.
    @inline(__always)
    mutating func forEachStored(_ body: (inout FoldedColumn) -> Void) {
        for index in stored.indices { body(&stored[index]) }
    }

    /// The stored columns (none while every field is unused), for memory accounting.
    var storedColumns: [FoldedColumn] { stored }

    @inline(never)
    private mutating func storeAll(reserving capacity: Int = 0) {
        guard stored.isEmpty, endIndex > 0 || capacity > 0 else { return }
        stored.reserveCapacity(Swift.max(capacity, endIndex))
        for _ in 0..<endIndex { stored.append(Self.empty) }
    }
}
