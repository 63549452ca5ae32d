/// Folded texts of consecutive records for one column, encoded by a bulk insert's worker in the
/// final form of `FoldedColumn`'s buffers (code bytes with their 0 separators, word-start bits,
/// flag bytes of non-simple segments, offset varints of non-regular ones), so that appending
/// them to the column is mostly copying.
///
/// A text with an element the code book does not have yet is *deferred*: it takes no bytes here,
/// and is encoded when the batch is committed, after the code book has given its new elements
/// their codes in order of first appearance.
struct EncodedSegments {
    /// Code bytes of the segments, each followed by a 0 separator.
    private(set) var codes: [UInt8] = []
    /// One bit per byte of `codes`: set at the lead byte of an element that starts a word.
    private(set) var wordStarts: [UInt64] = []
    /// `FoldFlags` (start and end bits) per code byte of the non-simple segments, as
    /// `FoldedColumn.flags` holds them (a 0 for the separator included).
    private(set) var flags: [UInt8] = []
    /// Offset varints of the non-regular segments, as `FoldedColumn` stores them.
    private(set) var offsets: [UInt8] = []
    /// Per segment, plus one entry past the last: where its bytes, flag bytes and offsets start.
    private(set) var byteStarts: [UInt32] = [0]
    private(set) var flagStarts: [UInt32] = [0]
    private(set) var offsetStarts: [UInt32] = [0]
    /// Per segment: `Kind` bits.
    private(set) var kinds: [UInt8] = []
    /// For each deferred segment, in order: the number of its text in the worker's deferred batch.
    private(set) var deferredTexts: [Int32] = []

    /// Bits of `kinds`.
    enum Kind {
        /// Every element may start and end a match: no flag bytes.
        static let simple: UInt8 = 1
        /// Every element covers one UTF-16 unit, in order: no offsets.
        static let regular: UInt8 = 2
        /// Not encoded yet (see the type's description).
        static let deferred: UInt8 = 4
    }

    /// Number of segments.
    var count: Int { kinds.count }

    /// Empties the buffers, keeping their capacity.
    mutating func removeAll() {
        codes.removeAll(keepingCapacity: true)
        wordStarts.removeAll(keepingCapacity: true)
        flags.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        byteStarts.removeAll(keepingCapacity: true)
        byteStarts.append(0)
        flagStarts.removeAll(keepingCapacity: true)
        flagStarts.append(0)
        offsetStarts.removeAll(keepingCapacity: true)
        offsetStarts.append(0)
        kinds.removeAll(keepingCapacity: true)
        deferredTexts.removeAll(keepingCapacity: true)
    }

    /// Whether a segment is deferred.
    @inline(__always)  // one load, per segment committed
    func isDeferred(_ segment: Int) -> Bool { kinds[segment] & Kind.deferred != 0 }

    /// Appends a deferred segment for text number `text` of the worker's deferred batch.
    mutating func appendDeferred(text: Int32) {
        kinds.append(Kind.deferred)
        byteStarts.append(UInt32(codes.count))
        flagStarts.append(UInt32(flags.count))
        offsetStarts.append(UInt32(offsets.count))
        deferredTexts.append(text)
    }

    /// Encodes a folded text as the next segment, exactly as `FoldedColumn.set` would, if the code
    /// book has every element of it; returns false (appending nothing) otherwise.
    ///
    /// - Complexity: O(*n*) in the text's number of elements.
    mutating func append(_ folded: FoldedSlice, codeBook: CodeBookView) -> Bool {
        let count = folded.elements.count
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: max(1, count)) { codeBuffer in
            let elementCodes = codeBuffer.baseAddress!
            var length = 1  // the separator
            var simple = true
            var regular = true
            let boundaryFlags = FoldFlags.startOK | FoldFlags.endOK
            for i in 0..<count {
                let code = codeBook.code(for: folded.elements[i])
                if code == 0 { return false }
                elementCodes[i] = code
                length += CodeBook.length(of: code)
                let flag = folded.flags[i]
                if flag & boundaryFlags != boundaryFlags { simple = false }
                if folded.lows[i] != Int32(truncatingIfNeeded: i)
                    || (flag & FoldFlags.endOK != 0 && folded.limits[i] != Int32(truncatingIfNeeded: i + 1))
                {
                    regular = false
                }
            }
            let start = codes.count
            let lastWord = (start + length - 1) >> 6
            if lastWord >= wordStarts.count {
                wordStarts.append(contentsOf: repeatElement(0, count: lastWord + 1 - wordStarts.count))
            }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { byteBuffer in
                let bytes = byteBuffer.baseAddress!
                wordStarts.withUnsafeMutableBufferPointer { words in
                    var position = 0
                    for i in 0..<count {
                        if folded.flags[i] & FoldFlags.wordStart != 0 {
                            let byte = start + position
                            words[byte >> 6] |= 1 << UInt64(byte & 63)
                        }
                        position += CodeBook.write(elementCodes[i], to: bytes + position)
                    }
                    bytes[position] = 0
                }
                codes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
                if !simple {
                    var element = 0
                    for byte in 0..<(length - 1) {
                        if CodeBook.isLead(bytes[byte]) {
                            flags.append(folded.flags[element] & boundaryFlags)
                            element += 1
                        } else {
                            flags.append(0)
                        }
                    }
                    flags.append(0)
                }
            }
            if !regular {
                var previousLow: Int32 = 0
                for i in 0..<count {
                    FoldedColumn.appendVarint(zigzag(folded.lows[i] - previousLow), to: &offsets)
                    FoldedColumn.appendVarint(zigzag(folded.limits[i] - folded.lows[i]), to: &offsets)
                    previousLow = folded.lows[i]
                }
            }
            kinds.append((simple ? Kind.simple : 0) | (regular ? Kind.regular : 0))
            byteStarts.append(UInt32(codes.count))
            flagStarts.append(UInt32(flags.count))
            offsetStarts.append(UInt32(offsets.count))
            return true
        }
    }
}
