/// A window of a field's text around its first match, with the matches inside the window: what a
/// result list shows of a long field.
///
/// ```swift
/// let snippet = try index.snippets(of: row, for: Query("strasse"), length: 20)["notes"]!
/// snippet.text                                   // "an der Großen Straße"
/// snippet.text[snippet.ranges[0]]                // "Straße"
/// (snippet.isCutAtStart, snippet.isCutAtEnd)     // (true, true): show "…" on both sides
/// ```
public struct Snippet: Hashable, Sendable {
    /// The window: whole characters (grapheme clusters) of the field, at most the length asked for.
    public var text: String
    /// The matches inside the window, as ranges of `text`. A match that crosses an edge of the
    /// window is cut at that edge.
    public var ranges: [Range<String.Index>]
    /// The same matches as ranges of `text` in UTF-16 code units.
    public var utf16Ranges: [Range<Int>]
    /// Where the window starts in the field, in UTF-16 code units.
    public var utf16Offset: Int
    /// Whether the field has text before the window (a leading "…").
    public var isCutAtStart: Bool
    /// Whether the field has text after the window (a trailing "…").
    public var isCutAtEnd: Bool

    /// The window of at most `length` characters of `field` around the first of `matches` (UTF-16
    /// ranges of `field`, first to last, as `SearchIndex.matchRanges(of:for:)` gives them).
    ///
    /// The window is the whole field when it fits. Otherwise it centres the first match (or starts
    /// with it when the match alone is longer than the window); then, when it can do so within a
    /// quarter of its length without losing any of the match, it starts after a space and ends
    /// before one, so that it cuts no word.
    ///
    /// - Complexity: O(*n*) in the length of the field.
    init(field: String, matches: [Range<Int>], length: Int) {
        let length = max(1, length)
        let utf16 = field.utf16
        let utf16Count = utf16.count
        func index(_ offset: Int) -> String.Index {
            utf16.index(utf16.startIndex, offsetBy: min(max(0, offset), utf16Count))
        }
        let total = field.count
        let first = matches.first ?? 0..<0
        // The first match in characters: its start rounded down, its end rounded up.
        let matchLower = index(first.lowerBound)
        let matchUpper = index(max(first.lowerBound, first.upperBound))
        let matchStart = field.distance(from: field.startIndex, to: matchLower)
        var matchEnd = field.distance(from: field.startIndex, to: matchUpper)
        if matchUpper.samePosition(in: field) == nil { matchEnd += 1 }
        var start = 0
        if total > length {
            let matchLength = matchEnd - matchStart
            start =
                matchLength >= length
                ? matchStart : max(0, min(matchStart - (length - matchLength) / 2, total - length))
        }
        let end = min(total, start + length)
        var lower = field.index(field.startIndex, offsetBy: start)
        var upper = field.index(lower, offsetBy: end - start)
        let matchFirst = field.index(field.startIndex, offsetBy: min(matchStart, total))
        let matchLast = field.index(field.startIndex, offsetBy: min(matchEnd, total))
        // Prefer word boundaries, within a quarter of the window and never inside the match.
        let reach = length / 4
        if lower > field.startIndex {
            var position = lower
            var steps = 0
            while position < matchFirst, steps < reach {
                if field[position].isWhitespace {
                    lower = field.index(after: position)
                    while lower < matchFirst, field[lower].isWhitespace { lower = field.index(after: lower) }
                    break
                }
                position = field.index(after: position)
                steps += 1
            }
        }
        if upper < field.endIndex {
            var position = upper
            var steps = 0
            while position > matchLast, steps < reach {
                let before = field.index(before: position)
                if field[before].isWhitespace {
                    upper = before
                    while upper > matchLast, field[field.index(before: upper)].isWhitespace {
                        upper = field.index(before: upper)
                    }
                    break
                }
                position = before
                steps += 1
            }
        }
        text = String(field[lower..<upper])
        isCutAtStart = lower > field.startIndex
        isCutAtEnd = upper < field.endIndex
        let windowStart = utf16.distance(from: utf16.startIndex, to: lower)
        let windowEnd = utf16.distance(from: utf16.startIndex, to: upper)
        utf16Offset = windowStart
        utf16Ranges = matches.compactMap { match in
            let low = max(match.lowerBound, windowStart)
            let high = min(match.upperBound, windowEnd)
            return low < high ? (low - windowStart)..<(high - windowStart) : nil
        }
        let window = text.utf16
        ranges = utf16Ranges.map { range in
            let low = window.index(window.startIndex, offsetBy: range.lowerBound)
            return low..<window.index(low, offsetBy: range.count)
        }
    }
}
