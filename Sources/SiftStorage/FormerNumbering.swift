/// A numbering of an index's slots that a renumbering replaced (see
/// `SearchIndex.renumberSlots()`): what a handle made under it needs to find its record.
///
/// The renumbering gave the survivors the new slots 0, 1, 2, … in ascending order of their old
/// ones, so a record's new slot is its old slot's rank among them: the survivors' bits, with
/// their counts per block, are the whole map (a little over a bit per old slot).
package struct FormerNumbering: Sendable {
    /// The handle tag of the numbering (see `SearchIndex.handleTag`).
    package let tag: UInt32
    /// The old slots of the records that survived it: the one of rank `i` became slot `i`.
    package let survivors: RankedBitset

    package init(tag: UInt32, survivors: RankedBitset) {
        self.tag = tag
        self.survivors = survivors
    }

    /// The slot a record at `slot` was given, or nil when no record lived there.
    ///
    /// - Complexity: O(log *b*) for *b* blocks of the old slots.
    package func newSlot(of slot: Int32) -> Int32? {
        guard slot >= 0, survivors.contains(slot) else { return nil }
        return Int32(survivors.rank(slot))
    }

    /// Heap bytes used.
    package var memoryFootprint: Int { survivors.memoryFootprint }
}
