extension RankedBitset {
    /// Checks the counts against the bits: `count` is the number of set bits, `last` the greatest,
    /// and the tree's count of each block the set bits of its words.
    ///
    /// - Complexity: O(*w* + *b* log *b*) for *w* words in *b* blocks.
    package func checkInvariants() {
        tree.checkInvariants()
        let total = words.reduce(0) { $0 + $1.nonzeroBitCount }
        invariant(total == count, "RankedBitset counts \(count) members, its bits \(total)")
        let greatest = words.indices.last { words[$0] != 0 }.map { Int32($0 << 6 + 63 - words[$0].leadingZeroBitCount) }
        invariant((greatest ?? -1) == last, "RankedBitset's last is \(last), its bits' \(greatest ?? -1)")
        let blocks = (words.count + Self.wordsPerBlock - 1) / Self.wordsPerBlock
        invariant(tree.count >= blocks, "RankedBitset has \(blocks) blocks, its tree \(tree.count)")
        for block in 0..<tree.count {
            let range = (block * Self.wordsPerBlock)..<min(words.count, (block + 1) * Self.wordsPerBlock)
            let bits = range.isEmpty ? 0 : words[range].reduce(0) { $0 + $1.nonzeroBitCount }
            invariant(
                tree.bucketCount(block) == bits,
                "RankedBitset block \(block) counts \(tree.bucketCount(block)), its bits \(bits)"
            )
        }
    }
}
