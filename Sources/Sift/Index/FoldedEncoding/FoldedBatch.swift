/// Folded fields of many records (elements and flags, 9 bytes an element) in contiguous buffers, as the bulk insert's workers produce them:
/// no arrays per record, so folding a million records allocates a handful of times.
struct FoldedBatch {
    var elements: [Int64] = []
    var flags: [UInt8] = []
    /// End (in the element buffers) of each folded text; a text starts where the previous ends.
    var ends: [Int] = []
    /// Numbers of the texts that were left to fold a piece at a time when they are stored
    /// (`ICUFolder.fold(_:into:deferringDictionaryWords:streamingLongTexts:)`, or every text of
    /// a record of pooled columns: `SearchIndex.fold(_:folders:into:deferringDictionaryWords:)`),
    /// as ascending runs of consecutive texts: they hold no elements here.
    var streamed: [Range<Int>] = []

    mutating func removeAll() {
        elements.removeAll(keepingCapacity: true)
        flags.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        streamed.removeAll(keepingCapacity: true)
    }

    /// Appends an empty text marked as streamed (see `streamed`).
    mutating func appendStreamed() {
        if let last = streamed.last, last.upperBound == ends.count {
            streamed[streamed.count - 1] = last.lowerBound..<(ends.count + 1)
        } else {
            streamed.append(ends.count..<(ends.count + 1))
        }
        ends.append(elements.count)
    }

    /// Appends a copy of a folded text.
    ///
    /// - Complexity: O(*n*) in the text's number of elements.
    mutating func append(_ text: FoldedSlice) {
        elements.append(contentsOf: text.elements)
        flags.append(contentsOf: text.flags)
        ends.append(elements.count)
    }

    /// Calls `body` with a view of the batch's buffers.
    func withView<R>(_ body: (FoldedBatchView) -> R) -> R {
        elements.withUnsafeBufferPointer { elements in
            flags.withUnsafeBufferPointer { flags in
                ends.withUnsafeBufferPointer { ends in
                    streamed.withUnsafeBufferPointer { streamed in
                        body(FoldedBatchView(elements: elements, flags: flags, ends: ends, streamed: streamed))
                    }
                }
            }
        }
    }
}

/// A read-only view of a `FoldedBatch`, valid inside `withView`.
struct FoldedBatchView {
    let elements: UnsafeBufferPointer<Int64>
    let flags: UnsafeBufferPointer<UInt8>
    let ends: UnsafeBufferPointer<Int>
    let streamed: UnsafeBufferPointer<Range<Int>>

    /// Whether any of these texts is streamed (see `FoldedBatch.streamed`).
    ///
    /// - Complexity: O(log *r*) for *r* runs of streamed texts.
    func hasStreamed(_ texts: Range<Int>) -> Bool {
        let run = firstRun(endingAfter: texts.lowerBound)
        return run < streamed.count && streamed[run].lowerBound < texts.upperBound && !texts.isEmpty
    }

    /// Whether a text is streamed (see `FoldedBatch.streamed`).
    ///
    /// - Complexity: O(log *r*) for *r* runs of streamed texts.
    func isStreamed(_ text: Int) -> Bool {
        let run = firstRun(endingAfter: text)
        return run < streamed.count && streamed[run].contains(text)
    }

    /// The first run of streamed texts that ends after `text` (`streamed.count` when none does).
    private func firstRun(endingAfter text: Int) -> Int {
        var (low, high) = (0, streamed.count)
        while low < high {
            let middle = (low + high) / 2
            if streamed[middle].upperBound <= text { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The folded text with this number.
    subscript(text: Int) -> FoldedSlice {
        let start = text == 0 ? 0 : ends[text - 1]
        let end = ends[text]
        return FoldedSlice(
            elements: UnsafeBufferPointer(rebasing: elements[start..<end]),
            flags: UnsafeBufferPointer(rebasing: flags[start..<end])
        )
    }
}

/// One folded text: elements with their flags. (The UTF-16 offsets are not kept: only the
/// highlights of shown rows need them, and fold the text again, `ICUFolder.offsets(of:)`.)
struct FoldedSlice {
    let elements: UnsafeBufferPointer<Int64>
    let flags: UnsafeBufferPointer<UInt8>
}
