extension TextColumn: RebuildableColumn {
    /// Whether a rebuild should start: none runs, and dead bytes (slack included) have passed an
    /// eighth of the buffer (and 4 KiB).
    ///
    /// - Complexity: O(1).
    package var wantsRebuild: Bool { rebuildTarget.isEmpty && deadBytes > 4096 && deadBytes * 8 > bytes.count }

    /// Whether a rebuild is in progress.
    package var isRebuilding: Bool { !rebuildTarget.isEmpty }

    /// The column without its rebuild in progress (for a snapshot of the values: the rebuild goes
    /// on in the column alone, whose copy then stays the only owner of its buffers).
    package var withoutRebuild: TextColumn {
        var copy = self
        copy.abandonRebuild()
        return copy
    }

    /// Drops a rebuild in progress.
    package mutating func abandonRebuild() {
        guard !rebuildTarget.isEmpty else { return }
        rebuildTarget = []
        rebuildCursor = 0
    }

    /// Starts a rebuild: an empty column with room for the live bytes and a sixteenth more.
    /// `continueRebuild(budget:)` then copies the values in slot order, a piece at a time, while
    /// `set` writes slots already copied to both; once every slot is copied, the copy takes this
    /// column's place.
    ///
    /// - Complexity: O(1) (the allocation).
    package mutating func startRebuild() {
        guard rebuildTarget.isEmpty else { return }
        var target = TextColumn()
        target.byteLimit = byteLimit
        let live = bytes.count - deadBytes
        target.reserveCapacity(slots: slotCount + slotCount / 16, bytes: live + live / 16)
        rebuildTarget = [target]
        rebuildCursor = 0
    }

    /// Appends a group of `members` values (each behind its prefix, as a group lies in `bytes`)
    /// for the slots from `slotCount` on, which must start a group.
    private mutating func appendGroup(_ group: UnsafeBufferPointer<UInt8>, members: Int) {
        precondition(slotCount & (Self.groupSize - 1) == 0, "a group starts at a multiple of the group size")
        groupStarts.append(UInt32(bytes.count))
        groupSlack.append(0)
        growGently(&bytes, by: group.count)
        bytes.append(contentsOf: group)
        slotCount += members
        lastGroupEndsBytes = true
    }

    /// Copies the values of about `budget` more bytes (whole groups) into the rebuild, and lets
    /// the copy take this column's place once it holds every slot.
    ///
    /// - Returns: Whether no rebuild is left in progress.
    /// - Complexity: O(`budget`), plus the release of the old buffer when the rebuild ends.
    package mutating func continueRebuild(budget: Int) -> Bool {
        guard var target = rebuildTarget.popLast() else { return true }
        var spent = 0
        while spent < budget && rebuildCursor < slotCount {
            if rebuildCursor & (Self.groupSize - 1) == 0 {
                // A whole group (or what there is of the last one), as it lies in `bytes`.
                let (start, _, _, end) = layout(ofGroup: rebuildCursor >> Self.groupShift, member: -1)
                let members = min(Self.groupSize, slotCount - rebuildCursor)
                bytes.withUnsafeBufferPointer { buffer in
                    target.appendGroup(UnsafeBufferPointer(rebasing: buffer[start..<end]), members: members)
                }
                rebuildCursor += members
                spent += end - start + 16
            } else {
                // Slots added to a last group copied before they existed.
                let slot = Int32(rebuildCursor)
                withUTF8(slot) { value in
                    target.set(slot, utf8: value)
                    spent += value.count + 16
                }
                rebuildCursor += 1
            }
        }
        guard rebuildCursor >= slotCount else {
            rebuildTarget.append(target)  // the array keeps its buffer: no allocation
            return false
        }
        self = target
        return true
    }
}
