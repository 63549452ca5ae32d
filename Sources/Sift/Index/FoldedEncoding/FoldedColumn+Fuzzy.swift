internal import CSiftKernels

extension FoldedColumn {
    /// Whether the segment of `slot` holds the pattern's elements in order, not necessarily
    /// adjacent (`MatchMode.fuzzy`); false when the slot has no segment.
    ///
    /// - Complexity: O(*s*) in the size of the segment.
    mutating func fuzzyScanOne(slot: Int32, pattern: sift_scan_pattern) -> Bool {
        guard let segment = segment(ofSlot: slot) else { return false }
        return withKernelView { view in
            var view = view
            var pattern = pattern
            return sift_fuzzy_one_segment(&view, &pattern, segment) != 0
        }
    }

    /// The score of the fuzzy match of `pattern` in the segment of `slot` and the segment's element
    /// each pattern element is aligned with (see `MatchMode.fuzzy`), or nil when it does not match.
    ///
    /// - Complexity: O(*s*) in the size of the segment.
    func fuzzyAlignment(slot: Int32, pattern: sift_scan_pattern) -> (score: Int, elements: [Int32])? {
        guard let segment = segment(ofSlot: slot) else { return nil }
        var elementCount = 0
        for i in 0..<pattern.length where CodeBook.isLead(pattern.bytes[i]) { elementCount += 1 }
        var scratch = [Int](repeating: 0, count: elementCount)
        var positions = [Int32](repeating: 0, count: elementCount)
        let score = withKernelView { view in
            var view = view
            var pattern = pattern
            return scratch.withUnsafeMutableBufferPointer { scratch in
                positions.withUnsafeMutableBufferPointer { positions in
                    sift_fuzzy_align_segment(&view, &pattern, segment, scratch.baseAddress!, positions.baseAddress)
                }
            }
        }
        return score < 0 ? nil : (Int(score), positions)
    }
}
