internal import CSiftICU

/// A private clone of a collator with the iterators folding needs. Not thread-safe: one per thread
/// (or per owner that serializes access).
package final class ICUFolder {
    let collator: ICUCollator
    private let handle: OpaquePointer

    init(_ collator: ICUCollator) throws(SiftError) {
        self.collator = collator
        var status: Int32 = 0
        guard let opened = sift_folder_open(collator.handle, &status), status <= 0 else {
            throw .icu(
                operation: "open collation iterators",
                locale: collator.collation.locale,
                status: statusName(status)
            )
        }
        handle = opened
    }

    deinit { sift_folder_close(handle) }

    /// Folds a field's text: elements, offsets and flags.
    ///
    /// - Complexity: O(*n*) where *n* is the length of the text.
    package func fold(_ text: String) throws(SiftError) -> FoldedText {
        var text = text
        var status: Int32 = 0
        let count = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                sift_folder_fold(handle, $0.baseAddress, Int32($0.count), &status)
            }
        }
        return try collect(count: count, status: status, withDetails: true)
    }

    /// Folds a field's text and appends its elements and flags to a batch (no per-text allocations).
    ///
    /// With `deferringDictionaryWords` (single-record edits), a text ICU segments into words with
    /// a dictionary (Thai, Lao, Khmer, Myanmar, Chinese, Japanese) gets no word starts: that
    /// segmentation misses the cache all over a large dictionary, 5–25 µs a text. Returns whether
    /// they were left out.
    ///
    /// - Complexity: O(*n*) where *n* is the length of the text.
    ///
    /// A text longer than `pieceLength` UTF-8 bytes is folded in pieces (see
    /// `foldInPieces(_:into:)`), with the same result; its word starts are never left out.
    ///
    /// With `streamingLongTexts`, such a text is not folded here: the batch takes an empty text
    /// marked as streamed (`FoldedBatch.appendStreamed()`), which the caller folds later, a piece
    /// at a time, with `forEachPiece(of:_:)`.
    @discardableResult
    func fold(
        _ text: String,
        into batch: inout FoldedBatch,
        deferringDictionaryWords: Bool = false,
        streamingLongTexts: Bool = false
    ) throws(SiftError)
        -> Bool
    {
        var text = text
        if foldsInPieces(text) {
            if streamingLongTexts {
                batch.appendStreamed()
            } else {
                try foldInPieces(&text, into: &batch)
            }
            return false
        }
        var status: Int32 = 0
        var deferred: Int32 = 0
        let count = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                deferringDictionaryWords
                    ? sift_folder_fold_deferring_dictionary_words(
                        handle,
                        chars.baseAddress,
                        Int32(chars.count),
                        &deferred,
                        &status
                    )
                    : sift_folder_fold(handle, chars.baseAddress, Int32(chars.count), &status)
            }
        }
        try append(count: count, status: status, to: &batch)
        return deferred != 0
    }

    /// Texts longer than this many UTF-8 bytes are folded in pieces, so that the shim's buffers
    /// (about 21 bytes per collation element and 2 per UTF-16 unit) stay bounded by the piece
    /// instead of growing with the text. Internal, settable for tests.
    package var pieceLength = ICUFolder.defaultPieceLength

    /// Whether long texts may be cut at spaces under this collator (see `sift_folder_space_splits`).
    var spaceSplitsForTesting: Bool { sift_folder_space_splits(handle) != 0 }

    /// The number of elements the shim's buffers have room for (for tests of their bound).
    var elementCapacityForTesting: Int { Int(sift_folder_element_capacity(handle)) }

    /// Elements a streamed fold (see `foldPieces`) hands out at a time. Internal, settable for
    /// tests.
    package var streamedChunk: Int32 = 1 << 16

    /// Stretches of text without a cut folded streamed so far (tests read it).
    var streamedStretches = 0

    /// Bytes of a streamed stretch converted to UTF-16 at a time (about 256 KiB unless set;
    /// tests set a few). Internal.
    package var streamedSubChunkBytes: Int = 1 << 18 {
        didSet { sift_folder_set_stream_chunk_bytes(handle, Int32(clamping: max(1, streamedSubChunkBytes))) }
    }

    /// The default `pieceLength`: 256 KiB.
    static let defaultPieceLength = 1 << 18

    /// Folds a long text in pieces, appending exactly what one fold of the whole text appends.
    ///
    /// A piece ends before a space (U+0020) that follows a character after which
    /// `sift_splits_before_space` allows a cut: a grapheme, word and normalization boundary that
    /// no contraction spans (the caller checked `sift_folder_space_splits`), so the collation
    /// elements, grapheme boundaries and word segments on each side are those of the whole text.
    /// An element's flags depend on the element after it, so each fold reads on to the next cut
    /// (further while that stretch has no element) and keeps only the elements of its piece; their
    /// offsets are moved by the piece's UTF-16 start. A text with no cut for a long way folds as one
    /// piece there.
    ///
    /// - Complexity: O(*n*) in the length of the text; memory O(*p*) besides the batch, for pieces
    ///   of *p* bytes (up to the next cut).
    private func foldInPieces(_ text: inout String, into batch: inout FoldedBatch) throws(SiftError) {
        let pieceLength = max(1, self.pieceLength)
        try text.withUTF8 { bytes in
            Result { () throws(SiftError) in
                try foldPieces(of: bytes, pieceLength: pieceLength) { count, _ in
                    appendElements(count, to: &batch)
                    return true
                }
            }
        }.get()
        batch.ends.append(batch.elements.count)
    }

    /// Whether `fold(_:into:)` folds this text in pieces: it is longer than `pieceLength`.
    func foldsInPieces(_ text: String) -> Bool {
        text.utf8.count > pieceLength
    }

    /// Folds a text in pieces, as `fold(_:into:)` does, calling `body` with each piece's elements
    /// and flags (valid only during the call) instead of collecting them: together they are
    /// exactly what one fold of the whole text gives. A text that `foldsInPieces(_:)` refuses is
    /// one piece.
    ///
    /// - Complexity: O(*n*) in the length of the text; memory O(*p*) for pieces of *p* bytes.
    func forEachPiece(of text: String, _ body: (FoldedSlice) -> Void) throws(SiftError) {
        var text = text
        func emit(_ count: Int, _: Int32) -> Bool {
            let none = UnsafeBufferPointer<Int64>(start: nil, count: 0)
            body(
                FoldedSlice(
                    elements: count > 0 ? UnsafeBufferPointer(start: sift_folder_ces(handle), count: count) : none,
                    flags: count > 0
                        ? UnsafeBufferPointer(start: sift_folder_flags(handle), count: count)
                        : UnsafeBufferPointer(start: nil, count: 0)
                )
            )
            return true
        }
        guard foldsInPieces(text) else {
            let count = try text.withUTF8 { bytes in
                Result { () throws(SiftError) in try foldBytes(bytes, 0..<bytes.count) }
            }.get()
            _ = emit(count, 0)
            return
        }
        let pieceLength = max(1, self.pieceLength)
        try text.withUTF8 { bytes in
            Result { () throws(SiftError) in try foldPieces(of: bytes, pieceLength: pieceLength, emit: emit) }
        }.get()
    }

    /// The UTF-16 low index and match limit of every element of a text (as `fold(_:)` gives them),
    /// folded in pieces when it is longer than `pieceLength`: 8 bytes per element besides a piece's
    /// buffers. `count`, the number of elements if the caller knows it, reserves the arrays at once
    /// (growing them by doubling would hold two copies at a time).
    ///
    /// - Complexity: O(*n*) in the length of the text.
    func offsets(of text: String, count: Int = 0) throws(SiftError) -> (lows: [Int32], limits: [Int32]) {
        guard foldsInPieces(text) else {
            let folded = try fold(text)
            return (folded.lows, folded.limits)
        }
        var text = text
        var lows: [Int32] = []
        var limits: [Int32] = []
        lows.reserveCapacity(count)
        limits.reserveCapacity(count)
        let pieceLength = max(1, self.pieceLength)
        try text.withUTF8 { bytes in
            Result { () throws(SiftError) in
                try foldPieces(of: bytes, pieceLength: pieceLength) { count, shift in
                    guard count > 0, let low = sift_folder_lows(handle), let limit = sift_folder_limits(handle)
                    else { return true }
                    for i in 0..<count {
                        lows.append(low[i] + shift)
                        limits.append(limit[i] + shift)
                    }
                    return true
                }
            }
        }.get()
        return (lows, limits)
    }

    /// Folds UTF-8 text as `offsets(of:count:)` does, in pieces when it is longer than
    /// `pieceLength`, handing `body` the UTF-16 low indexes and match limits of each piece's
    /// elements in turn (valid during the call; add `shift` to each) until it returns false:
    /// memory O(*p*) for pieces of *p* bytes, whatever the length of the text.
    ///
    /// - Complexity: O(*n*) in the length of the text read before `body` stops it.
    func forEachOffsetPiece(
        ofUTF8 bytes: UnsafeBufferPointer<UInt8>,
        _ body: (_ lows: UnsafeBufferPointer<Int32>, _ limits: UnsafeBufferPointer<Int32>, _ shift: Int32) -> Bool
    ) throws(SiftError) {
        func emit(_ count: Int, _ shift: Int32) -> Bool {
            guard count > 0, let low = sift_folder_lows(handle), let limit = sift_folder_limits(handle) else {
                return true
            }
            return body(
                UnsafeBufferPointer(start: low, count: count),
                UnsafeBufferPointer(start: limit, count: count),
                shift
            )
        }
        guard bytes.count > pieceLength else {
            _ = emit(try foldBytes(bytes, 0..<bytes.count), 0)
            return
        }
        try foldPieces(of: bytes, pieceLength: max(1, pieceLength), emit: emit)
    }

    /// The loop of `foldInPieces(_:into:)` over the text's UTF-8 bytes: after each fold, `emit`
    /// takes the number of the folder's current elements that belong to the piece and the UTF-16
    /// offset of the piece, and returns whether to go on.
    ///
    /// A stretch without a cut longer than `streamedStretch` pieces (a long text without spaces,
    /// or any long text when the collator forbids cuts at spaces) is folded as one streamed fold
    /// (`sift_folder_stream_begin`): the shim holds its UTF-16 and a chunk of elements at a time,
    /// not 21 bytes an element for all of it.
    private func foldPieces(
        of bytes: UnsafeBufferPointer<UInt8>,
        pieceLength: Int,
        emit: (Int, Int32) -> Bool
    ) throws(SiftError) {
        let cutsAtSpaces = sift_folder_space_splits(handle) != 0
        func nextCut(from index: Int) -> Int { cutsAtSpaces ? Self.nextCut(in: bytes, from: index) : bytes.count }
        var start = 0
        var utf16Start: Int32 = 0
        while true {
            let cut = nextCut(from: start + pieceLength)
            var end = cut < bytes.count ? nextCut(from: cut + 1) : bytes.count
            if cut - start > Self.streamedStretch * pieceLength {
                // An element's flags depend on the one after it: read on to the first element
                // after the cut (its own fold holds it, as the stretch's does).
                while end < bytes.count, try !hasElement(bytes, cut..<end) {
                    end = nextCut(from: end + max(end - cut, pieceLength))
                }
                let pieceUTF16 = cut < bytes.count ? Self.utf16Count(bytes, start..<cut) : Int32.max
                guard try foldStreamed(bytes, start..<end, before: pieceUTF16, shift: utf16Start, emit: emit),
                    cut < bytes.count
                else { return }
                utf16Start += pieceUTF16
                start = cut
                continue
            }
            while true {
                let count = try foldBytes(bytes, start..<end)
                if end == bytes.count {
                    // The fold reached the end of the text: all of it is the whole text's.
                    _ = emit(count, utf16Start)
                    return
                }
                let pieceUTF16 = Self.utf16Count(bytes, start..<cut)
                let kept = Int(sift_folder_count_before(handle, pieceUTF16))
                if kept < count {
                    guard emit(kept, utf16Start) else { return }
                    utf16Start += pieceUTF16
                    start = cut
                    break
                }
                // No element after the cut within reach: read further.
                end = nextCut(from: end + max(end - cut, pieceLength))
            }
        }
    }

    /// Stretches without a cut longer than this many pieces are folded streamed (see
    /// `foldPieces`).
    static let streamedStretch = 4

    /// Folds `bytes[range]` streamed, calling `emit` with each chunk of its elements that lie
    /// before UTF-16 index `limit` of the range (and `shift`), until one does not.
    ///
    /// - Returns: whether `emit` asked to go on every time.
    private func foldStreamed(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ range: Range<Int>,
        before limit: Int32,
        shift: Int32,
        emit: (Int, Int32) -> Bool
    ) throws(SiftError) -> Bool {
        defer { sift_folder_release_text(handle) }
        streamedStretches += 1
        var status = beginStream(bytes, range)
        while status <= 0 {
            let count = sift_folder_stream_next(handle, max(1, streamedChunk), &status)
            guard count >= 0, status <= 0 else { break }
            guard count > 0 else { return true }
            let kept = Int(sift_folder_count_before(handle, limit))
            guard emit(kept, shift) else { return false }
            if kept < count { return true }
        }
        throw .icu(operation: "fold text", locale: collator.collation.locale, status: statusName(status))
    }

    /// Starts a streamed fold of `bytes[range]`; returns the shim's status.
    private func beginStream(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int32 {
        var status: Int32 = 0
        _ = sift_folder_stream_begin(handle, bytes.baseAddress! + range.lowerBound, Int32(range.count), &status)
        return status
    }

    /// Whether `bytes[range]` (valid UTF-8 starting at a cut) has an element, read streamed.
    private func hasElement(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(SiftError) -> Bool {
        defer { sift_folder_release_text(handle) }
        var status = beginStream(bytes, range)
        let count = status <= 0 ? sift_folder_stream_next(handle, 1, &status) : -1
        guard count >= 0, status <= 0 else {
            throw .icu(operation: "fold text", locale: collator.collation.locale, status: statusName(status))
        }
        return count > 0
    }

    /// Folds `bytes[range]` (valid UTF-8 starting at a cut); returns the number of elements.
    private func foldBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(SiftError) -> Int {
        var status: Int32 = 0
        let count = bytes.withMemoryRebound(to: CChar.self) { chars in
            sift_folder_fold(handle, chars.baseAddress! + range.lowerBound, Int32(range.count), &status)
        }
        guard count >= 0, status <= 0 else {
            throw .icu(operation: "fold text", locale: collator.collation.locale, status: statusName(status))
        }
        return Int(count)
    }

    /// Appends the first `count` elements of the last fold.
    private func appendElements(_ count: Int, to batch: inout FoldedBatch) {
        guard count > 0 else { return }
        batch.elements.append(contentsOf: UnsafeBufferPointer(start: sift_folder_ces(handle), count: count))
        batch.flags.append(contentsOf: UnsafeBufferPointer(start: sift_folder_flags(handle), count: count))
    }

    /// The first index at or after `from` where a piece may begin (a space after a character that
    /// allows a cut), or `bytes.count`.
    static func nextCut(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var i = max(1, from)
        while i < bytes.count {
            if bytes[i] == 0x20 && bytes[i - 1] != 0x20 {
                // The scalar before: back over continuation bytes.
                var lead = i - 1
                while lead > 0 && bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
                if sift_splits_before_space(Self.decodeScalar(bytes, at: lead)) != 0 { return i }
            }
            i += 1
        }
        return bytes.count
    }

    /// The scalar whose UTF-8 encoding starts at `index` (valid UTF-8).
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int32 {
        let b0 = Int32(bytes[index])
        if b0 < 0x80 { return b0 }
        if b0 < 0xE0 { return (b0 & 0x1F) << 6 | Int32(bytes[index + 1] & 0x3F) }
        if b0 < 0xF0 {
            return (b0 & 0x0F) << 12 | Int32(bytes[index + 1] & 0x3F) << 6 | Int32(bytes[index + 2] & 0x3F)
        }
        return (b0 & 0x07) << 18 | Int32(bytes[index + 1] & 0x3F) << 12 | Int32(bytes[index + 2] & 0x3F) << 6
            | Int32(bytes[index + 3] & 0x3F)
    }

    /// The number of UTF-16 code units of `bytes[range]` (valid UTF-8).
    private static func utf16Count(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int32 {
        var count: Int32 = 0
        for i in range {
            let byte = bytes[i]
            if byte & 0xC0 != 0x80 { count += 1 }
            if byte >= 0xF0 { count += 1 }
        }
        return count
    }

    /// Appends the folder's last folded text to a batch.
    private func append(count: Int32, status: Int32, to batch: inout FoldedBatch) throws(SiftError) {
        guard count >= 0, status <= 0 else {
            throw .icu(operation: "fold text", locale: collator.collation.locale, status: statusName(status))
        }
        let n = Int(count)
        if n > 0 {
            batch.elements.append(contentsOf: UnsafeBufferPointer(start: sift_folder_ces(handle), count: n))
            batch.flags.append(contentsOf: UnsafeBufferPointer(start: sift_folder_flags(handle), count: n))
        }
        batch.ends.append(batch.elements.count)
    }

    /// Folds UTF-16 text (which may hold lone surrogates).
    package func fold(utf16 text: [UInt16]) throws(SiftError) -> FoldedText {
        var status: Int32 = 0
        let count = text.withUnsafeBufferPointer {
            sift_folder_fold_utf16(handle, $0.baseAddress, Int32($0.count), &status)
        }
        return try collect(count: count, status: status, withDetails: true)
    }

    /// The processed collation elements of a query, or an empty array when ICU usearch treats the
    /// query as having none (its CE table is empty: then usearch matches everywhere with zero
    /// length).
    ///
    /// - Complexity: O(*m*) where *m* is the length of the query.
    package func patternElements(_ pattern: String) throws(SiftError) -> [Int64] {
        var pattern = pattern
        var status: Int32 = 0
        let count = pattern.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                sift_folder_fold_pattern(handle, $0.baseAddress, Int32($0.count), &status)
            }
        }
        let elements = try collect(count: count, status: status, withDetails: false).elements
        return sift_folder_pattern_ce_count(handle) == 0 ? [] : elements
    }

    /// The processed collation elements of a UTF-16 query (which may hold lone surrogates).
    package func patternElements(utf16 pattern: [UInt16]) throws(SiftError) -> [Int64] {
        var status: Int32 = 0
        let count = pattern.withUnsafeBufferPointer {
            sift_folder_fold_pattern_utf16(handle, $0.baseAddress, Int32($0.count), &status)
        }
        let elements = try collect(count: count, status: status, withDetails: false).elements
        return sift_folder_pattern_ce_count(handle) == 0 ? [] : elements
    }

    private func collect(count: Int32, status: Int32, withDetails: Bool) throws(SiftError) -> FoldedText {
        guard count >= 0, status <= 0 else {
            throw .icu(operation: "fold text", locale: collator.collation.locale, status: statusName(status))
        }
        var result = FoldedText()
        result.utf16Length = sift_folder_utf16_length(handle)
        let n = Int(count)
        guard n > 0 else { return result }
        result.elements = Array(UnsafeBufferPointer(start: sift_folder_ces(handle), count: n))
        if withDetails {
            result.lows = Array(UnsafeBufferPointer(start: sift_folder_lows(handle), count: n))
            result.limits = Array(UnsafeBufferPointer(start: sift_folder_limits(handle), count: n))
            result.flags = Array(UnsafeBufferPointer(start: sift_folder_flags(handle), count: n))
        }
        return result
    }

    /// The words of a query (ICU word break iterator for the collator's locale), as substrings.
    package func queryWords(_ query: String) throws(SiftError) -> [Substring] {
        var query = query
        var status: Int32 = 0
        var ranges = [Int32](repeating: 0, count: 64)
        var count: Int32 = 0
        for _ in 0..<2 {
            let capacity = Int32(ranges.count / 2)
            count = query.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    sift_folder_query_words(handle, chars.baseAddress, Int32(chars.count), &ranges, capacity, &status)
                }
            }
            guard count >= 0, status <= 0 else {
                throw .icu(
                    operation: "split a query into words",
                    locale: collator.collation.locale,
                    status: statusName(status)
                )
            }
            if count <= capacity { break }
            ranges = [Int32](repeating: 0, count: Int(count) * 2)
        }
        let utf8 = query.utf8
        return (0..<Int(count)).map { i in
            let start = utf8.index(utf8.startIndex, offsetBy: Int(ranges[2 * i]))
            let end = utf8.index(start, offsetBy: Int(ranges[2 * i + 1]))
            return query[start..<end]
        }
    }

    /// ICU usearch's identical-strength check: NFD of `text[start..<limit]` (UTF-16) equals NFD of `pattern`.
    func canonicallyEqual(_ text: String, utf16Range start: Int32, _ limit: Int32, pattern: String) -> Bool {
        var text = text
        var pattern = pattern
        return text.withUTF8 { t in
            pattern.withUTF8 { p in
                t.withMemoryRebound(to: CChar.self) { tc in
                    p.withMemoryRebound(to: CChar.self) { pc in
                        sift_folder_nfd_equal(
                            handle,
                            tc.baseAddress!,
                            Int32(tc.count),
                            start,
                            limit,
                            pc.baseAddress!,
                            Int32(pc.count)
                        ) != 0
                    }
                }
            }
        }
    }

    /// Writes the ICU sort key of UTF-8 text (its terminating 0 included) to `key`, and returns
    /// its length; a length above `capacity` means nothing usable was written (call again with
    /// that much room). For sorting a whole column without a `String` or an array per key.
    ///
    /// - Complexity: O(*n*) where *n* is the length of the text.
    func sortKey(utf8: UnsafeBufferPointer<UInt8>, into key: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        utf8.withMemoryRebound(to: CChar.self) { chars in
            Int(max(0, sift_folder_sort_key(handle, chars.baseAddress, Int32(chars.count), key, Int32(capacity))))
        }
    }

    /// Collation order of two texts: negative, zero or positive, consistent with `sortKey`.
    ///
    /// - Complexity: O(*n*) in the length of the shorter text, usually much less.
    func compare(_ a: String, _ b: String) -> Int32 {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.withMemoryRebound(to: CChar.self) { xc in
                    y.withMemoryRebound(to: CChar.self) { yc in
                        sift_folder_compare(handle, xc.baseAddress, Int32(xc.count), yc.baseAddress, Int32(yc.count))
                    }
                }
            }
        }
    }

    /// ICU usearch's matches of `pattern` in `text` (first to last, non-overlapping), as UTF-16
    /// (start, length) pairs. This is the reference Sift's own matching is tested against.
    func referenceMatches(of pattern: String, in text: String) throws(SiftError) -> [(start: Int, length: Int)] {
        guard !pattern.isEmpty, !text.isEmpty else { return [] }
        var pattern = pattern
        var text = text
        var status: Int32 = 0
        var buffer = [Int32](repeating: 0, count: 64)
        var count: Int32 = 0
        for _ in 0..<2 {
            let capacity = Int32(buffer.count / 2)
            count = pattern.withUTF8 { p in
                text.withUTF8 { t in
                    p.withMemoryRebound(to: CChar.self) { pc in
                        t.withMemoryRebound(to: CChar.self) { tc in
                            sift_reference_search(
                                handle,
                                pc.baseAddress!,
                                Int32(pc.count),
                                tc.baseAddress!,
                                Int32(tc.count),
                                &buffer,
                                capacity,
                                &status
                            )
                        }
                    }
                }
            }
            guard count >= 0, status <= 0 else {
                throw .icu(operation: "run usearch", locale: collator.collation.locale, status: statusName(status))
            }
            if count <= capacity { break }
            buffer = [Int32](repeating: 0, count: Int(count) * 2)
        }
        return (0..<Int(count)).map { (Int(buffer[2 * $0]), Int(buffer[2 * $0 + 1])) }
    }

    /// The oracle's collation elements of `text` (`sift_reference_elements`): ICU's collation
    /// element iterator, processed as usearch compares elements, ignorable ones dropped.
    func referenceElements(of text: String) throws(SiftError) -> [Int64] {
        guard !text.isEmpty else { return [] }
        var text = text
        var status: Int32 = 0
        var buffer = [Int64](repeating: 0, count: 64)
        for _ in 0..<2 {
            let capacity = Int32(buffer.count)
            let count = text.withUTF8 { t in
                t.withMemoryRebound(to: CChar.self) { tc in
                    buffer.withUnsafeMutableBufferPointer { out in
                        sift_reference_elements(
                            handle,
                            tc.baseAddress!,
                            Int32(tc.count),
                            out.baseAddress,
                            capacity,
                            &status
                        )
                    }
                }
            }
            guard count >= 0, status <= 0 else {
                throw .icu(
                    operation: "iterate collation elements",
                    locale: collator.collation.locale,
                    status: statusName(status)
                )
            }
            if count <= capacity { return Array(buffer[0..<Int(count)]) }
            buffer = [Int64](repeating: 0, count: Int(count))
        }
        return buffer
    }

    /// `referenceMatches` over UTF-16 input (lone surrogates allowed).
    func referenceMatches(of pattern: [UInt16], in text: [UInt16]) throws(SiftError) -> [(start: Int, length: Int)] {
        guard !pattern.isEmpty, !text.isEmpty else { return [] }
        var status: Int32 = 0
        var buffer = [Int32](repeating: 0, count: 2 * max(16, text.count))
        let capacity = Int32(buffer.count / 2)
        let count = pattern.withUnsafeBufferPointer { p in
            text.withUnsafeBufferPointer { t in
                sift_reference_search_utf16(
                    handle,
                    p.baseAddress!,
                    Int32(p.count),
                    t.baseAddress!,
                    Int32(t.count),
                    &buffer,
                    capacity,
                    &status
                )
            }
        }
        guard count >= 0, status <= 0 else {
            throw .icu(operation: "run usearch", locale: collator.collation.locale, status: statusName(status))
        }
        return (0..<Int(min(count, capacity))).map { (Int(buffer[2 * $0]), Int(buffer[2 * $0 + 1])) }
    }
}
