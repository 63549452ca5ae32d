internal import CSiftKernels

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
/// In blocks, slots are kept in blocks of at most `maximumBlock` entries; each slot remembers its
/// block, and the blocks' sizes are a Fenwick tree, a block's start being a prefix sum. An edit
/// shifts at most one block's entries and updates O(log *b*) tree nodes, so at a million records
/// an insert or delete touches a few kilobytes instead of moving four megabytes.
struct SlotSequence {
    private static let maximumBlock = 1024
    private static let bulkBlock = 512

    /// The slots while they are ascending (then the blocks are empty); empty once in blocks.
    private var ascending = RankedBitset()
    /// Whether the slots are `ascending` rather than in the blocks.
    private(set) var isAscending = true

    private var blocks: [[Int32]] = []
    /// The blocks' entry counts: a block's start is a prefix sum, and an insert or remove updates
    /// O(log *b*) nodes instead of shifting the start of every later block (a few kilobytes of
    /// memory an edit touched, mostly cold).
    private var sizeTree = FenwickTree()
    /// Stable identifier of each block (blocks move in `blocks` when one is split or removed).
    private var blockIDs: [Int32] = []
    /// Index in `blocks` of each block identifier.
    private var indexOfBlockID: [Int32] = []
    /// Block identifier of each slot, or -1 when the slot is not in the sequence.
    private var blockOfSlot: [Int32] = []
    private(set) var count = 0

    init() {}

    /// A sequence holding `slots` in order: implicit when they are strictly ascending, in blocks
    /// otherwise.
    ///
    /// - Complexity: O(*n* + *s*) for *n* slots up to slot *s*.
    init<S: Sequence>(_ slots: S) where S.Element == Int32 {
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
            appendInBlocks(slot)
            while let slot = iterator.next() { appendInBlocks(slot) }
            return
        }
        ascending = RankedBitset(words: words)
    }

    /// Moves the slots from `ascending` to blocks of `bulkBlock` entries.
    ///
    /// - Complexity: O(*n* + *s*) for *n* slots up to slot *s*.
    private mutating func convertToBlocks() {
        let slots = ascending.members
        ascending = RankedBitset()
        isAscending = false
        count = 0
        // Room (written, so that its pages are there) for the slots the next inserts add: without
        // it the first new slot would copy the whole table.
        let slotCount = Int(slots.last ?? -1) + 1
        let headroom = max(1024, slotCount / 64)
        blockOfSlot = [Int32](repeating: -1, count: slotCount + headroom)
        blockOfSlot.removeLast(headroom)
        for start in stride(from: 0, to: slots.count, by: Self.bulkBlock) {
            appendBlock(Self.editableBlock(slots[start..<min(slots.count, start + Self.bulkBlock)]))
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

    /// Appends a slot in blocks, filling the last block up to `bulkBlock` entries.
    private mutating func appendInBlocks(_ slot: Int32) {
        if let last = blocks.indices.last, blocks[last].count < Self.bulkBlock {
            blocks[last].append(slot)
            setBlock(of: slot, to: blockIDs[last])
            addSize(1, toBlock: last)
            count += 1
        } else {
            var block: [Int32] = []
            block.reserveCapacity(Self.bulkBlock)
            block.append(slot)
            appendBlock(block)
        }
    }

    private mutating func appendBlock(_ block: [Int32]) {
        let id = Int32(indexOfBlockID.count)
        indexOfBlockID.append(Int32(blocks.count))
        blockIDs.append(id)
        blocks.append(block)
        sizeTree.append(block.count)
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

    /// Drops spare capacity (after a bulk load): while ascending, the bits and counts keep a
    /// little headroom; in blocks, each block keeps only its entries (the next insert into one
    /// copies at most `maximumBlock` entries), the per-slot table 1/16 headroom.
    ///
    /// - Complexity: O(*n*).
    mutating func trimCapacity() {
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
        blockOfSlot = withHeadroom(blockOfSlot)
    }

    /// Heap bytes used: while ascending, about one bit per slot.
    ///
    /// - Complexity: O(*b*) for *b* blocks (O(1) while ascending).
    var memoryFootprint: Int {
        ascending.memoryFootprint + blocks.reduce(0) { $0 + 4 * $1.capacity + 32 } + sizeTree.memoryFootprint
            + 4 * blockIDs.capacity + 4 * indexOfBlockID.capacity + 4 * blockOfSlot.capacity
    }

    /// Whether the slot is in the sequence.
    ///
    /// - Complexity: O(1).
    func contains(_ slot: Int32) -> Bool {
        if isAscending { return ascending.contains(slot) }
        return Int(slot) < blockOfSlot.count && blockOfSlot[Int(slot)] >= 0
    }

    /// The position of a block's first entry: the entries of the blocks before it.
    ///
    /// - Complexity: O(log *b*).
    private func start(ofBlock block: Int) -> Int { sizeTree.prefix(block) }

    /// Adds `delta` to a block's entry count.
    private mutating func addSize(_ delta: Int32, toBlock block: Int) { sizeTree.add(delta, to: block) }

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
    subscript(position: Int) -> Int32 {
        if isAscending { return ascending[position] }
        let (block, offset) = locate(position)
        return blocks[block][offset]
    }

    /// The position of a slot that is in the sequence.
    ///
    /// - Complexity: O(log *b*) while ascending, O(*k*) in blocks of at most *k* = 1024 entries.
    func position(of slot: Int32) -> Int {
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
    mutating func insert(_ slot: Int32, at position: Int) {
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
        addSize(1, toBlock: block)
        count += 1
    }

    /// Removes and returns the slot at `position`.
    ///
    /// - Complexity: O(log *b*) while ascending, O(*k* + log *b*) in blocks (O(*b*) more when a
    ///   block empties).
    @discardableResult
    mutating func remove(at position: Int) -> Int32 {
        if isAscending {
            let slot = ascending[position]
            ascending.remove(slot)
            count -= 1
            return slot
        }
        let (block, offset) = locate(position)
        let slot = blocks[block].remove(at: offset)
        blockOfSlot[Int(slot)] = -1
        count -= 1
        if blocks[block].isEmpty {
            blocks.remove(at: block)
            blockIDs.remove(at: block)
            rebuildSizeTree()
            reindexBlocks(from: block)
        } else {
            addSize(-1, toBlock: block)
        }
        return slot
    }

    /// Removes a slot that is in the sequence.
    ///
    /// - Complexity: O(log *b*) while ascending, O(*k* + log *b*) in blocks.
    mutating func remove(_ slot: Int32) {
        if isAscending {
            ascending.remove(slot)
            count -= 1
            return
        }
        remove(at: position(of: slot))
    }

    private mutating func split(_ block: Int) {
        let half = blocks[block].count / 2
        let tail = Self.editableBlock(blocks[block][half...])
        blocks[block].removeSubrange(half...)
        let id = Int32(indexOfBlockID.count)
        indexOfBlockID.append(0)
        blocks.insert(tail, at: block + 1)
        blockIDs.insert(id, at: block + 1)
        rebuildSizeTree()
        for s in tail { blockOfSlot[Int(s)] = id }
        reindexBlocks(from: block + 1)
    }

    /// All slots in order.
    ///
    /// - Complexity: O(*n*) (plus O(*s* / 64) for slots up to *s* while ascending).
    var array: [Int32] {
        if isAscending { return ascending.members }
        var result: [Int32] = []
        result.reserveCapacity(count)
        for block in blocks { result.append(contentsOf: block) }
        return result
    }

    /// The members of `bits` that are in the sequence, in sequence order. `memberCount` is the
    /// number of members of `bits`.
    ///
    /// - Complexity: while ascending, O(*s* / 64 + *m*) for slots up to *s* and *m* results (a
    ///   word-wise intersection); in blocks, O(min(*n*, *m* · *k*)) for *m* members: only blocks
    ///   holding a member are read.
    func members(of bits: Bitset, count memberCount: Int) -> [Int32] {
        if isAscending { return ascending.members(of: bits) }
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
        result = [Int32](repeating: 0, count: memberCount)
        var written = 0
        bits.words.withUnsafeBufferPointer { words in
            result.withUnsafeMutableBufferPointer { out in
                marked.forEach { block in
                    blocks[Int(block)].withUnsafeBufferPointer { slots in
                        written += sift_select_in_order(
                            slots.baseAddress!, slots.count, words.baseAddress!, words.count, out.baseAddress! + written)
                    }
                }
            }
        }
        result.removeLast(result.count - written)
        return result
    }
}
