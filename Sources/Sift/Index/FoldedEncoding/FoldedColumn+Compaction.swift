internal import SiftStorage

extension FoldedColumn: RebuildableColumn {
    /// Whether a rebuild should start: none runs, and dead bytes have passed an eighth of the
    /// codes (and 4 KiB).
    ///
    /// - Complexity: O(1).
    var wantsRebuild: Bool { rebuildTarget.isEmpty && deadBytes > 4096 && deadBytes * 8 > codes.count }

    /// Whether a rebuild is in progress.
    var isRebuilding: Bool { !rebuildTarget.isEmpty }

    /// Starts a rebuild: an empty column with room for the live segments and a sixteenth more.
    /// `continueRebuild(budget:)` then fills it in slot order, a piece at a time, and takes this
    /// column's place once it holds every segment as it is then.
    ///
    /// - Complexity: O(1) (the allocation).
    mutating func startRebuild() {
        guard rebuildTarget.isEmpty else { return }
        var target = FoldedColumn()
        let live = codes.count - deadBytes
        target.reserveCapacity(bytes: live + live / 16, segments: slotCount + slotCount / 16)
        rebuildTarget = [target]
        rebuildCursor = 0
        rebuildPending.removeAll()
    }

    /// Drops a rebuild in progress (before a bulk append, which would outrun it).
    mutating func abandonRebuild() {
        guard !rebuildTarget.isEmpty else { return }
        rebuildTarget = []
        rebuildPending = []
        rebuildCursor = 0
    }

    /// Notes that a slot's segment is about to change: once the rebuild has copied it, it must
    /// copy it again.
    @inline(__always)  // a compare on every edit of a column
    mutating func noteRebuildChange(_ slot: Int32) {
        if Int(slot) < rebuildCursor && !rebuildTarget.isEmpty { rebuildPending.append(slot) }
    }

    /// Copies about `budget` more bytes into the rebuild: first every slot's segment in slot order
    /// (a free slot gets an empty dead placeholder, so that segment *s* is slot *s*'s), then again
    /// the segments of slots changed since they were copied, which land at the end as an update's
    /// would. Once nothing is left to copy, the copy takes this column's place: the dead segments
    /// are gone, and so are the away maps but for the slots copied again.
    ///
    /// - Returns: Whether no rebuild is left in progress.
    /// - Complexity: O(`budget`) amortized (a segment is copied whole), plus the release of the
    ///   old buffers when the rebuild ends.
    mutating func continueRebuild(budget: Int) -> Bool {
        guard var target = rebuildTarget.popLast() else { return true }
        var spent = 0
        while spent < budget && rebuildCursor < slotCount {
            let slot = Int32(rebuildCursor)
            if let segment = segment(ofSlot: slot) {
                let (start, end) = bounds(ofSegment: segment)
                target.appendSegment(segment, of: self, owner: slot)
                spent += end - start
            } else {
                target.appendPlaceholder()
            }
            spent += 16
            rebuildCursor += 1
        }
        while spent < budget && rebuildCursor >= slotCount, let slot = rebuildPending.popLast() {
            target.remove(slot: slot)
            if let segment = segment(ofSlot: slot) {
                let (start, end) = bounds(ofSegment: segment)
                target.appendSegment(segment, of: self, owner: slot)
                spent += end - start
            }
            spent += 16
        }
        guard rebuildCursor >= slotCount && rebuildPending.isEmpty else {
            rebuildTarget.append(target)  // the array keeps its buffer: no allocation
            return false
        }
        target.slotCount = max(target.slotCount, slotCount)
        self = target
        return true
    }
}
