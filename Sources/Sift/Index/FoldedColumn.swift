internal import CSiftKernels

/// One searchable field of every record, folded under one collation, in contiguous buffers.
///
/// `codes` holds each record's folded text (see `CodeBook`) as a segment followed by a 0 byte.
/// Most segments are *simple*: every element may start and end a match (ICU usearch's boundary
/// checks all pass), which is the case for nearly all Latin, Greek and Cyrillic text. Only the
/// other segments keep a flag byte per code byte (`flags`); word starts are one bit per code byte
/// (`wordStarts`). The hot loops scan `codes` and touch flags only for hits in non-simple
/// segments. The UTF-16 offsets that turn a match back into a range of the original string are
/// kept apart, as varints, and only for segments whose elements are not one UTF-16 unit each.
///
/// Segments are appended; a deleted or replaced record leaves a dead segment behind, which
/// `compactIfWorthwhile()` reclaims once dead bytes outweigh live ones, so inserts, updates and
/// deletes cost time proportional to the record, amortized.
struct FoldedColumn {
    /// Folded codes of all segments, each followed by a 0 separator; index 0 is a separator too.
    private(set) var codes: [UInt8] = [0]
    /// One bit per byte of `codes`: set at the lead byte of an element that starts a word.
    private(set) var wordStarts: [UInt64] = [0]
    /// Byte offset in `codes` where each segment starts, ascending.
    private(set) var segmentStarts: [UInt32] = []
    /// The slot owning each segment, or -1 once the segment is dead.
    private(set) var segmentOwners: [Int32] = []
    /// Where each segment's flag bytes start in `flags`, or `Self.simple`.
    private(set) var segmentFlags: [UInt32] = []
    /// `FoldFlags` (start and end bits) per code byte of the non-simple segments.
    private(set) var flags: [UInt8] = [0]
    /// Where each segment's offsets start in `offsets`, or `regular` when every element covers
    /// exactly one UTF-16 unit in order (the common case for Latin text: nothing is stored).
    private var segmentOffsets: [UInt32] = []
    /// Varint-encoded (low delta, limit - low) pairs per element, zigzagged.
    private var offsets: [UInt8] = []
    /// The segment of each slot, or -1.
    private(set) var slotSegments: [Int32] = []
    /// One bit per segment, set when the full sweep's fast path cannot take the segment as it
    /// is: the segment is dead, is not simple, or belongs to a slot other than its own number.
    /// After a bulk load every segment `s` belongs to slot `s`, so the sweep writes a block's
    /// matches straight into the result bitset and checks only these segments one by one.
    /// Padded so that the kernels may read one word past the last segment's.
    private(set) var checkedSegments: [UInt64] = [0, 0]
    private var deadBytes = 0

    private static let regular = UInt32.max
    /// Marks a segment whose every element may start and end a match.
    static let simple = UInt32.max

    /// An empty column.
    init() {}

    /// Number of bytes in all segments, dead ones included.
    var byteCount: Int { codes.count }

    /// Heap bytes used: codes, auxiliary data (word starts, flags, offsets), per-segment tables.
    var memoryParts: (codes: Int, auxiliary: Int, tables: Int) {
        (codes.capacity, 8 * wordStarts.capacity + flags.capacity + offsets.capacity + 8 * checkedSegments.capacity,
         4 * (segmentStarts.capacity + segmentOwners.capacity + segmentFlags.capacity + segmentOffsets.capacity
            + slotSegments.capacity))
    }

    /// Drops most spare capacity (after a bulk load), keeping headroom for the next edits.
    mutating func trimCapacity() {
        let trimmed: ([UInt8]) -> [UInt8] = withHeadroom
        codes = trimmed(codes)
        wordStarts = withHeadroom(wordStarts)
        flags = trimmed(flags)
        offsets = trimmed(offsets)
        segmentStarts = withHeadroom(segmentStarts)
        segmentOwners = withHeadroom(segmentOwners)
        segmentFlags = withHeadroom(segmentFlags)
        segmentOffsets = withHeadroom(segmentOffsets)
        slotSegments = withHeadroom(slotSegments)
        checkedSegments = withHeadroom(checkedSegments)
    }

    /// Makes room for `bytes` more code bytes and `segments` more segments.
    mutating func reserveCapacity(bytes: Int, segments: Int) {
        codes.reserveCapacity(codes.count + bytes)
        segmentStarts.reserveCapacity(segmentStarts.count + segments)
        segmentOwners.reserveCapacity(segmentOwners.count + segments)
        segmentFlags.reserveCapacity(segmentFlags.count + segments)
        segmentOffsets.reserveCapacity(segmentOffsets.count + segments)
    }

    /// Appends the folded text of `slot`, replacing any segment it had.
    ///
    /// - Complexity: O(*n*) amortized, where *n* is the number of elements.
    mutating func set(slot: Int32, folded: FoldedSlice, codeBook: inout CodeBook) {
        remove(slot: slot)
        let start = codes.count
        var regular = true
        var simple = true
        let boundaryFlags = FoldFlags.startOK | FoldFlags.endOK
        let count = folded.elements.count
        for i in 0..<count {
            let lead = codes.count
            CodeBook.append(codeBook.code(for: folded.elements[i]), to: &codes)
            let flag = folded.flags[i]
            if flag & FoldFlags.wordStart != 0 { setWordStart(at: lead) }
            if flag & boundaryFlags != boundaryFlags { simple = false }
            if folded.lows[i] != Int32(i) || (flag & FoldFlags.endOK != 0 && folded.limits[i] != Int32(i + 1)) {
                regular = false
            }
        }
        codes.append(0)
        if simple {
            segmentFlags.append(Self.simple)
        } else {
            segmentFlags.append(UInt32(flags.count))
            var element = 0
            for byte in start..<(codes.count - 1) {
                if CodeBook.isLead(codes[byte]) {
                    flags.append(folded.flags[element] & boundaryFlags)
                    element += 1
                } else {
                    flags.append(0)
                }
            }
            flags.append(0)
        }
        if regular {
            segmentOffsets.append(Self.regular)
        } else {
            segmentOffsets.append(UInt32(offsets.count))
            var previousLow: Int32 = 0
            for i in 0..<count {
                Self.appendVarint(zigzag(folded.lows[i] - previousLow), to: &offsets)
                Self.appendVarint(zigzag(folded.limits[i] - folded.lows[i]), to: &offsets)
                previousLow = folded.lows[i]
            }
        }
        let segment = Int32(segmentStarts.count)
        segmentStarts.append(UInt32(start))
        segmentOwners.append(slot)
        setChecked(Int(segment), slot != segment || !simple)
        if Int(slot) >= slotSegments.count {
            slotSegments.append(contentsOf: repeatElement(-1, count: Int(slot) + 1 - slotSegments.count))
        }
        slotSegments[Int(slot)] = segment
    }

    private mutating func setChecked(_ segment: Int, _ checked: Bool) {
        let word = segment >> 6
        if word + 1 >= checkedSegments.count {
            checkedSegments.append(contentsOf: repeatElement(0, count: word + 2 - checkedSegments.count))
        }
        if checked {
            checkedSegments[word] |= 1 << UInt64(segment & 63)
        } else {
            checkedSegments[word] &= ~(1 << UInt64(segment & 63))
        }
    }

    /// Appends encoded segments (none of them deferred), segment `segments.lowerBound + i` as the
    /// folded text of `owners[i]`, replacing any segment those slots had: the same buffers as
    /// `set(slot:folded:codeBook:)` called for each, in order, with a code book that already has
    /// every element.
    ///
    /// - Complexity: O(*n*) amortized in the size of the segments, mostly copying.
    mutating func append(_ encoded: EncodedSegments, segments: Range<Int>, owners: UnsafeBufferPointer<Int32>) {
        precondition(owners.count == segments.count)
        guard !segments.isEmpty else { return }
        for slot in owners { remove(slot: slot) }
        let first = segments.lowerBound, end = segments.upperBound
        let byteLow = Int(encoded.byteStarts[first]), byteHigh = Int(encoded.byteStarts[end])
        let flagLow = Int(encoded.flagStarts[first]), flagHigh = Int(encoded.flagStarts[end])
        let offsetLow = Int(encoded.offsetStarts[first]), offsetHigh = Int(encoded.offsetStarts[end])
        let byteBase = codes.count, flagBase = flags.count, offsetBase = offsets.count
        codes.append(contentsOf: encoded.codes[byteLow..<byteHigh])
        if flagHigh > flagLow { flags.append(contentsOf: encoded.flags[flagLow..<flagHigh]) }
        if offsetHigh > offsetLow { offsets.append(contentsOf: encoded.offsets[offsetLow..<offsetHigh]) }
        encoded.wordStarts.withUnsafeBufferPointer { words in
            var word = byteLow >> 6
            while word < words.count && word << 6 < byteHigh {
                var bits = words[word]
                if word << 6 < byteLow { bits &= ~0 << UInt64(byteLow & 63) }
                if (word + 1) << 6 > byteHigh { bits &= ~(~0 << UInt64(byteHigh & 63)) }
                while bits != 0 {
                    setWordStart(at: byteBase + (word << 6 | bits.trailingZeroBitCount) - byteLow)
                    bits &= bits - 1
                }
                word += 1
            }
        }
        let firstSegment = Int32(segmentStarts.count)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: segments.count) { table in
            for (i, segment) in segments.enumerated() {
                table[i] = UInt32(byteBase + Int(encoded.byteStarts[segment]) - byteLow)
            }
            segmentStarts.append(contentsOf: table)
            for (i, segment) in segments.enumerated() {
                table[i] =
                    encoded.kinds[segment] & EncodedSegments.Kind.simple != 0
                    ? Self.simple : UInt32(flagBase + Int(encoded.flagStarts[segment]) - flagLow)
            }
            segmentFlags.append(contentsOf: table)
            for (i, segment) in segments.enumerated() {
                table[i] =
                    encoded.kinds[segment] & EncodedSegments.Kind.regular != 0
                    ? Self.regular : UInt32(offsetBase + Int(encoded.offsetStarts[segment]) - offsetLow)
            }
            segmentOffsets.append(contentsOf: table)
        }
        segmentOwners.append(contentsOf: owners)
        for (i, segment) in segments.enumerated() {
            let number = Int(firstSegment) + i
            setChecked(number, Int(owners[i]) != number || encoded.kinds[segment] & EncodedSegments.Kind.simple == 0)
        }
        if Int(owners[0]) == slotSegments.count && zip(owners, owners.dropFirst()).allSatisfy({ $0 + 1 == $1 }) {
            // New slots in order (the usual bulk load): their segments in one go.
            slotSegments.append(contentsOf: firstSegment..<(firstSegment + Int32(owners.count)))
            return
        }
        for (i, slot) in owners.enumerated() {
            if Int(slot) >= slotSegments.count {
                slotSegments.append(contentsOf: repeatElement(-1, count: Int(slot) + 1 - slotSegments.count))
            }
            slotSegments[Int(slot)] = firstSegment + Int32(i)
        }
    }

    private mutating func setWordStart(at byte: Int) {
        let word = byte >> 6
        if word >= wordStarts.count { wordStarts.append(contentsOf: repeatElement(0, count: word + 1 - wordStarts.count)) }
        wordStarts[word] |= 1 << UInt64(byte & 63)
    }

    /// Marks the segment of `slot` dead.
    ///
    /// - Complexity: O(1).
    mutating func remove(slot: Int32) {
        guard Int(slot) < slotSegments.count else { return }
        let segment = slotSegments[Int(slot)]
        guard segment >= 0 else { return }
        segmentOwners[Int(segment)] = -1
        slotSegments[Int(slot)] = -1
        setChecked(Int(segment), true)
        let (start, end) = bounds(ofSegment: Int(segment))
        deadBytes += end - start + 1
    }

    /// Byte range `start..<end` of a segment in `codes` (the separator at `end` excluded).
    @inline(__always)  // two loads; called per candidate in the hot loops
    func bounds(ofSegment segment: Int) -> (start: Int, end: Int) {
        let start = Int(segmentStarts[segment])
        let end = segment + 1 < segmentStarts.count ? Int(segmentStarts[segment + 1]) - 1 : codes.count - 1
        return (start, end)
    }

    /// The segment of a slot, or nil when it has none.
    @inline(__always)  // one load; called per candidate record
    func segment(ofSlot slot: Int32) -> Int? {
        guard Int(slot) < slotSegments.count else { return nil }
        let segment = slotSegments[Int(slot)]
        return segment >= 0 ? Int(segment) : nil
    }

    /// The `FoldFlags` of every byte of a segment (word starts included), as the slow paths
    /// (single-record evaluation, ranking, highlighting) read them.
    ///
    /// - Complexity: O(*n*) in the segment's length.
    func flagBytes(ofSegment segment: Int) -> [UInt8] {
        let (start, end) = bounds(ofSegment: segment)
        var result = [UInt8](repeating: 0, count: end - start)
        let position = segmentFlags[segment]
        for i in 0..<(end - start) {
            let byte = start + i
            var value: UInt8
            if position == Self.simple {
                value = CodeBook.isLead(codes[byte]) ? FoldFlags.startOK | FoldFlags.endOK : 0
            } else {
                value = flags[Int(position) + i]
            }
            if (byte >> 6) < wordStarts.count && wordStarts[byte >> 6] & (1 << UInt64(byte & 63)) != 0 {
                value |= FoldFlags.wordStart
            }
            result[i] = value
        }
        return result
    }

    /// UTF-16 low index and match limit of every element of a segment.
    ///
    /// - Complexity: O(*n*), where *n* is the number of elements in the segment.
    func elementOffsets(ofSegment segment: Int) -> (lows: [Int32], limits: [Int32]) {
        let (start, end) = bounds(ofSegment: segment)
        var count = 0
        for i in start..<end where CodeBook.isLead(codes[i]) { count += 1 }
        let position = segmentOffsets[segment]
        if position == Self.regular {
            return ((0..<Int32(count)).map { $0 }, (0..<Int32(count)).map { $0 + 1 })
        }
        var lows: [Int32] = []
        var limits: [Int32] = []
        lows.reserveCapacity(count)
        limits.reserveCapacity(count)
        var cursor = Int(position)
        var low: Int32 = 0
        for _ in 0..<count {
            low += unzigzag(Self.readVarint(offsets, &cursor))
            let limit = low + unzigzag(Self.readVarint(offsets, &cursor))
            lows.append(low)
            limits.append(limit)
        }
        return (lows, limits)
    }

    /// Rewrites the buffers without dead segments when they hold more dead bytes than live ones,
    /// laying the segments out in slot order (a free slot keeps an empty dead segment) so that
    /// segment `s` belongs to slot `s` again, as the sweep's fast path wants.
    ///
    /// - Complexity: O(*n*) in the size of the column when it compacts, O(1) otherwise; amortized
    ///   O(1) per removed byte.
    mutating func compactIfWorthwhile() {
        guard deadBytes > 4096, deadBytes * 2 > codes.count else { return }
        var compacted = FoldedColumn()
        compacted.codes.reserveCapacity(codes.count - deadBytes + slotSegments.count + 16)
        for slot in slotSegments.indices {
            let segment = slotSegments[slot]
            if segment >= 0 {
                compacted.appendSegment(Int(segment), of: self, owner: Int32(slot))
            } else {
                compacted.appendPlaceholder()
            }
        }
        compacted.slotSegments = [Int32](repeating: -1, count: slotSegments.count)
        for (segment, owner) in compacted.segmentOwners.enumerated() where owner >= 0 {
            compacted.slotSegments[Int(owner)] = Int32(segment)
        }
        self = compacted
    }

    /// Appends an empty dead segment (keeps segment numbers equal to slot numbers).
    private mutating func appendPlaceholder() {
        let segment = segmentStarts.count
        segmentStarts.append(UInt32(codes.count))
        codes.append(0)
        segmentOwners.append(-1)
        segmentFlags.append(Self.simple)
        segmentOffsets.append(Self.regular)
        setChecked(segment, true)
        // Not counted in `deadBytes`: compaction could not reclaim it (the slot may be reused).
    }

    /// The column with only the segments of `slots`, the one of `slots[i]` owned by slot `i`
    /// (for snapshots, which number records by their position in the original list).
    ///
    /// - Complexity: O(*n*) in the size of those segments.
    func renumbered(_ slots: [Int32]) -> FoldedColumn {
        var result = FoldedColumn()
        result.codes.reserveCapacity(codes.count - deadBytes + 16)
        for (position, slot) in slots.enumerated() {
            guard let segment = segment(ofSlot: slot) else { continue }
            result.appendSegment(segment, of: self, owner: Int32(position))
        }
        result.slotSegments = [Int32](repeating: -1, count: slots.count)
        for (segment, owner) in result.segmentOwners.enumerated() { result.slotSegments[Int(owner)] = Int32(segment) }
        return result
    }

    /// Copies one segment of `other` (codes, word starts, flags, offsets) to the end of this column.
    private mutating func appendSegment(_ segment: Int, of other: FoldedColumn, owner: Int32) {
        let (start, end) = other.bounds(ofSegment: segment)
        let newStart = codes.count
        codes.append(contentsOf: other.codes[start...end])
        for byte in start..<end
        where (byte >> 6) < other.wordStarts.count && other.wordStarts[byte >> 6] & (1 << UInt64(byte & 63)) != 0 {
            setWordStart(at: newStart + byte - start)
        }
        let flagPosition = other.segmentFlags[segment]
        if flagPosition == Self.simple {
            segmentFlags.append(Self.simple)
        } else {
            segmentFlags.append(UInt32(flags.count))
            flags.append(contentsOf: other.flags[Int(flagPosition)...(Int(flagPosition) + end - start)])
        }
        let position = other.segmentOffsets[segment]
        if position == Self.regular {
            segmentOffsets.append(Self.regular)
        } else {
            segmentOffsets.append(UInt32(offsets.count))
            let count = (start..<end).reduce(0) { CodeBook.isLead(other.codes[$1]) ? $0 + 1 : $0 }
            var cursor = Int(position)
            for _ in 0..<(2 * count) { _ = Self.readVarint(other.offsets, &cursor) }
            offsets.append(contentsOf: other.offsets[Int(position)..<cursor])
        }
        setChecked(segmentStarts.count, owner != Int32(segmentStarts.count) || flagPosition != Self.simple)
        segmentStarts.append(UInt32(newStart))
        segmentOwners.append(owner)
    }

    /// The column's buffers, as snapshots store them.
    struct Storage {
        var codes: [UInt8]
        var wordStarts: [UInt64]
        var segmentStarts: [UInt32]
        var segmentOwners: [Int32]
        var segmentFlags: [UInt32]
        var flags: [UInt8]
        var segmentOffsets: [UInt32]
        var offsets: [UInt8]
        var slotSegments: [Int32]
    }

    var storage: Storage {
        Storage(
            codes: codes, wordStarts: wordStarts, segmentStarts: segmentStarts, segmentOwners: segmentOwners,
            segmentFlags: segmentFlags, flags: flags, segmentOffsets: segmentOffsets, offsets: offsets,
            slotSegments: slotSegments)
    }

    /// A column from stored buffers, checked so that no scan can read out of bounds: segments
    /// ascending and separated by 0 bytes, owners and slots consistent, flag and offset positions
    /// inside their buffers.
    ///
    /// - Throws: a description of the first inconsistency.
    /// - Complexity: O(*n*) in the size of the buffers.
    init(storage: Storage, slotCount: Int) throws(SnapshotFormatError) {
        let s = storage
        let n = s.segmentStarts.count
        guard s.codes.first == 0, s.codes.last == 0, s.flags.first == 0 else { throw .init("column buffers") }
        guard s.segmentOwners.count == n, s.segmentFlags.count == n, s.segmentOffsets.count == n,
            s.slotSegments.count == slotCount, s.wordStarts.count >= 1, s.wordStarts.count <= s.codes.count / 64 + 2
        else { throw .init("column table sizes") }
        var previous: UInt32 = 0
        for segment in 0..<n {
            let start = s.segmentStarts[segment]
            let end = segment + 1 < n ? Int(s.segmentStarts[segment + 1]) - 1 : s.codes.count - 1
            guard start > previous || segment == 0, start >= 1, Int(start) <= end, end < s.codes.count,
                s.codes[end] == 0, s.codes[Int(start) - 1] == 0
            else { throw .init("segment \(segment) bounds") }
            previous = start
            let owner = s.segmentOwners[segment]
            guard owner >= -1, Int(owner) < slotCount, owner < 0 || s.slotSegments[Int(owner)] == Int32(segment) else {
                throw .init("segment \(segment) owner")
            }
            let flagPosition = s.segmentFlags[segment]
            if flagPosition != Self.simple {
                guard Int(flagPosition) + (end - Int(start)) < s.flags.count else { throw .init("segment \(segment) flags") }
            }
            if s.segmentOffsets[segment] != Self.regular {
                guard Int(s.segmentOffsets[segment]) < s.offsets.count else { throw .init("segment \(segment) offsets") }
            }
        }
        for (slot, segment) in s.slotSegments.enumerated() where segment >= 0 {
            guard Int(segment) < n, s.segmentOwners[Int(segment)] == Int32(slot) else { throw .init("slot \(slot) segment") }
        }
        guard n == 0 || Int(s.segmentStarts[n - 1]) < s.codes.count else { throw .init("column end") }
        codes = s.codes
        wordStarts = s.wordStarts
        segmentStarts = s.segmentStarts
        segmentOwners = s.segmentOwners
        segmentFlags = s.segmentFlags
        flags = s.flags
        segmentOffsets = s.segmentOffsets
        offsets = s.offsets
        slotSegments = s.slotSegments
        deadBytes = 0
        checkedSegments = [UInt64](repeating: 0, count: (n >> 6) + 2)
        for segment in 0..<n where s.segmentOwners[segment] != Int32(segment) || s.segmentFlags[segment] != Self.simple {
            checkedSegments[segment >> 6] |= 1 << UInt64(segment & 63)
        }
        // Dead segments may remain in a stored column: count them.
        for segment in 0..<n where s.segmentOwners[segment] < 0 {
            let (start, end) = bounds(ofSegment: segment)
            deadBytes += end - start + 1
        }
    }

    /// Calls `body` with the scan kernels' view of this column (valid only inside `body`).
    func withKernelView<R>(_ body: (sift_column_view) throws -> R) rethrows -> R {
        // Kernels may read a few words past a segment's last byte; pad the word-start bitset.
        try codes.withUnsafeBufferPointer { codes in
            try wordStarts.withUnsafeBufferPointer { wordStarts in
                try flags.withUnsafeBufferPointer { flags in
                    try checkedSegments.withUnsafeBufferPointer { checkedSegments in
                    try segmentStarts.withUnsafeBufferPointer { starts in
                        try segmentOwners.withUnsafeBufferPointer { owners in
                            try segmentFlags.withUnsafeBufferPointer { segmentFlags in
                                let none: UInt32 = 0
                                let noOwner: Int32 = -1
                                return try withUnsafePointer(to: none) { nonePointer in
                                    try withUnsafePointer(to: noOwner) { noOwnerPointer in
                                        try body(
                                            sift_column_view(
                                                codes: codes.baseAddress!, length: codes.count,
                                                wordStarts: wordStarts.baseAddress!, wordCount: wordStarts.count,
                                                flags: flags.baseAddress!,
                                                segmentStarts: starts.baseAddress ?? nonePointer,
                                                owners: owners.baseAddress ?? noOwnerPointer,
                                                segmentFlags: segmentFlags.baseAddress ?? nonePointer,
                                                checkedSegments: checkedSegments.baseAddress!,
                                                segmentCount: starts.count))
                                    }
                                }
                            }
                        }
                    }
                    }
                }
            }
        }
    }

    static func appendVarint(_ value: UInt32, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    private static func readVarint(_ bytes: [UInt8], _ cursor: inout Int) -> UInt32 {
        var result: UInt32 = 0
        var shift: UInt32 = 0
        while true {
            guard cursor < bytes.count, shift < 32 else { return result }  // stored data is checked, never trusted
            let byte = bytes[cursor]
            cursor += 1
            result |= UInt32(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }
}

@inline(__always)  // arithmetic only
func zigzag(_ value: Int32) -> UInt32 { UInt32(bitPattern: (value << 1) ^ (value >> 31)) }

@inline(__always)  // arithmetic only
private func unzigzag(_ value: UInt32) -> Int32 { Int32(bitPattern: value >> 1) ^ -Int32(bitPattern: value & 1) }

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
                let lower = Int(lows[i]), upper = Int(limits[last])
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
