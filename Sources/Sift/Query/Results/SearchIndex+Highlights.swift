internal import SiftStorage

extension SearchIndex {
    /// The ranges a query matches in each searched field of one record, in UTF-16 code units
    /// (as ICU and `NSRange` count), computed on demand for the rows being shown.
    ///
    /// The ranges are those ICU usearch reports: `strasse` in `Straße` is all six letters. In
    /// `.words` mode they are the matches of every query word at word starts (with operators: of
    /// the words of every positive term that matches the record, and of its positive phrases
    /// anywhere; negated terms are never highlighted); in `.prefix` mode the one match at the
    /// start of each field; in `.fuzzy` mode the matched elements of the alignment the score is
    /// computed on (see `MatchMode.fuzzy`), adjacent ones merged. With typo tolerance
    /// (`Query.typos`), a query word without an exact match in a field shows, in that field, the
    /// nearest prefix of every record word (`.prefix`: of the field) within its edits. Fields
    /// without a match are absent. A query with
    /// no collation elements (empty, or only ignorable characters) matches everything and
    /// highlights nothing.
    ///
    /// Each pattern is first checked against the field by the scan kernel (no folding); only the
    /// patterns that match it are walked for their ranges (the field folded again for its
    /// offsets), so a query of many terms costs, per record, a walk per term that matched it.
    /// `isCancelled` is polled before each pattern and field; a query past the index's
    /// `queryLimits` is refused. With `fields`, only those of the searched fields are looked at
    /// (the columns a list shows, out of a million searched).
    ///
    /// - Throws: `SiftError.staleHandle`, `SiftError.unknownScope`, `SiftError.queryTooLarge`,
    ///   an ICU failure, or `CancellationError`.
    /// - Complexity: O(*s*) per distinct query pattern in the size *s* of the record's searched
    ///   fields (those in `fields`) for the kernel checks, plus O(*s*) per pattern that matches
    ///   for its walk.
    public func matchRanges(
        of handle: RecordHandle,
        for query: Query,
        fields: [String]? = nil,
        isCancelled: () -> Bool = { false }
    ) throws -> [String: [Range<Int>]] {
        try checkLength(query)
        try addDeferredWordStarts()
        let slot = try resolve(handle)
        let plan = try scopePlan(of: query)
        let length = query.text.count
        guard length > 0, length >= plan.scope.minimumLength else { return [:] }
        let folded = try foldQuery(query, folding: plan.folding, isCancelled)
        let patterns = try highlightPatterns(
            folded,
            mode: query.mode,
            plan: plan,
            slot: slot,
            tolerance: query.typos,
            isCancelled
        )
        let literalTypoAnchor =
            Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) != nil
            ? Self.typoAnchor(for: query.mode) : nil
        var isExpression = false
        if case .expression = folded { isExpression = true }
        var result: [String: [Range<Int>]] = [:]
        var searched = plan.fields
        if let fields {
            // A scope over every search field holds every position below their count.
            let everyField = plan.fields.count == configuration.searchFields.count
            let inScope = everyField ? [] : Set(plan.fields)
            searched = fields.compactMap { records.fieldPositions[$0] }.filter {
                everyField ? $0 < configuration.searchFields.count : inScope.contains($0)
            }
        }
        for field in searched {
            var ranges: [Range<Int>] = []
            for (pattern, anchor) in patterns {
                if isCancelled() { throw CancellationError() }
                let key = key(plan, field, anchor, pattern)
                // The kernel's check first: a pattern the field does not hold has no ranges there.
                let exact =
                    evaluate(key, slot: slot).matched
                    ? try restartSensitiveRanges(key, text: pattern.text, slot: slot) ?? fieldRanges(key, slot: slot)
                    : []
                ranges += exact
                // A word with no exact match in the field shows its typo matches (their nearest prefixes).
                let edits = Self.typoEdits(pattern.bytes, query.typos)
                // In an expression, the positive word terms' patterns (the only ones shown at word starts).
                let typoAnchor = isExpression ? (anchor == .wordStart ? Anchor.wordStart : nil) : literalTypoAnchor
                if exact.isEmpty, let typoAnchor, edits > 0 {
                    let typoKey = typoKey(plan, field, typoAnchor, pattern, edits: edits)
                    if evaluate(typoKey, slot: slot).matched { ranges += typoRanges(typoKey, slot: slot) }
                }
            }
            guard !ranges.isEmpty else { continue }
            ranges.sort { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
            var merged: [Range<Int>] = []
            for range in ranges {
                if let last = merged.last, range.lowerBound < last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            result[configuration.searchFields[field]] = merged
        }
        return result
    }

    /// The ranges a query matches in each searched field of one record, as ranges of the field's
    /// `String` value.
    ///
    /// ```swift
    /// let name = try index.value(of: "name", for: row)       // "Straße"
    /// let ranges = try index.highlights(of: row, for: Query("strasse"))["name"]!
    /// name[ranges[0]]                                           // "Straße"
    /// ```
    ///
    /// - Complexity: that of `matchRanges(of:for:fields:isCancelled:)`.
    public func highlights(
        of handle: RecordHandle,
        for query: Query,
        isCancelled: () -> Bool = { false }
    ) throws -> [String: [Range<String.Index>]] {
        var result: [String: [Range<String.Index>]] = [:]
        for (field, ranges) in try matchRanges(of: handle, for: query, isCancelled: isCancelled) {
            let text = try value(of: field, for: handle)
            let utf16 = text.utf16
            let length = utf16.count
            result[field] = ranges.map { range in
                // Clamped, so that even offsets from a damaged snapshot cannot index past the text.
                let lowerOffset = min(max(0, range.lowerBound), length)
                let lower = utf16.index(utf16.startIndex, offsetBy: lowerOffset)
                let upper = utf16.index(lower, offsetBy: min(range.count, length - lowerOffset))
                return lower..<upper
            }
        }
        return result
    }

    /// With `alternate: .shifted`, ICU's processed elements carry state: after a shifted variable
    /// (a space, say), elements with no primary weight are suppressed, and `usearch_next` restarts
    /// that state at each match's end, where such elements can reappear. Membership and the first
    /// match never depend on it (both start fresh at the beginning of the field), but later match
    /// ranges can. So in `contains` mode with a shifted collation, the ranges of the one record
    /// being shown come from ICU's own usearch over that field: exact by construction, and never
    /// on the keystroke path. Returns nil when the stored folding answers exactly.
    private func restartSensitiveRanges(_ key: MatchKey, text: String, slot: Int32) throws(SiftError) -> [Range<Int>]? {
        let folding = folded.foldings[key.folding]
        guard key.anchor == .anywhere, folding.collation.alternate == .shifted else { return nil }
        let field = value(at: key.field, slot: slot)
        return try folding.folder.referenceMatches(of: text, in: field).map { $0.start..<($0.start + $0.length) }
    }

    /// Every accepted, non-overlapping match of a field pattern in one slot, first to last, the
    /// way ICU usearch's `usearch_next` walks them: after a match, the search resumes at its limit.
    ///
    /// The walk reads the segment's codes and flags in place and the elements' UTF-16 offsets as
    /// the field's text is folded again a piece at a time (`ICUFolder.forEachOffsetPiece`), keeping
    /// only those of the elements not yet passed: a field of any length costs memory for a piece
    /// (a field of 200 MB has some 140 million elements; holding their offsets took 8 bytes each).
    ///
    /// - Complexity: O(*s*) in the size of the field; memory O(*p*) for pieces of *p* bytes.
    func fieldRanges(_ key: MatchKey, slot: Int32) -> [Range<Int>] {
        if key.strategy == .fuzzy { return fuzzyRanges(key, slot: slot) }
        let folding = folded.foldings[key.folding]
        let column = folding.columns[key.field]
        guard let segment = column.segment(ofSlot: slot) else { return [] }
        let (start, end) = column.bounds(ofSegment: segment)
        var elementCount = 0
        for i in start..<end where CodeBook.isLead(column.codes[i]) { elementCount += 1 }
        var patternElements = 0
        var lastLead = 0
        for (i, byte) in key.pattern.enumerated() where CodeBook.isLead(byte) {
            patternElements += 1
            lastLead = i
        }
        guard patternElements > 0, elementCount >= patternElements, key.field < records.values.count else { return [] }
        var walk = MatchWalk(
            column: column,
            pattern: key.pattern,
            segment: (start, end),
            flagPosition: column.flagStart(ofSegment: segment),
            startMask: key.anchor == .wordStart ? FoldFlags.startOK | FoldFlags.wordStart : FoldFlags.startOK,
            firstOnly: key.anchor == .fieldStart,
            elementCount: elementCount,
            patternElements: patternElements,
            lastLead: lastLead
        )
        let identical = key.identicalText.map { (pattern: $0, text: value(at: key.field, slot: slot)) }
        let accept = { (lower: Int32, upper: Int32) -> Bool in
            guard let identical else { return true }
            return folding.folder.canonicallyEqual(identical.text, utf16Range: lower, upper, pattern: identical.pattern)
        }
        var folded = 0
        let completed = records.values[key.field].withUTF8(slot) { text in
            (try? folding.folder.forEachOffsetPiece(ofUTF8: text) { lows, limits, shift in
                folded += lows.count
                guard folded <= elementCount else { return false }
                walk.add(lows: lows, limits: limits, shift: shift)
                return walk.advance(ended: folded == elementCount, accept: accept)
            }) != nil
        }
        // A text that cannot be folded, or whose elements are not the segment's, cannot happen to a
        // text the index folded before; no ranges then, as before.
        guard completed, walk.finished || folded == elementCount else { return [] }
        if !walk.finished { _ = walk.advance(ended: true, accept: accept) }
        return walk.ranges
    }

    /// The UTF-16 low index and match limit of every element of a field's text, folded again
    /// (the index does not keep them: only the rows being shown, or the hits checked at identical
    /// strength, need them). `count`, the number of elements if known, sizes the arrays at once.
    /// Empty if the text cannot be folded, which cannot happen to a text
    /// the index folded before.
    ///
    /// - Complexity: O(*n*) in the length of the text.
    func elementOffsets(_ key: MatchKey, text: String, count: Int = 0) -> (lows: [Int32], limits: [Int32]) {
        (try? folded.foldings[key.folding].folder.offsets(of: text, count: count)) ?? ([], [])
    }
}

/// The walk of `fieldRanges` over one segment, fed the elements' UTF-16 offsets a piece at a
/// time: it goes as far as the offsets it holds allow, and keeps only those from its current
/// element on.
private struct MatchWalk {
    let column: FoldedColumn
    let pattern: [UInt8]
    let segment: (start: Int, end: Int)
    let flagPosition: Int?
    let startMask: UInt8
    /// Only a match at the first element counts (`.fieldStart`).
    let firstOnly: Bool
    let elementCount: Int
    let patternElements: Int
    /// Offset of the pattern's last lead byte.
    let lastLead: Int

    /// Offsets of elements `windowStart...` (those folded so far, from the current element on).
    private var lows: [Int32] = []
    private var limits: [Int32] = []
    private var windowStart = 0
    /// The current element and its lead byte.
    private var element = 0
    private var byte: Int
    /// After a match: elements starting before this UTF-16 limit are skipped.
    private var skippingBelow: Int32?
    private(set) var finished = false
    private(set) var ranges: [Range<Int>] = []

    init(
        column: FoldedColumn,
        pattern: [UInt8],
        segment: (start: Int, end: Int),
        flagPosition: Int?,
        startMask: UInt8,
        firstOnly: Bool,
        elementCount: Int,
        patternElements: Int,
        lastLead: Int
    ) {
        self.column = column
        self.pattern = pattern
        self.segment = segment
        self.flagPosition = flagPosition
        self.startMask = startMask
        self.firstOnly = firstOnly
        self.elementCount = elementCount
        self.patternElements = patternElements
        self.lastLead = lastLead
        byte = segment.start
    }

    /// Takes the offsets of the next elements (each plus `shift`).
    mutating func add(
        lows newLows: UnsafeBufferPointer<Int32>,
        limits newLimits: UnsafeBufferPointer<Int32>,
        shift: Int32
    ) {
        let passed = element - windowStart
        if passed > 0 {
            lows.removeFirst(min(passed, lows.count))
            limits.removeFirst(min(passed, limits.count))
            windowStart = element
        }
        for i in newLows.indices {
            lows.append(newLows[i] + shift)
            limits.append(newLimits[i] + shift)
        }
    }

    /// The lead byte of the element after the one at `byte`.
    private func nextLead(after byte: Int) -> Int {
        var next = byte + 1
        while next < segment.end && !CodeBook.isLead(column.codes[next]) { next += 1 }
        return next
    }

    /// Walks as far as the offsets held allow (to the end once `ended`); returns whether more
    /// offsets are wanted.
    mutating func advance(ended: Bool, accept: (Int32, Int32) -> Bool) -> Bool {
        let held = windowStart + lows.count
        while !finished {
            if let upper = skippingBelow {
                if element < elementCount && element >= held { return true }
                if element < elementCount && lows[element - windowStart] < upper {
                    element += 1
                    byte = nextLead(after: byte)
                    continue
                }
                skippingBelow = nil
            }
            if element + patternElements > elementCount || (firstOnly && element > 0) {
                finished = true
                break
            }
            let last = element + patternElements - 1
            if last >= held { return !ended }
            let accepted =
                byte + pattern.count <= segment.end
                && column.codes[byte..<(byte + pattern.count)].elementsEqual(pattern)
                && flag(byte) & startMask == startMask
                && flag(byte + lastLead) & FoldFlags.endOK != 0
                && accept(lows[element - windowStart], limits[last - windowStart])
            if accepted {
                let lower = Int(lows[element - windowStart])
                let upper = limits[last - windowStart]
                ranges.append(lower..<max(lower, Int(upper)))
                element = last + 1
                byte += pattern.count
                skippingBelow = upper
            } else {
                element += 1
                byte = nextLead(after: byte)
            }
        }
        return false
    }

    private func flag(_ byte: Int) -> UInt8 {
        column.flagByte(atOffset: byte - segment.start, segmentStart: segment.start, flagPosition: flagPosition)
    }
}
