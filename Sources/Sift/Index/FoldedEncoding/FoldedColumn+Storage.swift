extension FoldedColumn {
    /// The column's buffers, as snapshots store them.
    struct Storage {
        var codes: [UInt8]
        var wordStarts: [UInt64]
        var segmentStarts: [UInt32]
        /// The slot owning each segment, or -1 once the segment is dead.
        var segmentOwners: [Int32]
        /// Each segment's first entry in `flags` (a multiple of 4), or `FoldedColumn.simple`.
        var segmentFlags: [UInt32]
        var flags: [UInt8]
    }

    /// The buffers, with the per-segment tables written out in full.
    ///
    /// - Complexity: O(*s*) for *s* segments.
    var storage: Storage {
        let n = segmentCount
        return Storage(
            codes: codes,
            wordStarts: wordStarts,
            segmentStarts: (0..<n).map { UInt32(start(ofSegment: $0)) },
            segmentOwners: (0..<n).map { owner(ofSegment: $0) ?? -1 },
            segmentFlags: (0..<n).map { flagStart(ofSegment: $0).map(UInt32.init) ?? Self.simple },
            flags: flags
        )
    }
}
