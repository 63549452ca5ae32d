/// A run of a text that a UI styles one way: highlighted (a query's match) or not.
///
/// Segments cut a text into runs whose concatenation is the text, each run of whole characters
/// (grapheme clusters): a match that starts or ends inside a character (an accent matched
/// without its letter, a part of an emoji sequence) highlights the whole character.
///
/// ```swift
/// let text = "Zürich (Kreis 11)"
/// let ranges = [text.startIndex..<text.index(text.startIndex, offsetBy: 3)]
/// for segment in HighlightSegment.segments(of: text, highlighting: ranges) {
///     print(segment.isHighlighted ? "[\(segment.text)]" : String(segment.text), terminator: "")
/// }
/// // [Zür]ich (Kreis 11)
/// ```
public struct HighlightSegment: Hashable, Sendable {
    /// The run's text: a slice of the text the segments were made from.
    public var text: Substring
    /// Whether the run is part of a match.
    public var isHighlighted: Bool

    /// A segment.
    public init(text: Substring, isHighlighted: Bool) {
        self.text = text
        self.isHighlighted = isHighlighted
    }

    /// The text cut into alternating runs: unhighlighted, highlighted, unhighlighted, and so on,
    /// none empty, whose concatenation is `text`.
    ///
    /// A character is highlighted when any of `ranges` overlaps it; the ranges may be in any
    /// order, overlap, be empty (they highlight nothing) or reach past the text (they are
    /// clamped). An empty text has no segments.
    ///
    /// - Parameters:
    ///   - text: the text, as a cell shows it.
    ///   - ranges: ranges of `text` (of its `String.Index`es), as `TableCell.Field.highlights`,
    ///     `SearchIndex.highlights(of:for:isCancelled:)` and `Snippet.ranges` give them.
    /// - Complexity: O(*n* + *r* log *r*) for a text of *n* characters and *r* ranges.
    public static func segments(of text: String, highlighting ranges: [Range<String.Index>]) -> [HighlightSegment] {
        // The ranges' union, as disjoint ranges in order.
        var merged: [Range<String.Index>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var segments: [HighlightSegment] = []
        var runStart = text.startIndex
        var runIsHighlighted = false
        var next = 0  // the first range that ends after `position`
        var position = text.startIndex
        while position < text.endIndex {
            let after = text.index(after: position)
            while next < merged.count, merged[next].upperBound <= position { next += 1 }
            let isHighlighted = next < merged.count && merged[next].lowerBound < after
            if isHighlighted != runIsHighlighted {
                if position > runStart {
                    segments.append(HighlightSegment(text: text[runStart..<position], isHighlighted: runIsHighlighted))
                }
                runStart = position
                runIsHighlighted = isHighlighted
            }
            position = after
        }
        if text.endIndex > runStart {
            segments.append(HighlightSegment(text: text[runStart..<text.endIndex], isHighlighted: runIsHighlighted))
        }
        return segments
    }

    /// The text cut into runs as `segments(of:highlighting:)` does, for ranges in UTF-16 code
    /// units (as `SearchIndex.matchRanges(of:for:fields:isCancelled:)` and `Snippet.utf16Ranges` give
    /// them); offsets past the text are clamped.
    ///
    /// - Complexity: O(*n* + *r* log *r*) for a text of *n* UTF-16 code units and *r* ranges.
    public static func segments(of text: String, highlightingUTF16 ranges: [Range<Int>]) -> [HighlightSegment] {
        segments(of: text, highlighting: text.ranges(ofUTF16: ranges))
    }
}

extension String {
    /// UTF-16 ranges as ranges of the string's indexes, clamped to the string (an offset inside a
    /// surrogate pair stays inside it: `HighlightSegment` rounds to whole characters).
    ///
    /// - Complexity: O(*n*) in the string's UTF-16 length (O(*r*) steps past the first on
    ///   native UTF-8 strings, whose UTF-16 view indexes in amortized O(1) with breadcrumbs).
    func ranges(ofUTF16 ranges: [Range<Int>]) -> [Range<String.Index>] {
        let view = utf16
        let length = view.count
        return ranges.map { range in
            let lowerOffset = min(max(0, range.lowerBound), length)
            let upperOffset = min(max(lowerOffset, range.upperBound), length)
            let lower = view.index(view.startIndex, offsetBy: lowerOffset)
            return lower..<view.index(lower, offsetBy: upperOffset - lowerOffset)
        }
    }
}
