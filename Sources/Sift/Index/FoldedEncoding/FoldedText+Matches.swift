extension FoldedText {
    /// ICU usearch's matches of a pattern's elements in this folded text, straight from the
    /// folding (no index): the same acceptance rules the index applies through its flags.
    /// Used for text a `String` cannot hold (lone surrogates).
    ///
    /// - Complexity: O(*n* · *m*) for *n* text elements and *m* pattern elements.
    func matches(of pattern: [Int64]) -> [Range<Int>] {
        let m = pattern.count
        guard m > 0, elements.count >= m else { return [] }
        var ranges: [Range<Int>] = []
        var i = 0
        while i + m <= elements.count {
            let last = i + m - 1
            if flags[i] & FoldFlags.startOK != 0, flags[last] & FoldFlags.endOK != 0,
                elements[i...last].elementsEqual(pattern)
            {
                let lower = Int(lows[i])
                let upper = Int(limits[last])
                ranges.append(lower..<max(lower, upper))
                i = last + 1
                while i < elements.count && Int(lows[i]) < upper { i += 1 }
            } else {
                i += 1
            }
        }
        return ranges
    }
}
