/// Folded texts of consecutive records for one column, encoded by a bulk insert's worker in the
/// final form of `FoldedColumn`'s buffers (code bytes with their 0 separators, word-start bits,
/// flag bytes of non-simple segments), so that appending them to the column is mostly copying.
///
/// A text with an element the code book does not have yet is *deferred*: it takes no bytes here,
/// and is encoded when the batch is committed, after the code book has given its new elements
/// their codes in order of first appearance.
struct EncodedSegments {
    /// Code bytes of the segments, each followed by a 0 separator, up to `byteStarts.last`
    /// (the bytes after it are room for the next segment).
    private(set) var codes: [UInt8] = []
    /// One bit per byte of `codes`: set at the lead byte of an element that starts a word (0 past
    /// the last segment).
    private(set) var wordStarts: [UInt64] = []
    /// `FoldFlags` (start and end bits) per code byte of the non-simple segments, packed as
    /// `FoldedColumn.flags` holds them (a 0 entry for the separator included; each segment starts
    /// on a byte).
    private(set) var flags: [UInt8] = []
    /// Per segment, plus one entry past the last: where its bytes and flag bytes start.
    private(set) var byteStarts: [UInt32] = [0]
    private(set) var flagStarts: [UInt32] = [0]
    /// Per segment: `Kind` bits.
    private(set) var kinds: [UInt8] = []
    /// For each deferred segment, in order: the number of its text in the worker's deferred batch.
    private(set) var deferredTexts: [Int32] = []

    /// Bits of `kinds`.
    enum Kind {
        /// Every element may start and end a match: no flag bytes.
        static let simple: UInt8 = 1
        /// Not encoded yet (see the type's description).
        static let deferred: UInt8 = 4
    }

    /// Number of segments.
    var count: Int { kinds.count }

    /// Empties the buffers, keeping their capacity.
    mutating func removeAll() {
        let usedWords = (Int(byteStarts[byteStarts.count - 1]) + 63) >> 6
        if usedWords > 0 {
            wordStarts.withUnsafeMutableBufferPointer { words in
                for word in 0..<min(usedWords, words.count) { words[word] = 0 }
            }
        }
        flags.removeAll(keepingCapacity: true)
        byteStarts.removeAll(keepingCapacity: true)
        byteStarts.append(0)
        flagStarts.removeAll(keepingCapacity: true)
        flagStarts.append(0)
        kinds.removeAll(keepingCapacity: true)
        deferredTexts.removeAll(keepingCapacity: true)
    }

    /// Whether a segment is deferred.
    @inline(__always)  // one load, per segment committed
    func isDeferred(_ segment: Int) -> Bool { kinds[segment] & Kind.deferred != 0 }

    /// Appends a deferred segment for text number `text` of the worker's deferred batch.
    mutating func appendDeferred(text: Int32) {
        kinds.append(Kind.deferred)
        byteStarts.append(byteStarts[byteStarts.count - 1])
        flagStarts.append(UInt32(flags.count))
        deferredTexts.append(text)
    }

    /// Encodes a folded text as the next segment, exactly as `FoldedColumn.set` would, if the code
    /// book has every element of it; returns false (appending nothing) otherwise.
    ///
    /// - Complexity: O(*n*) in the text's number of elements.
    mutating func append(_ folded: FoldedSlice, codeBook: CodeBookView) -> Bool {
        let count = folded.elements.count
        let start = Int(byteStarts[byteStarts.count - 1])
        // Room for the longest codes (4 bytes) and the separator, and their word-start bits.
        let room = start + 4 * count + 1
        if codes.count < room {
            codes.append(contentsOf: repeatElement(0, count: max(room, 2 * codes.count) - codes.count))
        }
        let words = (room + 63) >> 6
        if wordStarts.count < words {
            wordStarts.append(contentsOf: repeatElement(0, count: max(words, 2 * wordStarts.count) - wordStarts.count))
        }
        let boundaryFlags = FoldFlags.startOK | FoldFlags.endOK
        var simple = true
        let length = codes.withUnsafeMutableBufferPointer { codes in
            wordStarts.withUnsafeMutableBufferPointer { words in
                let bytes = codes.baseAddress! + start
                var position = 0
                for i in 0..<count {
                    let code = codeBook.code(for: folded.elements[i])
                    if code == 0 {
                        // Undo the word starts set so far.
                        for byte in start..<(start + position) { words[byte >> 6] &= ~(1 << UInt64(byte & 63)) }
                        return -1
                    }
                    let flag = folded.flags[i]
                    if flag & FoldFlags.wordStart != 0 {
                        let byte = start + position
                        words[byte >> 6] |= 1 << UInt64(byte & 63)
                    }
                    if flag & boundaryFlags != boundaryFlags { simple = false }
                    position += CodeBook.write(code, to: bytes + position)
                }
                bytes[position] = 0
                return position + 1
            }
        }
        guard length > 0 else { return false }
        if !simple {
            PackedFlags.appendSegment(
                codes: codes[start..<(start + length - 1)],
                elementFlags: folded.flags,
                to: &flags
            )
        }
        kinds.append(simple ? Kind.simple : 0)
        byteStarts.append(UInt32(start + length))
        flagStarts.append(UInt32(flags.count))
        return true
    }
}
