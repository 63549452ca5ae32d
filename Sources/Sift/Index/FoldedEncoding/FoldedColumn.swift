internal import CSiftKernels
internal import SiftStorage

/// One searchable field of every record, folded under one collation, in contiguous buffers.
///
/// `codes` holds each record's folded text (see `CodeBook`) as a segment followed by a 0 byte.
/// Most segments are *simple*: every element may start and end a match (ICU usearch's boundary
/// checks all pass), which is the case for nearly all Latin, Greek and Cyrillic text. Only the
/// other segments, the *flagged* ones, keep a flag byte per code byte (`flags`); word starts are
/// one bit per code byte (`wordStarts`). The hot loops scan `codes` and touch flags only for hits
/// in flagged segments. The UTF-16 offsets that turn a match back into a range of the original
/// string are not kept: highlighting folds the one record it shows again.
///
/// Segment *s* normally belongs to slot *s* (after a bulk load, a snapshot load and a
/// compaction, every segment does), so the per-segment tables are one start offset and a few
/// bits: a dead bit, a flagged bit, and where a flagged segment's flag bytes start (one entry per
/// flagged segment). Records whose segment has another number — an update appends the new text
/// at the end — are listed in two small maps (`SlotMap`), segment to slot and slot to segment.
///
/// Segments are appended; a deleted or replaced record leaves a dead segment behind. Once dead
/// bytes pass an eighth of the codes, a *rebuild* copies the column in slot order into a new one,
/// a bounded piece per edit (`FoldedColumn+Compaction.swift`), while queries go on reading this
/// one; so inserts, updates and deletes cost time proportional to the record, amortized, with no
/// edit paying for the whole column.
struct FoldedColumn {
    /// Folded codes of all segments, each followed by a 0 separator; index 0 is a separator too.
    private(set) var codes: [UInt8] = [0]
    /// One bit per byte of `codes`: set at the lead byte of an element that starts a word.
    private(set) var wordStarts: [UInt64] = [0]
    /// Where each segment starts in `codes` (ascending), in two levels: per block of 64 segments
    /// the start of its first segment, and per segment a 16-bit offset from it. A block spanning
    /// more than 65,535 bytes (very long texts) is *wide*: its bit in `wideBlocks` is set, its
    /// `blockStarts` entry numbers its 64 entries in `wideStarts`, which hold the starts in full.
    private var blockStarts: [UInt32] = []
    private var startOffsets: [UInt16] = []
    private var wideBlocks: [UInt64] = [0]
    private var wideStarts: [UInt32] = []
    /// One bit per segment, set once the segment is dead. Padded by a word, like every
    /// per-segment bitset here.
    private(set) var deadSegments: [UInt64] = [0, 0]
    /// One bit per segment, set when it is flagged (not simple).
    private(set) var flaggedSegments: [UInt64] = [0, 0]
    /// Per word of `flaggedSegments`: the number of flagged segments before it.
    private var flaggedRanks: [UInt32] = [0]
    /// Per flagged segment, in segment order: its first entry in `flags` (a multiple of 4).
    private var flagStarts: [UInt32] = []
    /// `FoldFlags` start and end bits per code byte of the flagged segments (and one 0 entry for
    /// the separator), two bits an entry, four entries a byte (see `PackedFlags`); each segment
    /// starts on a byte.
    private(set) var flags: [UInt8] = [0]
    /// Live segments owned by a slot of another number: segment → slot.
    private var awayOwners = SlotMap()
    /// Slots whose segment has another number: slot → segment.
    private var awaySegments = SlotMap()
    /// One bit per segment, set when the full sweep's fast path cannot take the segment as it
    /// is: the segment is dead, is flagged, or belongs to a slot other than its own number.
    /// After a bulk load every segment `s` belongs to slot `s`, so the sweep writes a block's
    /// matches straight into the result bitset and checks only these segments one by one.
    private(set) var checkedSegments: [UInt64] = [0, 0]
    /// One past the highest slot that was given a segment.
    var slotCount = 0
    /// Bytes of dead segments (with their separators), placeholders of free slots excepted.
    private(set) var deadBytes = 0

    // MARK: A rebuild in progress (see `FoldedColumn+Compaction.swift`)
    /// The column being rebuilt in slot order (at most one element: an array holds the recursive
    /// value), empty when no rebuild runs.
    var rebuildTarget: [FoldedColumn] = []
    /// The next slot the rebuild copies.
    var rebuildCursor = 0
    /// Slots below the cursor whose segment changed since it was copied (repeats allowed): the
    /// rebuild copies them again, as updates, before it ends.
    var rebuildPending: [Int32] = []

    /// Marks a segment without flag bytes in `Storage.segmentFlags`.
    static let simple = UInt32.max

    /// An empty column.
    init() {}

    /// Whether the column never held a segment (as `init()` left it).
    var isUnused: Bool { slotCount == 0 && codes.count == 1 && startOffsets.isEmpty && rebuildTarget.isEmpty }

    /// Number of bytes in all segments, dead ones included.
    var byteCount: Int { codes.count }

    /// Heap bytes used: codes, auxiliary data (word starts, flags, per-segment bits), per-segment
    /// tables (segment starts, flag starts, the maps of records away from their slot number).
    /// A rebuild in progress counts too: its copy and its list of slots to copy again.
    var memoryParts: (codes: Int, auxiliary: Int, tables: Int) {
        let bits = 8 * (checkedSegments.capacity + deadSegments.capacity + flaggedSegments.capacity)
        var parts = (
            codes: codes.capacity, auxiliary: 8 * wordStarts.capacity + flags.capacity + bits,
            tables: 4 * (blockStarts.capacity + wideStarts.capacity + flaggedRanks.capacity + flagStarts.capacity)
                + 2 * startOffsets.capacity + 8 * wideBlocks.capacity + awayOwners.memoryFootprint
                + awaySegments.memoryFootprint + 4 * rebuildPending.capacity
        )
        for target in rebuildTarget {
            let more = target.memoryParts
            parts.codes += more.codes
            parts.auxiliary += more.auxiliary
            parts.tables += more.tables
        }
        return parts
    }

    /// Drops most spare capacity (after a bulk load), keeping headroom for the next edits.
    mutating func trimCapacity() {
        abandonRebuild()
        codes = withHeadroom(codes)
        wordStarts = withHeadroom(wordStarts)
        flags = withHeadroom(flags)
        blockStarts = withHeadroom(blockStarts)
        startOffsets = withHeadroom(startOffsets)
        deadSegments = withHeadroom(deadSegments)
        flaggedSegments = withHeadroom(flaggedSegments)
        flaggedRanks = withHeadroom(flaggedRanks)
        flagStarts = withHeadroom(flagStarts)
        checkedSegments = withHeadroom(checkedSegments)
    }

    /// Makes room for `bytes` more code bytes and `segments` more segments.
    mutating func reserveCapacity(bytes: Int, segments: Int) {
        codes.reserveCapacity(codes.count + bytes)
        startOffsets.reserveCapacity(startOffsets.count + segments)
    }

    /// Appends the folded text of `slot`, replacing any segment it had.
    ///
    /// - Complexity: O(*n*) amortized, where *n* is the number of elements.
    mutating func set(slot: Int32, folded: FoldedSlice, codeBook: inout CodeBook) {
        remove(slot: slot)
        let start = codes.count
        var simple = true
        let boundaryFlags = FoldFlags.startOK | FoldFlags.endOK
        let count = folded.elements.count
        growGently(&codes, by: 4 * count + 1)
        for i in 0..<count {
            let lead = codes.count
            CodeBook.append(codeBook.code(for: folded.elements[i]), to: &codes)
            let flag = folded.flags[i]
            if flag & FoldFlags.wordStart != 0 { setWordStart(at: lead) }
            if flag & boundaryFlags != boundaryFlags { simple = false }
        }
        codes.append(0)
        var flagStart: Int? = nil
        if !simple {
            flagStart = 4 * flags.count
            growGently(&flags, by: (codes.count - start) / 4 + 2)
            PackedFlags.appendSegment(codes: codes[start..<(codes.count - 1)], elementFlags: folded.flags, to: &flags)
        }
        appendSegmentEntry(start: start, owner: slot, flagStart: flagStart)
    }

    /// Appends the tables' entries for a new segment at `start` (its bytes already in `codes`),
    /// owned by `owner` (-1: dead), with flag bytes at `flagStart` (nil: simple).
    private mutating func appendSegmentEntry(start: Int, owner: Int32, flagStart: Int?) {
        let segment = startOffsets.count
        growGently(&startOffsets, by: 1)
        appendStart(start)
        let word = segment >> 6
        if word + 1 >= checkedSegments.count {
            let more = word + 2 - checkedSegments.count
            checkedSegments.append(contentsOf: repeatElement(0, count: more))
            deadSegments.append(contentsOf: repeatElement(0, count: more))
            flaggedSegments.append(contentsOf: repeatElement(0, count: more))
        }
        if word >= flaggedRanks.count { flaggedRanks.append(UInt32(flagStarts.count)) }
        let bit: UInt64 = 1 << UInt64(segment & 63)
        if let flagStart {
            flaggedSegments[word] |= bit
            flagStarts.append(UInt32(flagStart))
        }
        if owner < 0 {
            deadSegments[word] |= bit
        } else {
            if Int(owner) != segment {
                awayOwners.set(Int32(segment), to: owner)
                awaySegments.set(owner, to: Int32(segment))
            }
            slotCount = max(slotCount, Int(owner) + 1)
        }
        if owner != Int32(segment) || flagStart != nil { checkedSegments[word] |= bit }
    }

    @inline(__always)  // one load
    private static func bit(_ bits: [UInt64], _ index: Int) -> Bool {
        bits[index >> 6] & (1 << UInt64(index & 63)) != 0
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
        abandonRebuild()  // a bulk append is large: a later rebuild starts from the result
        for slot in owners { remove(slot: slot) }
        let first = segments.lowerBound
        let end = segments.upperBound
        let byteLow = Int(encoded.byteStarts[first])
        let byteHigh = Int(encoded.byteStarts[end])
        let flagLow = Int(encoded.flagStarts[first])
        let flagHigh = Int(encoded.flagStarts[end])
        let byteBase = codes.count
        let flagBase = flags.count
        codes.append(contentsOf: encoded.codes[byteLow..<byteHigh])
        if flagHigh > flagLow { flags.append(contentsOf: encoded.flags[flagLow..<flagHigh]) }
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
        startOffsets.reserveCapacity(startOffsets.count + segments.count)
        for (i, segment) in segments.enumerated() {
            let simple = encoded.kinds[segment] & EncodedSegments.Kind.simple != 0
            appendSegmentEntry(
                start: byteBase + Int(encoded.byteStarts[segment]) - byteLow,
                owner: owners[i],
                flagStart: simple ? nil : 4 * (flagBase + Int(encoded.flagStarts[segment]) - flagLow)
            )
        }
    }

    /// Sets the word starts of `slot`'s segment from its folded text: the elements it was stored
    /// from, now with word-start flags (for a text folded without them, see
    /// `ICUFolder.foldDeferringDictionaryWords`).
    ///
    /// - Complexity: O(*n*) in the text's number of elements.
    mutating func setWordStarts(slot: Int32, folded: FoldedSlice, codeBook: inout CodeBook) {
        guard let segment = segment(ofSlot: slot) else { return }
        noteRebuildChange(slot)
        var byte = start(ofSegment: segment)
        for i in 0..<folded.elements.count {
            if folded.flags[i] & FoldFlags.wordStart != 0 { setWordStart(at: byte) }
            byte += CodeBook.length(of: codeBook.code(for: folded.elements[i]))
        }
        assert(byte == bounds(ofSegment: segment).end, "the segment holds other elements")
    }

    private mutating func setWordStart(at byte: Int) {
        let word = byte >> 6
        if word >= wordStarts.count {
            growGently(&wordStarts, by: word + 1 - wordStarts.count)
            wordStarts.append(contentsOf: repeatElement(0, count: word + 1 - wordStarts.count))
        }
        wordStarts[word] |= 1 << UInt64(byte & 63)
    }

    /// Marks the segment of `slot` dead. `codesEnd` is where the last segment's separator ends
    /// when bytes of a pending segment follow it in `codes` (`finishPending`).
    ///
    /// - Complexity: O(1) expected.
    mutating func remove(slot: Int32, codesEnd: Int? = nil) {
        noteRebuildChange(slot)
        guard let segment = segment(ofSlot: slot) else { return }
        let bit: UInt64 = 1 << UInt64(segment & 63)
        deadSegments[segment >> 6] |= bit
        checkedSegments[segment >> 6] |= bit
        if segment != Int(slot) {
            awayOwners.remove(Int32(segment))
            awaySegments.remove(slot)
        }
        let start = self.start(ofSegment: segment)
        let end = segment + 1 < startOffsets.count ? self.start(ofSegment: segment + 1) : codesEnd ?? codes.count
        deadBytes += end - start
    }

    /// Byte range `start..<end` of a segment in `codes` (the separator at `end` excluded).
    @inline(__always)  // two loads; called per candidate in the hot loops
    func bounds(ofSegment segment: Int) -> (start: Int, end: Int) {
        let start = self.start(ofSegment: segment)
        let end = segment + 1 < startOffsets.count ? self.start(ofSegment: segment + 1) - 1 : codes.count - 1
        return (start, end)
    }

    /// Clears the members of `slots` whose field in this column is not `length` code bytes long
    /// (a field-start match of a pattern that long is then the whole field). Returns how many stay.
    ///
    /// - Complexity: O(*n* / 64 + *m*) for *m* members of a universe of *n* slots; O(*m*) for a
    ///   sparse set.
    func keepSegments(ofLength length: Int, in slots: inout Bitset) -> Int {
        if let members = slots.sparseMembers {
            let kept = members.filter { slot in
                guard let segment = segment(ofSlot: slot) else { return false }
                let (start, end) = bounds(ofSegment: segment)
                return end - start == length
            }
            slots = Bitset(sparse: kept, capacity: slots.capacity)
            return kept.count
        }
        return withKernelView { view in
            var view = view
            let wordCount = slots.capacity >> 6
            return slots.withUnsafeMutableWords { words in
                sift_keep_segments_of_length(&view, words, wordCount, length)
            }
        }
    }

    /// Number of segments, dead ones included.
    var segmentCount: Int { startOffsets.count }

    /// Where a segment starts in `codes`.
    ///
    /// - Complexity: O(1).
    @inline(__always)  // two loads
    func start(ofSegment segment: Int) -> Int {
        let block = segment >> 6
        if wideBlocks[block >> 6] & (1 << UInt64(block & 63)) != 0 {
            return Int(wideStarts[Int(blockStarts[block]) << 6 | (segment & 63)])
        }
        return Int(blockStarts[block]) + Int(startOffsets[segment])
    }

    /// Appends the start of the next segment (not before the previous one's).
    private mutating func appendStart(_ start: Int) {
        let segment = startOffsets.count
        let block = segment >> 6
        if segment & 63 == 0 {
            blockStarts.append(UInt32(start))
            startOffsets.append(0)
            if block >> 6 >= wideBlocks.count { wideBlocks.append(0) }
            return
        }
        let wideBit: UInt64 = 1 << UInt64(block & 63)
        if wideBlocks[block >> 6] & wideBit == 0 {
            let offset = start - Int(blockStarts[block])
            if offset <= Int(UInt16.max) {
                startOffsets.append(UInt16(offset))
                return
            }
            // The block becomes wide: its starts so far move to `wideStarts`, in full.
            let base = Int(blockStarts[block])
            let number = wideStarts.count >> 6
            wideStarts.append(contentsOf: repeatElement(0, count: 64))
            for earlier in (block << 6)..<segment {
                wideStarts[number << 6 | (earlier & 63)] = UInt32(base + Int(startOffsets[earlier]))
                startOffsets[earlier] = 0
            }
            blockStarts[block] = UInt32(number)
            wideBlocks[block >> 6] |= wideBit
        }
        wideStarts[Int(blockStarts[block]) << 6 | (segment & 63)] = UInt32(start)
        startOffsets.append(0)
    }

    /// The segment of a slot, or nil when it has none.
    ///
    /// - Complexity: O(1) expected: a bit test for a record at home, a map lookup otherwise.
    @inline(__always)  // called per candidate record
    func segment(ofSlot slot: Int32) -> Int? {
        let home = Int(slot)
        if home < startOffsets.count && !Self.bit(checkedSegments, home) { return home }
        if let away = awaySegments[slot] { return Int(away) }
        guard home < startOffsets.count, !Self.bit(deadSegments, home), awayOwners[slot] == nil else { return nil }
        return home
    }

    /// Whether every live segment belongs to the slot of its own number (no segment is owned
    /// from away): then a sweep of a range of segments sets bits of that range's slots only, and
    /// workers sweeping disjoint ranges aligned to 64 segments write disjoint words of one shared
    /// result (see `ParallelSweep`). True after a bulk load and a compaction.
    ///
    /// - Complexity: O(1).
    var everySegmentIsHome: Bool { awayOwners.count == 0 }

    /// The slot owning a segment, or nil when the segment is dead.
    ///
    /// - Complexity: O(1) expected.
    func owner(ofSegment segment: Int) -> Int32? {
        if Self.bit(deadSegments, segment) { return nil }
        return awayOwners[Int32(segment)] ?? Int32(segment)
    }

    /// Where a segment's flag bytes start in `flags`, or nil when it is simple.
    ///
    /// - Complexity: O(1).
    func flagStart(ofSegment segment: Int) -> Int? {
        let word = segment >> 6
        let bit: UInt64 = 1 << UInt64(segment & 63)
        guard flaggedSegments[word] & bit != 0 else { return nil }
        return Int(flagStarts[Int(flaggedRanks[word]) + (flaggedSegments[word] & (bit - 1)).nonzeroBitCount])
    }

    /// The `FoldFlags` of one byte of a segment (word starts included), as `flagBytes` gives them:
    /// `flagPosition` is the segment's `flagStart(ofSegment:)`, `offset` the byte's from its start.
    ///
    /// - Complexity: O(1).
    func flagByte(atOffset offset: Int, segmentStart start: Int, flagPosition: Int?) -> UInt8 {
        let byte = start + offset
        var value: UInt8
        if let flagPosition {
            value = PackedFlags.entry(flags, flagPosition + offset)
        } else {
            value = CodeBook.isLead(codes[byte]) ? FoldFlags.startOK | FoldFlags.endOK : 0
        }
        if (byte >> 6) < wordStarts.count && wordStarts[byte >> 6] & (1 << UInt64(byte & 63)) != 0 {
            value |= FoldFlags.wordStart
        }
        return value
    }

    /// The `FoldFlags` of every byte of a segment (word starts included), as the slow paths
    /// (single-record evaluation, ranking, highlighting) read them.
    ///
    /// - Complexity: O(*n*) in the segment's length.
    func flagBytes(ofSegment segment: Int) -> [UInt8] {
        let (start, end) = bounds(ofSegment: segment)
        var result = [UInt8](repeating: 0, count: end - start)
        let position = flagStart(ofSegment: segment)
        for i in 0..<(end - start) {
            let byte = start + i
            var value: UInt8
            if let position {
                value = PackedFlags.entry(flags, position + i)
            } else {
                value = CodeBook.isLead(codes[byte]) ? FoldFlags.startOK | FoldFlags.endOK : 0
            }
            if (byte >> 6) < wordStarts.count && wordStarts[byte >> 6] & (1 << UInt64(byte & 63)) != 0 {
                value |= FoldFlags.wordStart
            }
            result[i] = value
        }
        return result
    }

    /// Appends an empty dead segment (keeps segment numbers equal to slot numbers).
    mutating func appendPlaceholder() {
        let start = codes.count
        codes.append(0)
        appendSegmentEntry(start: start, owner: -1, flagStart: nil)
        // Not counted in `deadBytes`: compaction could not reclaim it (the slot may be reused).
    }

    /// The column with only the segments of `slots`, the one of `slots[i]` owned by slot `i`
    /// (for snapshots, which number records by their position in the original list).
    ///
    /// - Complexity: O(*n*) in the size of those segments.
    func renumbered(_ slots: [Int32]) -> FoldedColumn {
        var result = FoldedColumn()
        result.codes.reserveCapacity(codes.count - deadBytes + 16)
        result.startOffsets.reserveCapacity(slots.count)
        for (position, slot) in slots.enumerated() {
            if let segment = segment(ofSlot: slot) {
                result.appendSegment(segment, of: self, owner: Int32(position))
            } else {
                result.appendPlaceholder()
            }
        }
        return result
    }

    /// Whether `renumbered(slots)` holds exactly this column's buffers: slot `i` owns segment `i`
    /// for every `i`, no segment is dead, and no word-start word trails past the last set bit.
    /// Then a snapshot writes the column as it is (a fresh build's is), without copying it.
    ///
    /// - Complexity: O(*n*) for *n* slots.
    func isRenumbered(_ slots: [Int32]) -> Bool {
        guard slots.count == segmentCount, awayOwners.count == 0, awaySegments.count == 0,
            deadSegments.allSatisfy({ $0 == 0 }), slots.indices.allSatisfy({ slots[$0] == Int32($0) })
        else { return false }
        let usedWords = (wordStarts.lastIndex { $0 != 0 } ?? 0) + 1
        return wordStarts.count == usedWords
    }

    /// Copies one segment of `other` (codes, word starts, flags) to the end of this column.
    ///
    /// - Complexity: O(*n*) in the segment's length (word starts are read a word at a time).
    mutating func appendSegment(_ segment: Int, of other: FoldedColumn, owner: Int32) {
        let (start, end) = other.bounds(ofSegment: segment)
        let newStart = codes.count
        growGently(&codes, by: end - start + 1)
        codes.append(contentsOf: other.codes[start...end])
        var word = start >> 6
        while word < other.wordStarts.count && word << 6 < end {
            var bits = other.wordStarts[word]
            if word << 6 < start { bits &= ~0 << UInt64(start & 63) }
            if (word + 1) << 6 > end { bits &= ~(~0 << UInt64(end & 63)) }
            while bits != 0 {
                setWordStart(at: newStart + (word << 6 | bits.trailingZeroBitCount) - start)
                bits &= bits - 1
            }
            word += 1
        }
        var flagStart: Int? = nil
        if let position = other.flagStart(ofSegment: segment) {
            flagStart = 4 * flags.count
            growGently(&flags, by: (end - start) / 4 + 1)
            flags.append(contentsOf: other.flags[(position / 4)..<((position + end - start) / 4 + 1)])
        }
        appendSegmentEntry(start: newStart, owner: owner, flagStart: flagStart)
    }

    /// A column from stored buffers, checked so that no scan can read out of bounds: segments
    /// ascending and separated by 0 bytes, every slot owning at most one segment, flag positions
    /// inside their buffer.
    ///
    /// - Throws: a description of the first inconsistency.
    /// - Complexity: O(*n*) in the size of the buffers.
    init(storage: Storage, slotCount: Int) throws(SnapshotFormatError) {
        let s = storage
        let n = s.segmentStarts.count
        guard s.codes.first == 0, s.codes.last == 0, s.flags.first == 0 else { throw .init("column buffers") }
        guard s.segmentOwners.count == n, s.segmentFlags.count == n, s.wordStarts.count >= 1,
            s.wordStarts.count <= s.codes.count / 64 + 2
        else { throw .init("column table sizes") }
        var owned = Bitset(capacity: slotCount)
        var previous: UInt32 = 0
        codes = s.codes
        wordStarts = s.wordStarts
        flags = s.flags
        startOffsets.reserveCapacity(n)
        for segment in 0..<n {
            let start = s.segmentStarts[segment]
            let end = segment + 1 < n ? Int(s.segmentStarts[segment + 1]) - 1 : s.codes.count - 1
            guard start > previous || segment == 0, start >= 1, Int(start) <= end, end < s.codes.count,
                s.codes[end] == 0, s.codes[Int(start) - 1] == 0
            else { throw .init("segment \(segment) bounds") }
            previous = start
            let owner = s.segmentOwners[segment]
            guard owner >= -1, Int(owner) < slotCount, owner < 0 || !owned.contains(owner) else {
                throw .init("segment \(segment) owner")
            }
            if owner >= 0 { owned.insert(owner) }
            let flagPosition = s.segmentFlags[segment]
            if flagPosition != Self.simple {
                guard flagPosition % 4 == 0, Int(flagPosition) + (end - Int(start)) < 4 * s.flags.count else {
                    throw .init("segment \(segment) flags")
                }
            }
            appendSegmentEntry(
                start: Int(start),
                owner: owner,
                flagStart: flagPosition == Self.simple ? nil : Int(flagPosition)
            )
            if owner < 0 { deadBytes += end - Int(start) + 1 }  // dead segments may remain in a stored column
        }
        guard n == 0 || Int(s.segmentStarts[n - 1]) < s.codes.count else { throw .init("column end") }
    }

    /// Asks for the cache lines that replacing or removing a slot's segment reads: its bits and
    /// its start (see `SearchIndex.prefetchRecord`). `mutating` only so that callers reach the
    /// column in place, like `scanOne`.
    mutating func prefetch(slot: Int32) {
        let home = Int(slot)
        guard home >= 0, home < startOffsets.count else { return }
        checkedSegments.withUnsafeBufferPointer { sift_prefetch($0.baseAddress! + (home >> 6)) }
        deadSegments.withUnsafeBufferPointer { sift_prefetch($0.baseAddress! + (home >> 6)) }
        blockStarts.withUnsafeBufferPointer { sift_prefetch($0.baseAddress! + (home >> 6)) }
        startOffsets.withUnsafeBufferPointer { sift_prefetch($0.baseAddress! + home) }
    }

    /// Candidate and match status of one slot's segment (`sift_scan_one_segment`): 0 nothing,
    /// 1 candidate, 3 match; 0 when the slot has no segment.
    ///
    /// `mutating` only so that callers reach the column in place (through the array holding it):
    /// a copy would retain and release each of its buffers, which an edit would pay once per
    /// cached pattern. Nothing is modified.
    ///
    /// - Complexity: O(*s*) in the size of the segment.
    mutating func scanOne(slot: Int32, pattern: sift_scan_pattern, anchoredAtStart: Bool) -> Int32 {
        guard let segment = segment(ofSlot: slot) else { return 0 }
        return withKernelView { view in
            var view = view
            var pattern = pattern
            return sift_scan_one_segment(&view, &pattern, segment, anchoredAtStart ? 1 : 0)
        }
    }

    /// Calls `body` with the scan kernels' view of this column (valid only inside `body`).
    func withKernelView<R>(_ body: (sift_column_view) throws -> R) rethrows -> R {
        let none: UInt32 = 0
        let noOffset: UInt16 = 0
        return try withUnsafePointer(to: none) { nonePointer in
            try withUnsafePointer(to: noOffset) { noOffsetPointer in
                try codes.withUnsafeBufferPointer { codes in
                    try wordStarts.withUnsafeBufferPointer { wordStarts in
                        try flags.withUnsafeBufferPointer { flags in
                            try withKernelStarts { blockStarts, startOffsets, wideBlocks, wideStarts in
                                try withKernelBits { checked, dead, flagged, ranks, flagStarts in
                                    try withKernelMaps { owners, ownersCapacity, segments, segmentsCapacity in
                                        try body(
                                            sift_column_view(
                                                codes: codes.baseAddress!,
                                                length: codes.count,
                                                wordStarts: wordStarts.baseAddress!,
                                                wordCount: wordStarts.count,
                                                flags: flags.baseAddress!,
                                                blockStarts: blockStarts ?? nonePointer,
                                                startOffsets: startOffsets ?? noOffsetPointer,
                                                wideBlocks: wideBlocks,
                                                wideStarts: wideStarts ?? nonePointer,
                                                checkedSegments: checked,
                                                deadSegments: dead,
                                                flaggedSegments: flagged,
                                                flaggedRanks: ranks,
                                                flagStarts: flagStarts ?? nonePointer,
                                                awayOwners: owners,
                                                awayOwnersCapacity: ownersCapacity,
                                                awaySegments: segments,
                                                awaySegmentsCapacity: segmentsCapacity,
                                                segmentCount: segmentCount
                                            )
                                        )
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private func withKernelStarts<R>(
        _ body: (UnsafePointer<UInt32>?, UnsafePointer<UInt16>?, UnsafePointer<UInt64>, UnsafePointer<UInt32>?) throws
            -> R
    ) rethrows -> R {
        try blockStarts.withUnsafeBufferPointer { blockStarts in
            try startOffsets.withUnsafeBufferPointer { startOffsets in
                try wideBlocks.withUnsafeBufferPointer { wideBlocks in
                    try wideStarts.withUnsafeBufferPointer { wideStarts in
                        try body(
                            blockStarts.baseAddress,
                            startOffsets.baseAddress,
                            wideBlocks.baseAddress!,
                            wideStarts.baseAddress
                        )
                    }
                }
            }
        }
    }

    private func withKernelBits<R>(
        _ body: (
            UnsafePointer<UInt64>, UnsafePointer<UInt64>, UnsafePointer<UInt64>, UnsafePointer<UInt32>,
            UnsafePointer<UInt32>?
        ) throws -> R
    ) rethrows -> R {
        try checkedSegments.withUnsafeBufferPointer { checked in
            try deadSegments.withUnsafeBufferPointer { dead in
                try flaggedSegments.withUnsafeBufferPointer { flagged in
                    try flaggedRanks.withUnsafeBufferPointer { ranks in
                        try flagStarts.withUnsafeBufferPointer { flagStarts in
                            try body(
                                checked.baseAddress!,
                                dead.baseAddress!,
                                flagged.baseAddress!,
                                ranks.baseAddress!,
                                flagStarts.baseAddress
                            )
                        }
                    }
                }
            }
        }
    }

    private func withKernelMaps<R>(
        _ body: (UnsafePointer<Int32>, Int, UnsafePointer<Int32>, Int) throws -> R
    ) rethrows -> R {
        let empty: Int32 = -1
        return try withUnsafePointer(to: empty) { emptyPointer in
            try awayOwners.entries.withUnsafeBufferPointer { owners in
                try awaySegments.entries.withUnsafeBufferPointer { segments in
                    try body(
                        owners.baseAddress ?? emptyPointer,
                        awayOwners.capacity,
                        segments.baseAddress ?? emptyPointer,
                        awaySegments.capacity
                    )
                }
            }
        }
    }
}

// MARK: - Segments written a piece at a time

extension FoldedColumn {
    /// A segment being written at the end of the column's buffers a piece at a time
    /// (`appendPending`), for a text too long to fold whole first: the same bytes, word starts and
    /// flag bytes `set(slot:folded:codeBook:)` writes for the whole text, but not yet in the
    /// per-segment tables. `finishPending` enters it for a slot; `discardPending` takes its bytes
    /// back. Between them nothing else may change the column. (24 bytes: a record of a million
    /// fields may hold one per field until it is committed.)
    struct PendingSegment {
        /// Where its code bytes start in `codes` and its flag bytes in `flags`.
        fileprivate let start: Int
        fileprivate let flagBase: UInt32
        /// The code bytes room was made for (flag bytes take a quarter of that, if any), at most
        /// `UInt32.max`: only how much to grow by.
        fileprivate let reserved: UInt32
        /// Whether every element so far may start and end a match: then no flag bytes are
        /// written, and the first element that may not writes those of the bytes before it.
        fileprivate var simple = true
        /// Flag entries not yet written (fewer than four), and the segment's number of entries
        /// modulo 256 (only its last two bits are read).
        fileprivate var pendingFlags: UInt8 = 0
        fileprivate var entries: UInt8 = 0
    }

    /// Starts a pending segment, with room for `bytes` code bytes (more grows the buffers).
    ///
    /// - Complexity: O(1), and the buffers' growth.
    mutating func beginPending(reserving bytes: Int) -> PendingSegment {
        growGently(&codes, by: bytes + 1)
        growGently(&wordStarts, by: (codes.count + bytes) / 64 + 1 - wordStarts.count)
        // Flag bytes start below 1 GiB: `flagStarts` holds four times their start in a UInt32.
        return PendingSegment(
            start: codes.count,
            flagBase: UInt32(flags.count),
            reserved: UInt32(clamping: bytes)
        )
    }

    /// Encodes a piece of a pending segment's text (its next elements and their flags), giving
    /// new elements codes as `set(slot:folded:codeBook:)` does.
    ///
    /// - Complexity: O(*n*) amortized in the piece's number of elements.
    mutating func appendPending(_ piece: FoldedSlice, codeBook: inout CodeBook, to pending: inout PendingSegment) {
        let boundaryFlags = FoldFlags.startOK | FoldFlags.endOK
        let count = piece.elements.count
        growGently(&codes, by: 4 * count + 1)
        for i in 0..<count {
            let lead = codes.count
            let length = CodeBook.append(codeBook.code(for: piece.elements[i]), to: &codes)
            let flag = piece.flags[i]
            if flag & FoldFlags.wordStart != 0 { setWordStart(at: lead) }
            if pending.simple && flag & boundaryFlags != boundaryFlags {
                // The segment is flagged after all: the entries of the simple bytes before.
                pending.simple = false
                growGently(&flags, by: max(codes.count - pending.start, Int(pending.reserved)) / 4 + 2)
                for byte in pending.start..<lead {
                    appendFlagEntry(CodeBook.isLead(codes[byte]) ? boundaryFlags : 0, to: &pending)
                }
            }
            if !pending.simple {
                appendFlagEntry(flag & boundaryFlags, to: &pending)
                for _ in 1..<length { appendFlagEntry(0, to: &pending) }
            }
        }
    }

    /// Appends one packed flag entry of a pending segment (see `PackedFlags.appendSegment`).
    private mutating func appendFlagEntry(_ value: UInt8, to pending: inout PendingSegment) {
        pending.pendingFlags |= value << ((pending.entries & 3) << 1)
        pending.entries &+= 1
        if pending.entries & 3 == 0 {
            flags.append(pending.pendingFlags)
            pending.pendingFlags = 0
        }
    }

    /// Ends a pending segment and makes it `slot`'s, replacing any segment the slot had: the
    /// column is then exactly as `set(slot:folded:codeBook:)` with the whole text leaves it.
    ///
    /// - Complexity: O(1) amortized.
    mutating func finishPending(_ pending: PendingSegment, slot: Int32) {
        var pending = pending
        codes.append(0)
        var flagStart: Int? = nil
        if !pending.simple {
            appendFlagEntry(0, to: &pending)  // the separator's
            if pending.entries & 3 != 0 { flags.append(pending.pendingFlags) }
            flagStart = 4 * Int(pending.flagBase)
        }
        remove(slot: slot, codesEnd: pending.start)  // its bytes follow the last segment's
        appendSegmentEntry(start: pending.start, owner: slot, flagStart: flagStart)
    }

    /// Takes back everything a pending segment wrote (the column's buffers hold what they held
    /// before `beginPending`).
    ///
    /// - Complexity: O(1) amortized, plus the word starts written.
    mutating func discardPending(_ pending: PendingSegment) {
        let start = pending.start
        if start >> 6 < wordStarts.count {
            wordStarts[start >> 6] &= (1 << UInt64(start & 63)) &- 1
            for word in ((start >> 6) + 1)..<wordStarts.count { wordStarts[word] = 0 }
        }
        codes.removeLast(codes.count - start)
        flags.removeLast(flags.count - Int(pending.flagBase))
    }
}

// MARK: Packing (see `PooledColumns`)

extension FoldedColumn {
    /// Writes every buffer and count of the column as it is, so that `init(unpacking:)` gives back
    /// an equal column; nothing while a rebuild runs (such a column is not packed). Returns
    /// whether it wrote.
    ///
    /// - Complexity: O(*n*) in the column's size.
    func pack(into writer: inout PackedBytesWriter) -> Bool {
        guard rebuildTarget.isEmpty else { return false }
        writer.write(slotCount)
        writer.write(deadBytes)
        writer.write(codes)
        writer.write(wordStarts)
        writer.write(blockStarts)
        writer.write(startOffsets)
        writer.write(wideBlocks)
        writer.write(wideStarts)
        writer.write(deadSegments)
        writer.write(flaggedSegments)
        writer.write(flaggedRanks)
        writer.write(flagStarts)
        writer.write(flags)
        writer.write(checkedSegments)
        awayOwners.pack(into: &writer)
        awaySegments.pack(into: &writer)
        return true
    }

    /// The column `pack(into:)` wrote.
    ///
    /// - Complexity: O(*n*) in the column's size.
    init(unpacking reader: inout PackedBytesReader) {
        slotCount = reader.readInt()
        deadBytes = reader.readInt()
        codes = reader.readArray()
        wordStarts = reader.readArray()
        blockStarts = reader.readArray()
        startOffsets = reader.readArray()
        wideBlocks = reader.readArray()
        wideStarts = reader.readArray()
        deadSegments = reader.readArray()
        flaggedSegments = reader.readArray()
        flaggedRanks = reader.readArray()
        flagStarts = reader.readArray()
        flags = reader.readArray()
        checkedSegments = reader.readArray()
        awayOwners = SlotMap(unpacking: &reader)
        awaySegments = SlotMap(unpacking: &reader)
    }
}
