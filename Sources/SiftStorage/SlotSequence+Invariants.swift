extension SlotSequence {
    /// Checks either form. Implicit: the bits' own checks, and `count` members. In blocks: no
    /// block empty or over `maximumBlock`, the size tree's counts the blocks' sizes, `count` their
    /// sum, every slot once, labels strictly increasing along the sequence and inside the label
    /// space, each block's first label recorded, and `labelOfSlot` giving each member's label and
    /// no other slot one.
    ///
    /// - Complexity: O(*n* + *s*) for *n* entries and *s* slots.
    package func checkInvariants() {
        if isAscending {
            ascending.checkInvariants()
            invariant(ascending.count == count, "SlotSequence counts \(count), its bits \(ascending.count)")
            invariant(blocks.isEmpty, "an ascending SlotSequence holds blocks")
            return
        }
        sizeTree.checkInvariants()
        invariant(
            sizeTree.count == blocks.count,
            "SlotSequence has \(blocks.count) blocks, its size tree \(sizeTree.count)"
        )
        invariant(
            firstLabels.count == blocks.count,
            "SlotSequence has \(blocks.count) blocks, \(firstLabels.count) first labels"
        )
        var total = 0
        var previous: UInt64 = 0
        var seen = Set<Int32>()
        for (number, block) in blocks.enumerated() {
            invariant(
                !block.isEmpty && block.count <= Self.maximumBlock,
                "SlotSequence block \(number) holds \(block.count)"
            )
            invariant(sizeTree.bucketCount(number) == block.count, "SlotSequence block \(number)'s size is miscounted")
            total += block.count
            for (offset, slot) in block.enumerated() {
                invariant(slot >= 0 && Int(slot) < labelOfSlot.count, "SlotSequence holds slot \(slot) without a label")
                invariant(seen.insert(slot).inserted, "SlotSequence holds slot \(slot) twice")
                let label = labelOfSlot[Int(slot)]
                invariant(label > previous && label < labelLimit, "SlotSequence labels do not increase at slot \(slot)")
                if offset == 0 { invariant(firstLabels[number] == label, "SlotSequence block \(number)'s first label") }
                previous = label
            }
        }
        invariant(total == count, "SlotSequence counts \(count), its blocks hold \(total)")
        let labelled = labelOfSlot.lazy.filter { $0 != Self.absent }.count
        invariant(labelled == count, "SlotSequence labels \(labelled) slots, holds \(count)")
    }
}
