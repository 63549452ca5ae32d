extension TextColumn {
    /// Checks the layout: a group start and slack per group of the slots held, every group's
    /// values inside `bytes` and no two groups overlapping (nor a group's slack and another),
    /// and `deadBytes` the bytes outside the groups. A rebuild in progress is checked too.
    ///
    /// - Complexity: O(*n*) in the number of slots.
    package func checkInvariants() {
        let groups = (slotCount + Self.groupSize - 1) >> Self.groupShift
        invariant(groupStarts.count >= groups, "TextColumn has \(groupStarts.count) group starts for \(groups) groups")
        invariant(groupSlack.count >= groups, "TextColumn has \(groupSlack.count) group slacks for \(groups) groups")
        var extents: [(start: Int, end: Int, slack: Int)] = []
        extents.reserveCapacity(groups)
        for group in 0..<groups {
            let start = Int(groupStarts[group])
            invariant(start <= bytes.count, "TextColumn group \(group) starts past the bytes")
            let end = layout(ofGroup: group, member: 0).end
            invariant(end <= bytes.count, "TextColumn group \(group) ends past the bytes")
            extents.append((start, end, Int(groupSlack[group])))
        }
        extents.sort { $0.start < $1.start }
        var live = 0
        for (i, extent) in extents.enumerated() {
            live += extent.end - extent.start
            let next = i + 1 < extents.count ? extents[i + 1].start : bytes.count
            invariant(extent.end + extent.slack <= next, "TextColumn groups overlap at byte \(extent.start)")
        }
        invariant(
            live + deadBytes == bytes.count,
            "TextColumn counts \(deadBytes) dead bytes, holds \(bytes.count - live)"
        )
        for target in rebuildTarget { target.checkInvariants() }
    }
}
