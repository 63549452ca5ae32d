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
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    public func matchRanges(of handle: RecordHandle, for query: Query) throws -> [String: [Range<Int>]] {
        try addDeferredWordStarts()
        let slot = try resolve(handle)
        guard let plan = scopePlans.first(where: { $0.scope.name == query.scope }) else {
            throw SiftError.unknownScope(query.scope)
        }
        let length = query.text.count
        guard length > 0, length >= plan.scope.minimumLength else { return [:] }
        let folded = try foldQuery(
            query.text,
            mode: query.mode,
            syntax: query.syntax,
            typos: query.typos,
            folding: plan.folding
        )
        let patterns = highlightPatterns(folded, mode: query.mode, plan: plan, slot: slot)
        let typoAnchor =
            Self.typoPatterns(folded, mode: query.mode, tolerance: query.typos) != nil
            ? Self.typoAnchor(for: query.mode) : nil
        var result: [String: [Range<Int>]] = [:]
        for field in plan.fields {
            var ranges: [Range<Int>] = []
            for (pattern, anchor) in patterns {
                let key = key(plan, field, anchor, pattern)
                let exact =
                    try restartSensitiveRanges(key, text: pattern.text, slot: slot) ?? fieldRanges(key, slot: slot)
                ranges += exact
                // A word with no exact match in the field shows its typo matches (their nearest prefixes).
                let edits = Self.typoEdits(pattern.bytes, query.typos)
                if exact.isEmpty, let typoAnchor, edits > 0 {
                    ranges += typoRanges(typoKey(plan, field, typoAnchor, pattern, edits: edits), slot: slot)
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
    /// - Complexity: O(*s*) in the size of the record's searched fields.
    public func highlights(of handle: RecordHandle, for query: Query) throws -> [String: [Range<String.Index>]] {
        var result: [String: [Range<String.Index>]] = [:]
        for (field, ranges) in try matchRanges(of: handle, for: query) {
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
        let folding = foldings[key.folding]
        guard key.anchor == .anywhere, folding.collation.alternate == .shifted else { return nil }
        let field = value(at: key.field, slot: slot)
        return try folding.folder.referenceMatches(of: text, in: field).map { $0.start..<($0.start + $0.length) }
    }

    /// Every accepted, non-overlapping match of a field pattern in one slot, first to last, the
    /// way ICU usearch's `usearch_next` walks them: after a match, the search resumes at its limit.
    func fieldRanges(_ key: MatchKey, slot: Int32) -> [Range<Int>] {
        if key.anchor == .fuzzy { return fuzzyRanges(key, slot: slot) }
        let folding = foldings[key.folding]
        let column = folding.columns[key.field]
        guard let segment = column.segment(ofSlot: slot) else { return [] }
        let (start, end) = column.bounds(ofSegment: segment)
        // Offsets from `start`, 4 bytes per element (a field of 200 MB has some 140 million).
        var leadCount = 0
        for i in start..<end where CodeBook.isLead(column.codes[i]) { leadCount += 1 }
        var leads: [Int32] = []
        leads.reserveCapacity(leadCount)
        for i in start..<end where CodeBook.isLead(column.codes[i]) {
            leads.append(Int32(truncatingIfNeeded: i - start))
        }
        var patternElements = 0
        for byte in key.pattern where CodeBook.isLead(byte) { patternElements += 1 }
        guard patternElements > 0, leads.count >= patternElements else { return [] }
        let text = value(at: key.field, slot: slot)
        let (lows, limits) = elementOffsets(key, text: text, count: leads.count)
        guard lows.count == leads.count else { return [] }
        let flags = column.flagBytes(ofSegment: segment)
        let startMask = key.anchor == .wordStart ? FoldFlags.startOK | FoldFlags.wordStart : FoldFlags.startOK
        var ranges: [Range<Int>] = []
        var element = 0
        while element + patternElements <= leads.count {
            if key.anchor == .fieldStart && element > 0 { break }
            let byte = start + Int(leads[element])
            let last = element + patternElements - 1
            let accepted =
                byte + key.pattern.count <= end
                && column.codes[byte..<(byte + key.pattern.count)].elementsEqual(key.pattern)
                && flags[byte - start] & startMask == startMask
                && flags[Int(leads[last])] & FoldFlags.endOK != 0
                && (key.identicalText == nil
                    || folding.folder.canonicallyEqual(
                        text,
                        utf16Range: lows[element],
                        limits[last],
                        pattern: key.identicalText!
                    ))
            if accepted {
                let lower = Int(lows[element])
                let upper = Int(limits[last])
                ranges.append(lower..<max(lower, upper))
                element = last + 1
                while element < leads.count && Int(lows[element]) < upper { element += 1 }
            } else {
                element += 1
            }
        }
        return ranges
    }

    /// The UTF-16 low index and match limit of every element of a field's text, folded again
    /// (the index does not keep them: only the rows being shown, or the hits checked at identical
    /// strength, need them). `count`, the number of elements if known, sizes the arrays at once.
    /// Empty if the text cannot be folded, which cannot happen to a text
    /// the index folded before.
    ///
    /// - Complexity: O(*n*) in the length of the text.
    func elementOffsets(_ key: MatchKey, text: String, count: Int = 0) -> (lows: [Int32], limits: [Int32]) {
        (try? foldings[key.folding].folder.offsets(of: text, count: count)) ?? ([], [])
    }
}
