internal import CSiftKernels

extension FoldedColumn {
    /// The smallest distance of `pattern` to a record word of the segment of `slot` (with the
    /// pattern's `requireWordStart` unset: to the field from its start) if at most `maxEdits`, else
    /// `maxEdits` + 1 (also when the slot has no segment). See `TypoTolerance`.
    ///
    /// - Complexity: O(*s* · *m*) in the size of the segment and the pattern, at worst; the
    ///   kernel's filter and cut-offs make it about O(*s*).
    mutating func typoDistance(slot: Int32, pattern: sift_scan_pattern, maxEdits: Int) -> Int {
        guard let segment = segment(ofSlot: slot) else { return maxEdits + 1 }
        return withKernelView { view in
            var view = view
            var pattern = pattern
            return Int(sift_typo_one_segment(&view, &pattern, segment, Int32(maxEdits)))
        }
    }

    /// The record words of the segment of `slot` within `maxEdits` of `pattern`: each one's first
    /// element (its index in the segment) and the number of elements of its nearest prefix.
    ///
    /// - Complexity: O(*s* · *m*) at worst, as `typoDistance`.
    func typoMatches(slot: Int32, pattern: sift_scan_pattern, maxEdits: Int) -> [(element: Int, count: Int)] {
        guard let segment = segment(ofSlot: slot) else { return [] }
        let (start, end) = bounds(ofSegment: segment)
        let capacity = max(1, end - start)
        var pairs = [Int32](repeating: 0, count: 2 * capacity)
        let found = withKernelView { view in
            var view = view
            var pattern = pattern
            return pairs.withUnsafeMutableBufferPointer { pairs in
                sift_typo_matches_in_segment(&view, &pattern, segment, Int32(maxEdits), pairs.baseAddress!, capacity)
            }
        }
        return (0..<found).map { (Int(pairs[2 * $0]), Int(pairs[2 * $0 + 1])) }
    }
}
