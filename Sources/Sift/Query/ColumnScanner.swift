internal import CSiftKernels
internal import Glibc

/// The hot loops: find a folded pattern in a column's contiguous code bytes and apply ICU
/// usearch's acceptance checks through the precomputed flags.
///
/// A byte-level occurrence of the pattern is an element-level occurrence (codes are
/// self-synchronizing). It is a *candidate* when a match may start there (and, for word anchors,
/// a word starts there); it is a *match* when, in addition, a match may end with its last element
/// (and, at identical strength, the texts are canonically equal).
struct ColumnScanner {
    let codes: UnsafePointer<UInt8>
    let flags: UnsafePointer<UInt8>
    let byteCount: Int
    let pattern: UnsafePointer<UInt8>
    let patternCount: Int
    /// Offset of the pattern's last element's lead byte.
    let lastLead: Int
    let anchor: Anchor
    let startMask: UInt8

    init(
        codes: UnsafeBufferPointer<UInt8>, flags: UnsafeBufferPointer<UInt8>, pattern: UnsafeBufferPointer<UInt8>,
        anchor: Anchor
    ) {
        self.codes = codes.baseAddress!
        self.flags = flags.baseAddress!
        byteCount = codes.count
        self.pattern = pattern.baseAddress!
        patternCount = pattern.count
        var last = pattern.count - 1
        while last > 0 && !CodeBook.isLead(pattern[last]) { last -= 1 }
        lastLead = last
        self.anchor = anchor
        startMask = anchor == .wordStart ? FoldFlags.startOK | FoldFlags.wordStart : FoldFlags.startOK
    }

    /// The first occurrence of the pattern within `from..<end`.
    @inline(__always)  // the innermost call of every scan
    func find(from: Int, to end: Int) -> Int? {
        let length = end - from
        guard length >= patternCount else { return nil }
        let hit = sift_find(codes + from, length, pattern, patternCount)
        return hit < 0 ? nil : from + hit
    }

    @inline(__always)  // flag test per occurrence
    func isCandidate(_ hit: Int) -> Bool { flags[hit] & startMask == startMask }

    @inline(__always)  // flag test per candidate
    func endsMatch(_ hit: Int) -> Bool { flags[hit + lastLead] & FoldFlags.endOK != 0 }

    /// Scans one segment `start..<end`.
    ///
    /// - Parameter verify: an extra acceptance test (identical strength), given the hit's byte offset.
    /// - Complexity: O(*n*) in the segment's length.
    func scan(start: Int, end: Int, verify: ((Int) -> Bool)? = nil) -> (candidate: Bool, matched: Bool) {
        if anchor == .fieldStart {
            guard end - start >= patternCount, memcmp(codes + start, pattern, patternCount) == 0, isCandidate(start)
            else { return (false, false) }
            return (true, endsMatch(start) && (verify?(start) ?? true))
        }
        var position = start
        var candidate = false
        while let hit = find(from: position, to: end) {
            if isCandidate(hit) {
                candidate = true
                if endsMatch(hit) && (verify?(hit) ?? true) { return (true, true) }
            }
            position = hit + 1
        }
        return (candidate, false)
    }

    /// The best class among the accepted occurrences in a segment: 0 at the field start, 1 at a
    /// word start, 2 inside a word; nil when there is none.
    func bestClass(start: Int, end: Int, verify: ((Int) -> Bool)? = nil) -> Int? {
        var best: Int? = nil
        var position = start
        while let hit = find(from: position, to: end) {
            if isCandidate(hit) && endsMatch(hit) && (verify?(hit) ?? true) {
                let matchClass = hit == start ? 0 : flags[hit] & FoldFlags.wordStart != 0 ? 1 : 2
                if matchClass == 0 { return 0 }
                best = min(best ?? 2, matchClass)
            }
            if anchor == .fieldStart { break }
            position = hit + 1
        }
        return best
    }
}

/// Finds the segment containing a byte offset, galloping forward from a previous answer.
@inline(__always)  // called once per occurrence in full sweeps
func segment(containing offset: Int, in starts: UnsafeBufferPointer<UInt32>, from previous: Int) -> Int {
    var low = previous
    let target = UInt32(offset)
    guard low + 1 < starts.count, starts[low + 1] <= target else { return low }
    var step = 1
    var high = low + 1
    while high < starts.count && starts[high] <= target {
        low = high
        step <<= 1
        high = low + step
    }
    high = min(high, starts.count)
    // starts[low] <= target and (high == count or starts[high] > target)
    while high - low > 1 {
        let mid = (low + high) >> 1
        if starts[mid] <= target { low = mid } else { high = mid }
    }
    return low
}
