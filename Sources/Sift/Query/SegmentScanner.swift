/// Scans one record's folded field for a pattern, applying ICU usearch's acceptance checks
/// through the folding flags. This is the path for single records (re-evaluating an edited
/// record, ranking, identical strength); whole columns are scanned by the C kernels.
///
/// A byte-level occurrence of the pattern is an element-level occurrence (codes are
/// self-synchronizing). It is a *candidate* when a match may start there (and, for word anchors,
/// a word starts there); it is a *match* when, in addition, a match may end with its last element
/// (and, at identical strength, the texts are canonically equal).
struct SegmentScanner {
    /// The segment's code bytes and flag bytes (word starts included), segment-relative.
    let codes: ArraySlice<UInt8>
    let flags: [UInt8]
    let pattern: [UInt8]
    /// Offset of the pattern's last element's lead byte.
    let lastLead: Int
    let anchor: Anchor
    let startMask: UInt8

    init(column: FoldedColumn, segment: Int, pattern: [UInt8], anchor: Anchor) {
        let (start, end) = column.bounds(ofSegment: segment)
        codes = column.codes[start..<end]
        flags = column.flagBytes(ofSegment: segment)
        self.pattern = pattern
        var last = pattern.count - 1
        while last > 0 && !CodeBook.isLead(pattern[last]) { last -= 1 }
        lastLead = last
        self.anchor = anchor
        startMask = anchor == .wordStart ? FoldFlags.startOK | FoldFlags.wordStart : FoldFlags.startOK
    }

    /// Segment-relative offsets where the pattern's bytes occur (in order).
    func occurrences() -> [Int] {
        let m = pattern.count
        guard m > 0, codes.count >= m else { return [] }
        let base = codes.startIndex
        let last = anchor == .fieldStart ? 0 : codes.count - m
        var result: [Int] = []
        for offset in 0...last where codes[base + offset] == pattern[0] {
            if codes[(base + offset)..<(base + offset + m)].elementsEqual(pattern) { result.append(offset) }
        }
        return result
    }

    func isCandidate(_ offset: Int) -> Bool { flags[offset] & startMask == startMask }

    func endsMatch(_ offset: Int) -> Bool { flags[offset + lastLead] & FoldFlags.endOK != 0 }

    /// Whether the segment holds a candidate, and a match.
    ///
    /// - Parameter verify: an extra acceptance test (identical strength), given a segment-relative offset.
    /// - Complexity: O(*n* · *m*) for a segment of *n* bytes and a pattern of *m* bytes.
    func scan(verify: ((Int) -> Bool)? = nil) -> (candidate: Bool, matched: Bool) {
        var candidate = false
        for offset in occurrences() where isCandidate(offset) {
            candidate = true
            if endsMatch(offset) && (verify?(offset) ?? true) { return (true, true) }
        }
        return (candidate, false)
    }

    /// The best class among the accepted occurrences: 0 at the field start, 1 at a word start,
    /// 2 inside a word; nil when there is none.
    func bestClass(verify: ((Int) -> Bool)? = nil) -> Int? {
        var best: Int? = nil
        for offset in occurrences() where isCandidate(offset) && endsMatch(offset) && (verify?(offset) ?? true) {
            if offset == 0 { return 0 }
            best = min(best ?? 2, flags[offset] & FoldFlags.wordStart != 0 ? 1 : 2)
        }
        return best
    }
}
