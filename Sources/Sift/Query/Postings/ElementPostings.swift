internal import SiftStorage

/// The `ColumnPostings` of the index's folded columns, and the edits they have yet to reflect.
///
/// Postings are index structure, not a cache: `discardCachedResults()` keeps them. They are kept
/// exact lazily, as `MatchCache` keeps its entries: an edit only notes its slot (O(1)); a column's
/// postings re-read the slots edited since they were last brought up to date when they are next
/// read (after the index has added any deferred word starts, which they depend on). Postings
/// that fall too far behind are dropped, and built afresh when next needed; a renumbering drops
/// them all.
struct ElementPostings {
    /// By column: folding << 32 | field.
    private var columns: [Int: ColumnPostings] = [:]
    /// Number of edits noted so far.
    private(set) var version = 0
    /// The slots of edits `editBase + 1 ... version`, in order (only while some postings need them).
    private var editedSlots: [Int32] = []
    private var editBase = 0
    /// Edits kept before postings that lag by half as many are dropped: re-reading that many
    /// slots costs about what a fresh pass over a column of a million records does.
    var maximumPendingEdits = 1 << 14

    var isEmpty: Bool { columns.isEmpty }

    /// Whether the postings of a column are held (up to date or not).
    func holds(folding: Int, field: Int) -> Bool { columns[Self.id(folding, field)] != nil }

    /// What a scan of one element finds in a column, from its postings brought up to date (built
    /// first if there are none).
    ///
    /// - Complexity: O(1) for postings up to date; O(*p* · (*s* + *e*)) for *p* edits to
    ///   re-read (see `ColumnPostings.update`); O(*n*) to build them for a column of size *n*.
    mutating func match(
        code: Int,
        anchor: Anchor,
        folding: Int,
        field: Int,
        column: FoldedColumn,
        capacity: Int,
        sparseLimit: Int
    ) -> FieldMatch {
        let id = Self.id(folding, field)
        if columns[id] == nil {
            let built = ColumnPostings.build(
                [column],
                capacity: capacity,
                version: version,
                workers: ParallelWork.cores
            )
            store(built[0], folding: folding, field: field)
        } else if columns[id]!.version < version {
            columns[id]!.update(slots: editedSlots[(columns[id]!.version - editBase)...], in: column)
            columns[id]!.version = version
        }
        return columns[id]!.match(code: code, anchor: anchor, sparseLimit: sparseLimit)
    }

    /// Notes, before an edit changes a slot's segment in a column, the elements it holds there
    /// now (postings re-check only those and the ones it holds after, see
    /// `ColumnPostings.update`). A no-op for a column without postings.
    ///
    /// - Complexity: O(*s*) in the size of the slot's segment.
    mutating func captureElements(of slot: Int32, folding: Int, field: Int, column: FoldedColumn) {
        let id = Self.id(folding, field)
        guard columns[id] != nil else { return }
        columns[id]!.captureElements(of: slot, in: column)
    }

    /// Keeps postings built (by `ColumnPostings.build`) when `version` was their `version`.
    mutating func store(_ postings: ColumnPostings, folding: Int, field: Int) {
        precondition(postings.version == version, "postings built before the latest edit")
        if columns.isEmpty {
            editedSlots.removeAll(keepingCapacity: true)
            editBase = version
        }
        columns[Self.id(folding, field)] = postings
    }

    /// Notes that a slot changed (inserted, updated or freed).
    ///
    /// - Complexity: O(1) amortized.
    mutating func noteEdit(slot: Int32) {
        version += 1
        guard !columns.isEmpty else {
            editBase = version
            return
        }
        editedSlots.append(slot)
        if editedSlots.count >= maximumPendingEdits { dropLaggingPostings() }
    }

    /// Drops the postings that lag by half the maximum or more, and the edits none needs.
    private mutating func dropLaggingPostings() {
        let threshold = version - maximumPendingEdits / 2
        columns = columns.filter { $0.value.version > threshold }
        let oldest = columns.values.map(\.version).min() ?? version
        editedSlots.removeFirst(oldest - editBase)
        editBase = oldest
    }

    /// Drops every column's postings (after a renumbering, whose slots they no longer name).
    mutating func removeAll() {
        columns.removeAll()
        editedSlots.removeAll()
        editBase = version
    }

    private static func id(_ folding: Int, _ field: Int) -> Int { folding &<< 32 | field }

    /// Heap bytes held.
    var memoryFootprint: Int { columns.values.reduce(0) { $0 + $1.memoryFootprint } + 4 * editedSlots.capacity }
}
