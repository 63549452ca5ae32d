internal import CSiftKernels

/// An ordered sequence of record slots (the original list, or the list in collation order)
/// that supports insert, remove and position lookups in time independent of the list's length
/// for practical sizes.
///
/// Slots are kept in blocks of at most `maximumBlock` entries; each slot remembers its block, and
/// each block its starting position. An edit shifts at most one block's entries plus one
/// integer per block, so at a million records an insert or delete touches a few thousand words
/// instead of moving four megabytes.
struct SlotSequence {
    private static let maximumBlock = 1024
    private static let bulkBlock = 512

    private var blocks: [[Int32]] = []
    /// Position of the first entry of each block.
    private var blockStarts: [Int] = []
    /// Stable identifier of each block (blocks move in `blocks` when one is split or removed).
    private var blockIDs: [Int32] = []
    /// Index in `blocks` of each block identifier.
    private var indexOfBlockID: [Int32] = []
    /// Block identifier of each slot, or -1 when the slot is not in the sequence.
    private var blockOfSlot: [Int32] = []
    private(set) var count = 0

    init() {}

    /// A sequence holding `slots` in order.
    ///
    /// - Complexity: O(*n*).
    init<S: Sequence>(_ slots: S) where S.Element == Int32 {
        blockOfSlot.reserveCapacity(slots.underestimatedCount)
        var block: [Int32] = []
        block.reserveCapacity(Self.bulkBlock)
        for slot in slots {
            block.append(slot)
            if block.count == Self.bulkBlock {
                appendBlock(block)
                block.removeAll(keepingCapacity: true)
            }
        }
        if !block.isEmpty { appendBlock(block) }
    }

    private mutating func appendBlock(_ block: [Int32]) {
        let id = Int32(indexOfBlockID.count)
        indexOfBlockID.append(Int32(blocks.count))
        blockIDs.append(id)
        blockStarts.append(count)
        blocks.append(block)
        for slot in block { setBlock(of: slot, to: id) }
        count += block.count
    }

    /// Index in `blocks` of the block holding a slot.
    @inline(__always)  // two loads
    private func blockIndex(of slot: Int32) -> Int { Int(indexOfBlockID[Int(blockOfSlot[Int(slot)])]) }

    private mutating func reindexBlocks(from first: Int) {
        for index in first..<blocks.count { indexOfBlockID[Int(blockIDs[index])] = Int32(index) }
    }

    @inline(__always)  // one store, with growth on first sight of a slot
    private mutating func setBlock(of slot: Int32, to block: Int32) {
        let i = Int(slot)
        // The array's own growth is geometric: growing the count only as far as needed keeps
        // appends amortized O(1) without doubling the table's length.
        if i >= blockOfSlot.count { blockOfSlot.append(contentsOf: repeatElement(-1, count: i + 1 - blockOfSlot.count)) }
        blockOfSlot[i] = block
    }

    /// Drops spare capacity (after a bulk load): each block keeps only its entries (the next
    /// insert into one copies at most `maximumBlock` entries), the per-slot table 1/16 headroom.
    ///
    /// - Complexity: O(*n*).
    mutating func trimCapacity() {
        for index in blocks.indices where blocks[index].capacity > blocks[index].count + blocks[index].count / 8 {
            var trimmed: [Int32] = []
            trimmed.reserveCapacity(blocks[index].count)
            trimmed.append(contentsOf: blocks[index])
            blocks[index] = trimmed
        }
        blockOfSlot = withHeadroom(blockOfSlot)
    }

    /// Heap bytes used.
    var memoryFootprint: Int {
        blocks.reduce(0) { $0 + 4 * $1.capacity + 32 } + 8 * blockStarts.capacity + 4 * blockIDs.capacity
            + 4 * indexOfBlockID.capacity + 4 * blockOfSlot.capacity
    }

    /// Whether the slot is in the sequence.
    ///
    /// - Complexity: O(1).
    func contains(_ slot: Int32) -> Bool { Int(slot) < blockOfSlot.count && blockOfSlot[Int(slot)] >= 0 }

    /// The block holding a position, and the offset in it.
    private func locate(_ position: Int) -> (block: Int, offset: Int) {
        var low = 0, high = blocks.count - 1
        while low < high {
            let mid = (low + high + 1) >> 1
            if blockStarts[mid] <= position { low = mid } else { high = mid - 1 }
        }
        return (low, position - blockStarts[low])
    }

    /// The slot at a position.
    ///
    /// - Complexity: O(log *b*) for *b* blocks.
    subscript(position: Int) -> Int32 {
        let (block, offset) = locate(position)
        return blocks[block][offset]
    }

    /// The position of a slot that is in the sequence.
    ///
    /// - Complexity: O(*k*) for blocks of at most *k* = 1024 entries.
    func position(of slot: Int32) -> Int {
        let block = blockIndex(of: slot)
        return blockStarts[block] + blocks[block].firstIndex(of: slot)!
    }

    /// Inserts a slot so that it ends up at `position` (0...count).
    ///
    /// - Complexity: O(*k* + *b*) for blocks of *k* entries and *b* blocks.
    mutating func insert(_ slot: Int32, at position: Int) {
        if blocks.isEmpty {
            appendBlock([slot])
            return
        }
        var (block, offset) = position == count ? (blocks.count - 1, blocks[blocks.count - 1].count) : locate(position)
        if position == count, blocks[block].count >= Self.maximumBlock {
            // Appending: a new block, so that appended runs fill their blocks instead of leaving
            // every block split in half.
            appendBlock([slot])
            return
        }
        if blocks[block].count >= Self.maximumBlock {
            split(block)
            if offset >= blocks[block].count {
                offset -= blocks[block].count
                block += 1
            }
        }
        blocks[block].insert(slot, at: offset)
        setBlock(of: slot, to: blockIDs[block])
        for later in (block + 1)..<blocks.count { blockStarts[later] += 1 }
        count += 1
    }

    /// Removes and returns the slot at `position`.
    ///
    /// - Complexity: O(*k* + *b*).
    @discardableResult
    mutating func remove(at position: Int) -> Int32 {
        let (block, offset) = locate(position)
        let slot = blocks[block].remove(at: offset)
        blockOfSlot[Int(slot)] = -1
        count -= 1
        if blocks[block].isEmpty {
            blocks.remove(at: block)
            blockStarts.remove(at: block)
            blockIDs.remove(at: block)
            for later in block..<blocks.count { blockStarts[later] -= 1 }
            reindexBlocks(from: block)
        } else {
            for later in (block + 1)..<blocks.count { blockStarts[later] -= 1 }
        }
        return slot
    }

    /// Removes a slot that is in the sequence.
    ///
    /// - Complexity: O(*k* + *b*).
    mutating func remove(_ slot: Int32) { remove(at: position(of: slot)) }

    private mutating func split(_ block: Int) {
        let half = blocks[block].count / 2
        let tail = Array(blocks[block][half...])
        blocks[block].removeSubrange(half...)
        let id = Int32(indexOfBlockID.count)
        indexOfBlockID.append(0)
        blocks.insert(tail, at: block + 1)
        blockIDs.insert(id, at: block + 1)
        blockStarts.insert(blockStarts[block] + half, at: block + 1)
        for s in tail { blockOfSlot[Int(s)] = id }
        reindexBlocks(from: block + 1)
    }

    /// All slots in order.
    ///
    /// - Complexity: O(*n*).
    var array: [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        for block in blocks { result.append(contentsOf: block) }
        return result
    }

    /// The members of `bits` in sequence order.
    ///
    /// - Complexity: O(min(*n*, *m* · *k*)) for *m* members: only blocks holding a member are read.
    func members(of bits: Bitset, count memberCount: Int) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(memberCount)
        if memberCount * 64 >= count {
            result = [Int32](repeating: 0, count: memberCount)
            var written = 0
            bits.words.withUnsafeBufferPointer { words in
                result.withUnsafeMutableBufferPointer { out in
                    for block in blocks {
                        block.withUnsafeBufferPointer { slots in
                            written += sift_select_in_order(
                                slots.baseAddress!, slots.count, words.baseAddress!, words.count,
                                out.baseAddress! + written)
                        }
                    }
                }
            }
            result.removeLast(result.count - written)
            return result
        }
        var marked = Bitset(capacity: blocks.count)
        bits.forEach { slot in if contains(slot) { marked.insert(Int32(blockIndex(of: slot))) } }
        marked.forEach { block in
            for slot in blocks[Int(block)] where bits.contains(slot) { result.append(slot) }
        }
        return result
    }
}
