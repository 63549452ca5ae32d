internal import CSiftKernels

extension FoldedColumn {
    /// The number of collation elements (code lead bytes) of each live slot's segment, at most
    /// `SIFT_RANKING_LENGTH_LIMIT`, written to `lengths[slot]` (which must hold every slot that
    /// has a segment); other entries are left as they are. The field length ranked results
    /// compare (see `RankingKeys`).
    ///
    /// - Complexity: O(*n*) in the size of the codes, plus O(*s*) for *s* segments.
    func elementCounts(into lengths: inout [UInt8]) {
        let segments = segmentCount
        guard segments > 0 else { return }
        var counts = [UInt8](repeating: 0, count: segments)
        let counted = codes.withUnsafeBufferPointer { codes in
            counts.withUnsafeMutableBufferPointer { counts in
                sift_segment_element_counts(codes.baseAddress!, codes.count, counts.baseAddress!, segments)
            }
        }
        precondition(counted == segments, "every segment ends with a separator")
        // A segment whose `checkedSegments` bit is clear is live and its slot's own: copied as is.
        checkedSegments.withUnsafeBufferPointer { checked in
            for segment in 0..<segments {
                if checked[segment >> 6] & (1 << UInt64(segment & 63)) == 0 {
                    lengths[segment] = counts[segment]
                } else if let owner = owner(ofSegment: segment) {
                    lengths[Int(owner)] = counts[segment]
                }
            }
        }
    }

    /// The number of collation elements of a slot's segment, at most `SIFT_RANKING_LENGTH_LIMIT`
    /// (0 without a segment): one entry of `elementCounts(into:)`.
    ///
    /// - Complexity: O(*s*) in the size of the segment.
    func elementCount(ofSlot slot: Int32) -> UInt8 {
        guard let segment = segment(ofSlot: slot) else { return 0 }
        let (start, end) = bounds(ofSegment: segment)
        var elements = 0
        for i in start..<end where CodeBook.isLead(codes[i]) { elements += 1 }
        return UInt8(min(elements, Int(SIFT_RANKING_LENGTH_LIMIT)))
    }
}
