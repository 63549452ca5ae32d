/// Where each record's row is in a table, by the record's slot: the O(1) map behind
/// `RecordTable.indexPath(of:)`.
///
/// A location names the section by its key (bucket), not its index, so inserting or deleting a
/// section does not touch the locations of other sections' rows. Storage is a dense array by slot
/// when the table holds a good share of the index's slots (the original table, broad results) and
/// a dictionary otherwise (narrow results), so building a small results table costs O(*m*) in its
/// rows, not O(*n*) in the index.
struct RowLocations: Sendable {
    struct Location: Equatable, Sendable {
        /// The key of the section (its bucket, or 0 in an unsectioned table).
        var key: Int32
        /// The row within the section.
        var row: Int32
    }

    private static let absent = Location(key: 0, row: -1)

    private let isDense: Bool
    /// Indexed by slot when dense; `row < 0` marks an absent slot.
    private var dense: [Location] = []
    private var sparse: [Int32: Location] = [:]

    /// An empty map sized for `expectedCount` rows among slots below `slotLimit`.
    init(expectedCount: Int, slotLimit: Int) {
        isDense = expectedCount > 0 && expectedCount * 4 >= slotLimit
        if isDense {
            dense = [Location](repeating: Self.absent, count: slotLimit)
        } else {
            sparse.reserveCapacity(expectedCount)
        }
    }

    /// The location of a slot, or nil.
    ///
    /// - Complexity: O(1) (expected, for the sparse storage).
    subscript(slot: Int32) -> Location? {
        get {
            guard isDense else { return sparse[slot] }
            guard Int(slot) < dense.count else { return nil }
            let location = dense[Int(slot)]
            return location.row < 0 ? nil : location
        }
        set {
            guard isDense else {
                sparse[slot] = newValue
                return
            }
            if Int(slot) >= dense.count {
                guard newValue != nil else { return }
                dense.append(contentsOf: repeatElement(Self.absent, count: Int(slot) + 1 - dense.count))
            }
            dense[Int(slot)] = newValue ?? Self.absent
        }
    }

    /// Sets the row of a slot that is known to be present.
    ///
    /// - Complexity: O(1).
    mutating func setRow(_ row: Int, ofSlot slot: Int32) {
        if isDense {
            dense[Int(slot)].row = Int32(row)
        } else {
            sparse[slot]?.row = Int32(row)
        }
    }
}
