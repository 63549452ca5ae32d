internal import CSiftKernels

/// A set of record slots, one bit per slot, that also answers rank (how many members precede a
/// slot) and select (the member at a position) in logarithmic time.
///
/// Member counts per block of 512 slots are kept in a Fenwick tree (a binary indexed tree), so an
/// insert or remove updates O(log *b*) counters for *b* blocks, and rank and select read
/// O(log *b*) counters plus at most eight words. At a million slots that is 128 KB of bits and
/// 8 KB of counters, against 4 MB for the slots as an array.
package struct RankedBitset {
    /// Words per block of the counts (512 slots).
    package static let wordsPerBlock = 8

    package private(set) var words: [UInt64] = []
    /// Member counts per block of `wordsPerBlock` words.
    package private(set) var tree = FenwickTree()
    /// Number of members.
    package private(set) var count = 0
    /// The greatest member, or -1 when the set is empty.
    package private(set) var last: Int32 = -1

    /// An empty set.
    package init() {}

    /// The set of the slots whose bits are set in `words`.
    ///
    /// - Complexity: O(*w*) for *w* words.
    package init(words: [UInt64]) {
        self.words = words
        let blocks = (words.count + Self.wordsPerBlock - 1) / Self.wordsPerBlock
        var counts = [Int32](repeating: 0, count: blocks)
        for (index, word) in words.enumerated() where word != 0 {
            counts[index / Self.wordsPerBlock] += Int32(word.nonzeroBitCount)
            last = Int32(index << 6 | (63 - word.leadingZeroBitCount))
        }
        for block in counts.indices { count += Int(counts[block]) }
        tree = FenwickTree(counts: counts)
    }

    /// Grows the words (and the blocks) to hold `word`.
    ///
    /// - Complexity: amortized O(1) per word, O(log *b*) per new block.
    private mutating func grow(toHold word: Int) {
        words.append(contentsOf: repeatElement(0, count: word + 1 - words.count))
        let blocks = (words.count + Self.wordsPerBlock - 1) / Self.wordsPerBlock
        while tree.count < blocks { tree.append(0) }
    }

    /// Whether the slot is a member.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    @inlinable
    package func contains(_ slot: Int32) -> Bool {
        let word = Int(slot) >> 6
        return word < words.count && words[word] & (1 << UInt64(slot & 63)) != 0
    }

    /// Adds a slot that is not a member.
    ///
    /// - Complexity: O(log *b*), plus amortized growth of the words.
    package mutating func insert(_ slot: Int32) {
        precondition(slot >= 0 && !contains(slot), "slot \(slot) is already a member")
        let word = Int(slot) >> 6
        if word >= words.count { grow(toHold: word) }
        words[word] |= 1 << UInt64(slot & 63)
        tree.add(1, to: word / Self.wordsPerBlock)
        count += 1
        if slot > last { last = slot }
    }

    /// Removes a member.
    ///
    /// - Complexity: O(log *b*).
    package mutating func remove(_ slot: Int32) {
        precondition(contains(slot), "slot \(slot) is not a member")
        let word = Int(slot) >> 6
        words[word] &= ~(1 << UInt64(slot & 63))
        tree.add(-1, to: word / Self.wordsPerBlock)
        count -= 1
        if slot == last { last = count == 0 ? -1 : self[count - 1] }
    }

    /// The number of members less than `slot` (the position of `slot` when it is a member).
    ///
    /// - Complexity: O(log *b*).
    package func rank(_ slot: Int32) -> Int {
        let word = Int(slot) >> 6
        guard word < words.count else { return count }
        let block = word / Self.wordsPerBlock
        var result = tree.prefix(block)
        for before in (block * Self.wordsPerBlock)..<word { result += words[before].nonzeroBitCount }
        return result + (words[word] & ((1 << UInt64(slot & 63)) - 1)).nonzeroBitCount
    }

    /// The member at `position` (0..<count) in ascending order.
    ///
    /// - Complexity: O(log *b*).
    package subscript(position: Int) -> Int32 {
        precondition(position >= 0 && position < count, "position \(position) out of 0..<\(count)")
        // The last block boundary with at most `position` members before it.
        var (block, remaining) = tree.locate(position)
        var word = block * Self.wordsPerBlock
        while remaining >= words[word].nonzeroBitCount {
            remaining -= words[word].nonzeroBitCount
            word += 1
        }
        return Int32(word << 6 | Self.select(remaining, in: words[word]))
    }

    /// The index of the set bit of `word` that has `rank` set bits below it.
    @inline(__always)
    private static func select(_ rank: Int, in word: UInt64) -> Int {
        var word = word
        var rank = rank
        var base = 0
        // Halve the word three times by the set bits of its lower half, then step through at
        // most seven set bits of a byte.
        let low32 = (word & 0xFFFF_FFFF).nonzeroBitCount
        if rank >= low32 {
            rank -= low32
            word >>= 32
            base += 32
        }
        let low16 = (word & 0xFFFF).nonzeroBitCount
        if rank >= low16 {
            rank -= low16
            word >>= 16
            base += 16
        }
        let low8 = (word & 0xFF).nonzeroBitCount
        if rank >= low8 {
            rank -= low8
            word >>= 8
            base += 8
        }
        for _ in 0..<rank { word &= word - 1 }
        return base + word.trailingZeroBitCount
    }

    /// Members in ascending order.
    ///
    /// - Complexity: O(*w* + *n*) for *w* words and *n* members.
    package var members: [Int32] {
        guard count > 0 else { return [] }
        return [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
            words.withUnsafeBufferPointer { words in
                initialized = sift_bits_to_slots(words.baseAddress!, words.count, buffer.baseAddress!)
            }
        }
    }

    /// The members that are also members of `bits`, ascending.
    ///
    /// - Complexity: O(*w* + *m*) for *w* words and *m* common members; O(*k*) for a sparse
    ///   `bits` of *k* members.
    package func members(of bits: Bitset) -> [Int32] {
        if let sparse = bits.sparseMembers { return sparse.filter { contains($0) } }
        let bitsWords = bits.words
        let wordCount = min(words.count, bitsWords.count)
        guard wordCount > 0 else { return [] }
        var common = 0
        let both = [UInt64](unsafeUninitializedCapacity: wordCount) { buffer, initialized in
            for index in 0..<wordCount {
                let word = words[index] & bitsWords[index]
                buffer[index] = word
                common += word.nonzeroBitCount
            }
            initialized = wordCount
        }
        guard common > 0 else { return [] }
        return [Int32](unsafeUninitializedCapacity: common) { buffer, initialized in
            both.withUnsafeBufferPointer { both in
                initialized = sift_bits_to_slots(both.baseAddress!, both.count, buffer.baseAddress!)
            }
        }
    }

    /// Drops spare capacity, keeping a little headroom for new slots.
    ///
    /// - Complexity: O(*w*).
    package mutating func trimCapacity() {
        words = withHeadroom(words)
        tree.trimCapacity()
    }

    /// Heap bytes used.
    package var memoryFootprint: Int { 8 * words.capacity + tree.memoryFootprint }
}
