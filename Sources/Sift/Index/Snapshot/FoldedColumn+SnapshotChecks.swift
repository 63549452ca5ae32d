internal import SiftStorage

extension FoldedColumn.Storage {
    /// Checks, in full, what a saved column must be whatever its records' texts: the layout
    /// `save(to:)` writes and the invariants a fold can produce, so that a column that passes
    /// differs from a fresh build's only in which valid codes, word starts and flag entries its
    /// segments hold (what `SearchIndex.verifyFolding` compares with the records' texts).
    ///
    /// - Segment *i* belongs to record *i*, one segment per record, none dead.
    /// - Every segment is a sequence of whole codes (`CodeBook`'s self-synchronizing bytes) whose
    ///   numbers the code book has; `firstUses[code]` is set to the first record holding `code`
    ///   when it has none yet.
    /// - Word starts are set at lead bytes only (never at a continuation byte, a separator or
    ///   past the codes).
    /// - Flag bytes are laid out as a fold lays them out: one run per flagged segment, in
    ///   segment order, with no byte unused; continuation bytes, the separator and the padding of
    ///   the last byte have no flag bits; a flagged segment has an element that cannot both start
    ///   and end a match (else it would be simple).
    ///
    /// Call it on a storage `FoldedColumn(storage:slotCount:)` accepted (segment bounds checked).
    ///
    /// - Throws: a description of the first inconsistency.
    /// - Complexity: O(*n*) in the size of the buffers.
    func checkSaved(recordCount: Int, codeCount: Int, firstUses: inout [Int32]) throws(SnapshotFormatError) {
        let n = segmentStarts.count
        guard n == recordCount else { throw .init("\(n) segments for \(recordCount) records") }
        for segment in 0..<n where segmentOwners[segment] != Int32(segment) {
            throw .init("segment \(segment) belongs to record \(segmentOwners[segment])")
        }
        try checkCodes(codeCount: codeCount, firstUses: &firstUses)
        try checkWordStarts()
        try checkFlags()
    }

    /// Byte range `start..<end` of a segment in `codes` (the separator at `end`).
    func bounds(ofSegment segment: Int) -> (start: Int, end: Int) {
        let end = segment + 1 < segmentStarts.count ? Int(segmentStarts[segment + 1]) - 1 : codes.count - 1
        return (Int(segmentStarts[segment]), end)
    }

    /// Every segment decodes into whole codes of the code book.
    private func checkCodes(codeCount: Int, firstUses: inout [Int32]) throws(SnapshotFormatError) {
        let failure: Int? = codes.withUnsafeBufferPointer { codes in
            firstUses.withUnsafeMutableBufferPointer { firstUses in
                for segment in 0..<segmentStarts.count {
                    var p = Int(segmentStarts[segment])
                    let end = bounds(ofSegment: segment).end
                    while p < end {
                        guard let (code, length) = Self.decode(codes, at: p, end: end), Int(code) <= codeCount else {
                            return segment
                        }
                        if firstUses[Int(code)] == Int32.max { firstUses[Int(code)] = Int32(segment) }
                        p += length
                    }
                }
                return nil
            }
        }
        if let failure { throw .init("segment \(failure) holds a code that is not in the code book") }
    }

    /// The code at `p` (a lead byte) and its length in bytes, nil when the bytes before `end` are
    /// not one whole code (see `CodeBook.append(_:to:)`).
    @inline(__always)  // per code of every column
    static func decode(_ codes: UnsafeBufferPointer<UInt8>, at p: Int, end: Int) -> (UInt32, Int)? {
        let lead = codes[p]
        let length: Int
        var code: UInt32
        switch lead {
        case 0x01...0x7F: return (UInt32(lead), 1)
        case 0xC0...0xDF: (length, code) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, code) = (3, UInt32(lead & 0x0F))
        case 0xF0...0xF7: (length, code) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard end - p >= length else { return nil }
        for i in 1..<length {
            let byte = codes[p + i]
            guard byte & 0xC0 == 0x80 else { return nil }
            code = code << 6 | UInt32(byte & 0x3F)
        }
        let base: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x880 : 0x10880
        return (code + base, length)
    }

    /// Word starts only at lead bytes of codes.
    private func checkWordStarts() throws(SnapshotFormatError) {
        let failure: Int? = codes.withUnsafeBufferPointer { codes in
            for (word, bits) in wordStarts.enumerated() where bits != 0 {
                var rest = bits
                while rest != 0 {
                    let p = word << 6 | rest.trailingZeroBitCount
                    guard p < codes.count, codes[p] != 0, CodeBook.isLead(codes[p]) else { return p }
                    rest &= rest - 1
                }
            }
            return nil
        }
        if let failure { throw .init("a word start at byte \(failure), which starts no code") }
    }

    /// Flag runs laid out as a fold lays them out, with entries only where they can be.
    private func checkFlags() throws(SnapshotFormatError) {
        let boundary = FoldFlags.startOK | FoldFlags.endOK
        let failure: Int? = codes.withUnsafeBufferPointer { codes in
            flags.withUnsafeBufferPointer { flags in
                var next = 1  // the byte where the next flagged segment's run starts
                for segment in 0..<segmentStarts.count where segmentFlags[segment] != FoldedColumn.simple {
                    let (start, end) = bounds(ofSegment: segment)
                    let first = Int(segmentFlags[segment])
                    // One entry per code byte and one for the separator, four to a byte.
                    let bytes = (end - start + 1 + 3) / 4
                    guard first == 4 * next, next + bytes <= flags.count else { return segment }
                    var simple = true
                    for k in 0..<(4 * bytes) {
                        let entry = (flags[next + (k >> 2)] >> UInt8((k & 3) << 1)) & 3
                        if start + k < end && CodeBook.isLead(codes[start + k]) {
                            if entry != boundary { simple = false }
                        } else if entry != 0 {
                            return segment
                        }
                    }
                    if simple { return segment }
                    next += bytes
                }
                return next == flags.count ? nil : -1
            }
        }
        if let failure {
            throw .init(failure < 0 ? "flag bytes after the last flagged segment" : "segment \(failure) flags")
        }
    }
}
