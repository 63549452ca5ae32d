internal import CSiftKernels
internal import Dispatch

/// An ordered sequence of record slots (the original list, or the list in collation order)
/// that supports insert, remove and position lookups in time independent of the list's length
/// for practical sizes.
///
/// While the slots are in ascending order (every insert so far put its slot where ascending
/// order puts it, as a bulk load, appends of new slots and loading a snapshot do), the sequence
/// is implicit: a ``RankedBitset`` of its slots, one bit per slot plus a count per 512 slots, a
/// position being a rank and the slot at a position a select. The first insert anywhere else
/// converts it, once, to blocks.
///
/// In blocks, slots are kept in blocks of at most `maximumBlock` entries, and the blocks' sizes
/// are a Fenwick tree, a block's start being a prefix sum. An edit shifts at most one block's
/// entries and updates O(log *b*) tree nodes, so at a million records an insert or delete touches
/// a few kilobytes instead of moving four megabytes. Each slot also has an *order label*, a
/// 64-bit number that increases along the sequence (the order-maintenance technique): the block
/// holding a slot is a binary search of its label among the blocks' first labels, and a sparse
/// subset of the slots is put in sequence order by sorting the members' labels, reading
/// O(*m*) labels instead of every block.
package struct SlotSequence {
    package static let maximumBlock = 1024
    private static let bulkBlock = 512
    /// The label of a slot that is not in the sequence (no entry has it: labels lie strictly
    /// between 0 and this).
    package static let absent = UInt64.max

    /// The slots while they are ascending (then the blocks are empty); empty once in blocks.
    package private(set) var ascending = RankedBitset()
    /// Whether the slots are `ascending` rather than in the blocks.
    package private(set) var isAscending = true

    package private(set) var blocks: [[Int32]] = []
    /// The blocks' entry counts: a block's start is a prefix sum, and an insert or remove updates
    /// O(log *b*) nodes instead of shifting the start of every later block (a few kilobytes of
    /// memory an edit touched, mostly cold).
    package private(set) var sizeTree = FenwickTree()
    /// The label of each block's first entry, ascending (blocks are never empty).
    package private(set) var firstLabels: [UInt64] = []
    /// The order label of each slot, or `absent` when the slot is not in the sequence.
    package private(set) var labelOfSlot: [UInt64] = []
    /// The gap between the labels that appends and relabeling give out.
    private var spacing: UInt64 = 1 << 40
    /// Labels lie strictly between 0 and this (`absent` but in tests, which shrink the label
    /// space to make relabeling happen).
    package let labelLimit: UInt64
    package private(set) var count = 0

    package init() { labelLimit = Self.absent }

    /// A sequence holding `slots` in order: implicit when they are strictly ascending, in blocks
    /// otherwise. `labelLimit` bounds the order labels (tests use a small one).
    ///
    /// - Complexity: O(*n* + *s*) for *n* slots up to slot *s*.
    package init<S: Sequence>(_ slots: S, labelLimit: UInt64 = Self.absent) where S.Element == Int32 {
        self.labelLimit = labelLimit
        var words: [UInt64] = []
        var previous: Int32 = -1
        var iterator = slots.makeIterator()
        while let slot = iterator.next() {
            if slot > previous {
                let word = Int(slot) >> 6
                if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
                words[word] |= 1 << UInt64(slot & 63)
                previous = slot
                count += 1
                continue
            }
            // Not ascending: the slots so far, this one and the rest go to blocks.
            ascending = RankedBitset(words: words)
            words = []
            convertToBlocks()
            append(slot, fillingBlocksTo: Self.bulkBlock)
            while let slot = iterator.next() { append(slot, fillingBlocksTo: Self.bulkBlock) }
            return
        }
        ascending = RankedBitset(words: words)
    }

    /// Where fresh labels start: a quarter of the space is left below them for prepends, as
    /// half is above them for appends.
    private var firstLabelBase: UInt64 { labelLimit / 4 > spacing ? labelLimit / 4 - spacing : 0 }

    /// The label gap that fits about `count` entries in a quarter of the label space (the rest
    /// is room for prepends and appends): 2^42 for a million.
    private func spacing(for count: Int) -> UInt64 {
        let bits = Int.bitWidth - (count + 1).leadingZeroBitCount
        return max(16, (labelLimit >> 2) >> UInt64(bits))
    }

    /// Moves the slots from `ascending` to blocks of `bulkBlock` entries.
    ///
    /// - Complexity: O(*n* + *s*) for *n* slots up to slot *s*.
    private mutating func convertToBlocks() {
        let slots = ascending.members
        ascending = RankedBitset()
        isAscending = false
        count = 0
        spacing = spacing(for: slots.count)
        // Room (written, so that its pages are there) for the slots the next inserts add: without
        // it the first new slot would copy the whole table.
        let slotCount = Int(slots.last ?? -1) + 1
        let headroom = max(1024, slotCount / 64)
        labelOfSlot = [UInt64](repeating: Self.absent, count: slotCount + headroom)
        labelOfSlot.removeLast(headroom)
        var label = firstLabelBase
        for start in stride(from: 0, to: slots.count, by: Self.bulkBlock) {
            let block = slots[start..<min(slots.count, start + Self.bulkBlock)]
            for slot in block {
                label += spacing
                labelOfSlot[Int(slot)] = label
            }
            appendBlock(Self.editableBlock(block))
        }
    }

    /// A block holding `slots` with room (written once, so that its pages are really there) for
    /// `maximumBlock` entries: the inserts that follow a conversion or a split neither reallocate
    /// the block nor take a page fault, which made the slowest edits.
    private static func editableBlock(_ slots: ArraySlice<Int32>) -> [Int32] {
        var block: [Int32] = []
        block.reserveCapacity(maximumBlock)
        block.append(contentsOf: repeatElement(0, count: maximumBlock))
        block.removeAll(keepingCapacity: true)
        block.append(contentsOf: slots)
        return block
    }

    /// Appends a slot in blocks: to the last block while it holds fewer than `limit` entries (a
    /// building sequence fills blocks to `bulkBlock`; appends fill them to `maximumBlock`, so that
    /// appended runs do not leave every block split in half), else to a new block.
    private mutating func append(_ slot: Int32, fillingBlocksTo limit: Int) {
        setLabel(of: slot, to: appendLabel())
        if let last = blocks.indices.last, blocks[last].count < limit {
            blocks[last].append(slot)
            sizeTree.add(1, to: last)
            count += 1
        } else {
            var block: [Int32] = []
            block.reserveCapacity(limit)
            block.append(slot)
            appendBlock(block)
        }
    }

    /// Appends a block whose entries are labeled already.
    private mutating func appendBlock(_ block: [Int32]) {
        firstLabels.append(labelOfSlot[Int(block[0])])
        blocks.append(block)
        sizeTree.append(block.count)
        count += block.count
    }

    // MARK: Labels

    /// The label of the last entry, or where fresh labels start when there is none.
    private var lastLabel: UInt64 {
        guard let last = blocks.last?.last else { return firstLabelBase }
        return labelOfSlot[Int(last)]
    }

    /// A label after every entry's, relabeling everything first when the label space has run out
    /// (after some millions of appends).
    private mutating func appendLabel() -> UInt64 {
        let last = lastLabel
        if labelLimit - last > spacing { return last + spacing }
        relabelAll(room: 1)
        return lastLabel + spacing
    }

    @inline(__always)  // one store, with growth on first sight of a slot
    private mutating func setLabel(of slot: Int32, to label: UInt64) {
        let i = Int(slot)
        // The array's own growth is geometric: growing the count only as far as needed keeps
        // appends amortized O(1) without doubling the table's length.
        if i >= labelOfSlot.count {
            labelOfSlot.append(contentsOf: repeatElement(Self.absent, count: i + 1 - labelOfSlot.count))
        }
        labelOfSlot[i] = label
    }

    /// The label of the entry before (`block`, `offset`), or 0 at the start.
    private func label(before block: Int, _ offset: Int) -> UInt64 {
        if offset > 0 { return labelOfSlot[Int(blocks[block][offset - 1])] }
        return block > 0 ? labelOfSlot[Int(blocks[block - 1].last!)] : 0
    }

    /// The label of the entry at (`block`, `offset`) or the first one after it, or `labelLimit`
    /// at the end.
    private func label(at block: Int, _ offset: Int) -> UInt64 {
        if offset < blocks[block].count { return labelOfSlot[Int(blocks[block][offset])] }
        return block + 1 < blocks.count ? firstLabels[block + 1] : labelLimit
    }

    /// A label strictly between two, or nil when they are adjacent. At the ends of the sequence
    /// it steps by `spacing`, so that runs of appends or prepends keep their gaps.
    private func label(between low: UInt64, and high: UInt64) -> UInt64? {
        let gap = high - low
        if high == labelLimit, gap > spacing { return low + spacing }
        if low == 0, gap > spacing { return high - spacing }
        return gap >= 2 ? low + gap / 2 : nil
    }

    /// Spreads a block's labels evenly over the room between its neighbors' labels, or, when that
    /// room is too small, every label over the whole space.
    ///
    /// - Complexity: O(*k*) for a block of *k* entries (O(*n*) in the rare second case).
    private mutating func relabel(block: Int) {
        let low = label(before: block, 0)
        let high = label(at: block, blocks[block].count)
        var step = (high - low) / UInt64(blocks[block].count + 1)
        // The last block keeps the usual gaps: the rest of the space is for appends.
        if high == labelLimit { step = min(step, spacing) }
        guard step >= 16 else {
            relabelAll(room: 0)
            return
        }
        var label = low
        for slot in blocks[block] {
            label += step
            labelOfSlot[Int(slot)] = label
        }
        firstLabels[block] = labelOfSlot[Int(blocks[block][0])]
    }

    /// Gives every entry a fresh label, `spacing` (recomputed for the count plus `room`) apart.
    ///
    /// - Complexity: O(*n*).
    private mutating func relabelAll(room: Int) {
        spacing = spacing(for: 2 * (count + room))
        var label = firstLabelBase
        for index in blocks.indices {
            for slot in blocks[index] {
                label += spacing
                labelOfSlot[Int(slot)] = label
            }
            firstLabels[index] = labelOfSlot[Int(blocks[index][0])]
        }
    }

    /// Index in `blocks` of the block holding a slot: the last block whose first label is not
    /// above the slot's.
    ///
    /// - Complexity: O(log *b*).
    private func blockIndex(of slot: Int32) -> Int {
        let label = labelOfSlot[Int(slot)]
        var low = 0
        var high = firstLabels.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if firstLabels[mid] <= label { low = mid } else { high = mid }
        }
        return low
    }

    /// Drops spare capacity (after a bulk load): while ascending, the bits and counts keep a
    /// little headroom; in blocks, each block keeps only its entries (the next insert into one
    /// copies at most `maximumBlock` entries), the per-slot table 1/16 headroom.
    ///
    /// - Complexity: O(*n*).
    package mutating func trimCapacity() {
        if isAscending {
            ascending.trimCapacity()
            return
        }
        for index in blocks.indices where blocks[index].capacity > blocks[index].count + blocks[index].count / 8 {
            var trimmed: [Int32] = []
            trimmed.reserveCapacity(blocks[index].count)
            trimmed.append(contentsOf: blocks[index])
            blocks[index] = trimmed
        }
        labelOfSlot = withHeadroom(labelOfSlot)
    }

    /// Heap bytes used: while ascending, about one bit per slot.
    ///
    /// - Complexity: O(*b*) for *b* blocks (O(1) while ascending).
    package var memoryFootprint: Int {
        ascending.memoryFootprint + blocks.reduce(0) { $0 + 4 * $1.capacity + 32 } + sizeTree.memoryFootprint
            + 8 * firstLabels.capacity + 8 * labelOfSlot.capacity
    }

    /// Whether the slot is in the sequence.
    ///
    /// - Complexity: O(1).
    package func contains(_ slot: Int32) -> Bool {
        if isAscending { return ascending.contains(slot) }
        return Int(slot) < labelOfSlot.count && labelOfSlot[Int(slot)] != Self.absent
    }

    /// The position of a block's first entry: the entries of the blocks before it.
    ///
    /// - Complexity: O(log *b*).
    private func start(ofBlock block: Int) -> Int { sizeTree.prefix(block) }

    /// Rebuilds the size tree from the blocks (after blocks were inserted or removed in the middle).
    ///
    /// - Complexity: O(*b*).
    private mutating func rebuildSizeTree() { sizeTree = FenwickTree(counts: blocks.map { Int32($0.count) }) }

    /// The block holding a position (below `count`), and the offset in it: a descent of the size
    /// tree.
    ///
    /// - Complexity: O(log *b*).
    private func locate(_ position: Int) -> (block: Int, offset: Int) {
        let (block, offset) = sizeTree.locate(position)
        return (block, offset)
    }

    /// The slot at a position.
    ///
    /// - Complexity: O(log *b*) for *b* blocks (of 512 slots while ascending).
    package subscript(position: Int) -> Int32 {
        if isAscending { return ascending[position] }
        let (block, offset) = locate(position)
        return blocks[block][offset]
    }

    /// The slots in order as they are now, without the order labels: what a table showing the
    /// whole sequence reads, sharing the sequence's storage (an edit of the sequence afterwards
    /// copies what it writes: the block list, one block and the size tree, or while ascending
    /// the bits and their counts).
    ///
    /// - Complexity: O(1).
    package var slotsInOrder: SlotsInOrder {
        SlotsInOrder(ascending: isAscending ? ascending : nil, blocks: blocks, sizeTree: sizeTree, count: count)
    }

    /// The position of a slot that is in the sequence.
    ///
    /// - Complexity: O(log *b*) while ascending, O(*k*) in blocks of at most *k* = 1024 entries.
    package func position(of slot: Int32) -> Int {
        if isAscending { return ascending.rank(slot) }
        let block = blockIndex(of: slot)
        return start(ofBlock: block) + blocks[block].firstIndex(of: slot)!
    }

    /// Inserts a slot so that it ends up at `position` (0...count).
    ///
    /// While ascending, a slot that lands where ascending order puts it keeps the sequence
    /// ascending; any other converts it to blocks first.
    ///
    /// - Complexity: O(log *b*) while the sequence stays ascending; O(*k* + log *b*) in blocks of
    ///   *k* entries (O(*b*) more when a full block splits); the conversion to blocks costs O(*n*),
    ///   once.
    package mutating func insert(_ slot: Int32, at position: Int) {
        if isAscending {
            let inPlace =
                position == count
                ? slot > ascending.last
                : !ascending.contains(slot) && ascending.rank(slot) == position
            if inPlace {
                ascending.insert(slot)
                count += 1
                return
            }
            convertToBlocks()
        }
        if blocks.isEmpty || position == count {
            append(slot, fillingBlocksTo: Self.maximumBlock)
            return
        }
        var (block, offset) = locate(position)
        if blocks[block].count >= Self.maximumBlock {
            split(block)
            if offset >= blocks[block].count {
                offset -= blocks[block].count
                block += 1
            }
        }
        let label = label(between: label(before: block, offset), and: label(at: block, offset))
        blocks[block].insert(slot, at: offset)
        sizeTree.add(1, to: block)
        count += 1
        if let label {
            setLabel(of: slot, to: label)
            if offset == 0 { firstLabels[block] = label }
        } else {
            setLabel(of: slot, to: 0)  // grows the table; the relabel writes the real label
            relabel(block: block)
        }
    }

    /// Removes and returns the slot at `position`.
    ///
    /// - Complexity: O(log *b*) while ascending, O(*k* + log *b*) in blocks (O(*b*) more when a
    ///   block empties).
    @discardableResult
    package mutating func remove(at position: Int) -> Int32 {
        if isAscending {
            let slot = ascending[position]
            ascending.remove(slot)
            count -= 1
            return slot
        }
        let (block, offset) = locate(position)
        let slot = blocks[block].remove(at: offset)
        labelOfSlot[Int(slot)] = Self.absent
        count -= 1
        if blocks[block].isEmpty {
            blocks.remove(at: block)
            firstLabels.remove(at: block)
            rebuildSizeTree()
        } else {
            sizeTree.add(-1, to: block)
            if offset == 0 { firstLabels[block] = labelOfSlot[Int(blocks[block][0])] }
        }
        return slot
    }

    /// Removes a slot that is in the sequence.
    ///
    /// - Complexity: O(log *b*) while ascending, O(*k* + log *b*) in blocks.
    package mutating func remove(_ slot: Int32) {
        if isAscending {
            ascending.remove(slot)
            count -= 1
            return
        }
        remove(at: position(of: slot))
    }

    /// Moves the second half of a full block to a new block after it (the labels stay).
    ///
    /// - Complexity: O(*k* + *b*).
    private mutating func split(_ block: Int) {
        let half = blocks[block].count / 2
        let tail = Self.editableBlock(blocks[block][half...])
        blocks[block].removeSubrange(half...)
        blocks.insert(tail, at: block + 1)
        firstLabels.insert(labelOfSlot[Int(tail[0])], at: block + 1)
        rebuildSizeTree()
    }

    /// All slots in order.
    ///
    /// - Complexity: O(*n*) (plus O(*s* / 64) for slots up to *s* while ascending).
    package var array: [Int32] {
        if isAscending { return ascending.members }
        var result: [Int32] = []
        result.reserveCapacity(count)
        for block in blocks { result.append(contentsOf: block) }
        return result
    }

    /// A number that increases along the sequence, for a slot in it: its order label, or, while
    /// the sequence is ascending, the slot itself. Valid until the next edit of the sequence
    /// (which may relabel), and always below `absent`.
    ///
    /// - Complexity: O(1).
    package func orderKey(of slot: Int32) -> UInt64 {
        isAscending ? UInt64(slot) : labelOfSlot[Int(slot)]
    }

    /// Calls `body` with every slot's `orderKey(of:)` by slot (the order labels), or with nil
    /// while the sequence is ascending (the key is then the slot itself).
    @inlinable
    package func withOrderKeys<R>(_ body: (UnsafePointer<UInt64>?) -> R) -> R {
        if isAscending { return body(nil) }
        return labelOfSlot.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// The members of `bits` that are in the sequence, in sequence order. `memberCount` is the
    /// number of members of `bits`.
    ///
    /// - Complexity: while ascending, O(*s* / 64 + *m*) for slots up to *s* and *m* results (a
    ///   word-wise intersection); in blocks, O(*m*) for *m* members (their labels, radix-sorted),
    ///   or O(*n*) when they are more than an eighth of the sequence (a pass over the blocks).
    /// `slots` (ascending, members of the sequence) in sequence order: for a few records, their
    /// order labels sorted.
    ///
    /// - Complexity: O(*m*) for *m* slots (a radix sort of their labels).
    package func inSequenceOrder(_ slots: [Int32]) -> [Int32] {
        if isAscending || slots.count < 2 { return slots }
        var labels: [UInt64] = []
        var result: [Int32] = []
        labels.reserveCapacity(slots.count)
        result.reserveCapacity(slots.count)
        labelOfSlot.withUnsafeBufferPointer { labelOfSlot in
            for slot in slots where Int(slot) < labelOfSlot.count && labelOfSlot[Int(slot)] != Self.absent {
                labels.append(labelOfSlot[Int(slot)])
                result.append(slot)
            }
        }
        Self.sortByLabel(&labels, &result)
        return result
    }

    /// Sorts `slots` by their `labels` (parallel arrays), with a radix sort.
    private static func sortByLabel(_ labels: inout [UInt64], _ result: inout [Int32]) {
        guard labels.count > 1 else { return }
        var labelScratch = [UInt64](repeating: 0, count: labels.count)
        var slotScratch = [Int32](repeating: 0, count: labels.count)
        labels.withUnsafeMutableBufferPointer { labels in
            result.withUnsafeMutableBufferPointer { slots in
                labelScratch.withUnsafeMutableBufferPointer { labelScratch in
                    slotScratch.withUnsafeMutableBufferPointer { slotScratch in
                        sift_sort_by_key(
                            labels.baseAddress!,
                            slots.baseAddress!,
                            labelScratch.baseAddress!,
                            slotScratch.baseAddress!,
                            labels.count
                        )
                    }
                }
            }
        }
    }

    /// Whether `handles(of:generations:tag:entriesPerThread:into:)` writes a set of `memberCount` members
    /// straight as handles: held in blocks, and the set dense enough that a pass over the order
    /// beats sorting the members' labels.
    package func writesHandles(ofMembers memberCount: Int) -> Bool { !isAscending && memberCount * 8 >= count }

    /// Writes the members of `bits` in this order to `out` as handles (the slot, then
    /// `tag | generations[slot]`), with room for one more than there are, and returns how many.
    /// An order of `entriesPerThread` slots or more is split between two threads (below about a
    /// quarter of a million, starting one costs about what it saves).
    ///
    /// - Precondition: `writesHandles(ofMembers:)`.
    /// - Complexity: O(*n*) for *n* slots, one branch-free pass, halved on two cores.
    package func handles(
        of bits: Bitset,
        generations: UnsafePointer<UInt32>?,
        tag: UInt32,
        entriesPerThread: Int = 1 << 18,
        into out: UnsafeMutablePointer<UInt64>
    ) -> Int {
        precondition(!isAscending, "in blocks only")
        return bits.words.withUnsafeBufferPointer { words in
            guard let base = words.baseAddress else { return 0 }
            // The entries at positions `range` of the order, across the blocks they span.
            func write(_ range: Range<Int>, into out: UnsafeMutablePointer<UInt64>) -> Int {
                var written = 0
                var start = 0
                for block in blocks {
                    defer { start += block.count }
                    let from = max(range.lowerBound, start) - start
                    let to = min(range.upperBound, start + block.count) - start
                    guard from < to else { continue }
                    block.withUnsafeBufferPointer { slots in
                        written += sift_select_handles_in_order(
                            slots.baseAddress! + from,
                            to - from,
                            base,
                            words.count,
                            generations,
                            tag,
                            out + written
                        )
                    }
                }
                return written
            }
            guard ParallelWork.cores > 1, count >= entriesPerThread else {
                return write(0..<count, into: out)
            }
            // Two halves of the order at once: the first writes in place, the second to a
            // scratch list copied after it (its start is known only once the first is done).
            let half = count / 2
            var scratch = [UInt64](unsafeUninitializedCapacity: count - half + 1) { _, initialized in
                initialized = count - half + 1
            }
            var written = (0, 0)
            scratch.withUnsafeMutableBufferPointer { scratch in
                let scratchBase = scratch.baseAddress!
                withUnsafeMutablePointer(to: &written) { written in
                    let halves = UncheckedWork { part in
                        if part == 0 {
                            written.pointee.0 = write(0..<half, into: out)
                        } else {
                            written.pointee.1 = write(half..<count, into: scratchBase)
                        }
                    }
                    DispatchQueue.concurrentPerform(iterations: 2) { halves.run($0) }
                }
                (out + written.0).update(from: scratchBase, count: written.1)
            }
            return written.0 + written.1
        }
    }

    package func members(of bits: Bitset, count memberCount: Int) -> [Int32] {
        if isAscending { return ascending.members(of: bits) }
        var result: [Int32] = []
        // Dense: one pass over the blocks.
        if memberCount * 8 >= count { return slotsInOrder.members(of: bits, count: memberCount) }
        // Sparse: the members' labels, sorted.
        var labels: [UInt64] = []
        labels.reserveCapacity(memberCount)
        result.reserveCapacity(memberCount)
        labelOfSlot.withUnsafeBufferPointer { labelOfSlot in
            bits.forEachMember { slot in
                guard Int(slot) < labelOfSlot.count else { return }
                let label = labelOfSlot[Int(slot)]
                if label != Self.absent {
                    labels.append(label)
                    result.append(slot)
                }
            }
        }
        Self.sortByLabel(&labels, &result)
        return result
    }
}

/// A read-only snapshot of a `SlotSequence`'s slots in order (see `SlotSequence.slotsInOrder`).
package struct SlotsInOrder: @unchecked Sendable {
    // @unchecked: value types holding arrays, never mutated after the snapshot is taken.
    fileprivate let ascending: RankedBitset?
    fileprivate let blocks: [[Int32]]
    fileprivate let sizeTree: FenwickTree
    package let count: Int

    /// The slot at a position.
    ///
    /// - Complexity: O(log *b*) for *b* blocks (of 512 slots while ascending).
    package subscript(position: Int) -> Int32 {
        if let ascending { return ascending[position] }
        let (block, offset) = sizeTree.locate(position)
        return blocks[block][offset]
    }

    /// The positions of `bits`' members in this order, as a set of positions (`0..<count`), and
    /// how many. In blocks only.
    ///
    /// - Complexity: O(*n*) for *n* slots, one branch-free pass.
    package func positions(of bits: Bitset) -> (positions: Bitset, count: Int) {
        precondition(ascending == nil, "positions of an ascending order are its members' ranks")
        var positions = Bitset(capacity: count)
        var found = 0
        var start = 0
        bits.words.withUnsafeBufferPointer { words in
            guard let base = words.baseAddress else { return }
            positions.withUnsafeMutableWords { out in
                for block in blocks where !block.isEmpty {
                    block.withUnsafeBufferPointer { slots in
                        found += sift_positions_in_order(
                            slots.baseAddress!,
                            slots.count,
                            base,
                            words.count,
                            out,
                            start
                        )
                    }
                    start += block.count
                }
            }
        }
        return (positions, found)
    }

    /// The members of `bits` (`found` of them) in this order. In blocks only.
    ///
    /// - Complexity: O(*n*) for *n* slots, one branch-free pass.
    package func members(of bits: Bitset, count found: Int) -> [Int32] {
        precondition(ascending == nil, "in blocks only")
        guard found > 0 else { return [] }  // see SnapshotReader.readArray: no empty unsafeUninitializedCapacity
        // One entry of room more than the members: the kernel writes each entry it reads.
        return bits.words.withUnsafeBufferPointer { words in
            [Int32](unsafeUninitializedCapacity: found + 1) { out, written in
                for block in blocks where !block.isEmpty {
                    block.withUnsafeBufferPointer { slots in
                        written += sift_select_in_order(
                            slots.baseAddress!,
                            slots.count,
                            words.baseAddress!,
                            words.count,
                            out.baseAddress! + written
                        )
                    }
                }
                precondition(written <= found, "no more members than counted (those outside the order are left out)")
            }
        }
    }

    /// Every slot, in order.
    ///
    /// - Complexity: O(*n*).
    package var slots: [Int32] {
        if let ascending { return ascending.members }
        var slots: [Int32] = []
        slots.reserveCapacity(count)
        for block in blocks { slots += block }
        return slots
    }
}
