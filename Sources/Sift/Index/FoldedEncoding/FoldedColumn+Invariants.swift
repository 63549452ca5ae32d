internal import SiftStorage

extension FoldedColumn {
    /// Checks the column against a column rebuilt from its own buffers
    /// (`init(storage:slotCount:)`, which validates segment bounds, separators, owners and flag
    /// positions): the same dead, flagged and checked bits for every segment, no more dead bytes
    /// than its dead segments hold, and each slot's segment owned by that slot. A rebuild in
    /// progress is checked too.
    ///
    /// - Complexity: O(*n*) in the size of the column.
    func checkInvariants() {
        let rebuilt: FoldedColumn
        do {
            rebuilt = try FoldedColumn(storage: storage, slotCount: slotCount)
        } catch {
            preconditionFailure("invariant: FoldedColumn buffers: \(error.what)")
        }
        let segments = segmentCount
        invariant(
            rebuilt.segmentCount == segments,
            "FoldedColumn has \(segments) segments, its buffers \(rebuilt.segmentCount)"
        )
        for (name, mine, theirs) in [
            ("dead", deadSegments, rebuilt.deadSegments), ("flagged", flaggedSegments, rebuilt.flaggedSegments),
            ("checked", checkedSegments, rebuilt.checkedSegments),
        ] {
            for segment in 0..<segments {
                let bit = { (words: [UInt64]) in words[segment >> 6] >> UInt64(segment & 63) & 1 }
                invariant(bit(mine) == bit(theirs), "FoldedColumn segment \(segment)'s \(name) bit")
            }
        }
        invariant(
            deadBytes <= rebuilt.deadBytes,
            "FoldedColumn counts \(deadBytes) dead bytes, holds \(rebuilt.deadBytes)"
        )
        for slot in 0..<Int32(slotCount) {
            guard let segment = segment(ofSlot: slot) else { continue }
            invariant(owner(ofSegment: segment) == slot, "FoldedColumn slot \(slot)'s segment \(segment) is another's")
        }
        for target in rebuildTarget { target.checkInvariants() }
    }
}
