/// A table cell: characters, each with whether it is inside a match.
typealias Cell = [(character: Character, highlighted: Bool)]

/// How matched ranges are marked: terminal attributes (zero columns) or brackets (one column each).
struct HighlightStyle: Sendable {
    var open: String
    var close: String
    /// Columns each marker takes.
    var markerWidth: Int

    /// `[Zür]ich`, for output that is not a terminal.
    static let brackets = HighlightStyle(open: "[", close: "]", markerWidth: 1)
    /// Bold reverse video.
    static let terminal = HighlightStyle(open: "\u{1B}[1;7m", close: "\u{1B}[0m", markerWidth: 0)

    var isTerminal: Bool { markerWidth == 0 }
}

/// Building, measuring and fitting cells by display width (shared by `sift query` and the REPL),
/// so that CJK, emoji and accents line up and a cut never splits a character.
enum Cells {
    /// How control characters in values are shown: `sift query` turns newlines and tabs into
    /// spaces; the REPL also shows any other control character as `�`, so that no value can send
    /// escape sequences to the terminal.
    enum Sanitizing { case whitespace, allControls }

    /// The most characters a cell holds: a longer value is cut to a window of this many around its
    /// first match (or its start), with "…" where it was cut. No table column is this wide, and
    /// a value of hundreds of megabytes costs a few kilobytes to show instead of a cell per
    /// character of all of it.
    static let windowCharacters = 4096

    /// A value as a cell, cut to `windowCharacters`.
    ///
    /// - Complexity: O(`windowCharacters`), whatever the value's length.
    static func plain(_ text: String, _ sanitizing: Sanitizing = .whitespace) -> Cell {
        highlighted(text, [], sanitizing)
    }

    /// A value as a cell, the characters inside `ranges` highlighted, cut to a window of
    /// `windowCharacters` that starts a quarter window before the first match.
    ///
    /// - Complexity: O(*p* + `windowCharacters` + *r*) for a first match *p* characters in and *r*
    ///   ranges.
    static func highlighted(
        _ text: String,
        _ ranges: [Range<String.Index>],
        _ sanitizing: Sanitizing = .whitespace
    )
        -> Cell
    {
        let first = ranges.min { $0.lowerBound < $1.lowerBound }?.lowerBound
        var start = text.startIndex
        if let first, text.distance(from: text.startIndex, to: first) > windowCharacters / 2 {
            start = text.index(first, offsetBy: -windowCharacters / 4)
        }
        let end = text.index(start, offsetBy: windowCharacters, limitedBy: text.endIndex) ?? text.endIndex
        // The ranges that reach into the window, in order, walked alongside the characters.
        let inWindow = ranges.filter { $0.upperBound > start && $0.lowerBound < end }.sorted {
            $0.lowerBound < $1.lowerBound
        }
        var cell: Cell = []
        if start > text.startIndex { cell.append(("…", false)) }
        var next = 0
        var index = start
        while index < end {
            let after = text.index(after: index)
            while next < inWindow.count && inWindow[next].upperBound <= index { next += 1 }
            let inside = inWindow[next...].prefix { $0.lowerBound <= index }.contains { $0.contains(index) }
            cell.append((sanitized(text[index], sanitizing), inside))
            index = after
        }
        if end < text.endIndex { cell.append(("…", false)) }
        return cell
    }

    /// Control characters (tabs, newlines inside quoted fields) would break the table's lines.
    static func sanitize(_ text: String, _ sanitizing: Sanitizing = .whitespace) -> String {
        String(text.map { sanitized($0, sanitizing) })
    }

    /// One character as `sanitize` shows it.
    static func sanitized(_ character: Character, _ sanitizing: Sanitizing) -> Character {
        if character.isNewline || character == "\t" { return " " }
        guard sanitizing == .allControls, let first = character.unicodeScalars.first else { return character }
        return first.value < 0x20 || (0x7F..<0xA0).contains(first.value) ? "\u{FFFD}" : character
    }

    static func visibleWidth(_ cell: Cell, _ style: HighlightStyle) -> Int {
        var width = 0
        var inside = false
        for (character, highlighted) in cell {
            if highlighted != inside { width += style.markerWidth }
            inside = highlighted
            width += DisplayWidth.of(character)
        }
        if inside { width += style.markerWidth }
        return width
    }

    /// Column widths: the first `fixed` columns in full, the others share what is left of `width`
    /// (narrowest first, each at least 8 columns), two spaces between columns.
    static func columnWidths(_ rows: [[Cell]], fixed: Int, width: Int, style: HighlightStyle) -> [Int] {
        guard let count = rows.first?.count else { return [] }
        var widths = (0..<count).map { column in rows.map { visibleWidth($0[column], style) }.max() ?? 0 }
        let separator = 2
        let fixedWidth = widths.prefix(fixed).reduce(0, +) + separator * fixed
        let available = max(10 * (widths.count - fixed), width - fixedWidth - separator * (widths.count - fixed - 1))
        var remaining = available
        let textColumns = Array(fixed..<widths.count).sorted { widths[$0] < widths[$1] }
        for (n, column) in textColumns.enumerated() {
            let share = remaining / (textColumns.count - n)
            widths[column] = min(widths[column], max(8, share))
            remaining -= widths[column]
        }
        return widths
    }

    /// One table line: the cells fitted to their columns, two spaces apart, without trailing spaces.
    /// `rightAligned` columns are padded on the left.
    static func line(
        _ cells: [Cell],
        _ widths: [Int],
        bold: Bool,
        style: HighlightStyle,
        rightAligned: Set<Int> = []
    ) -> String {
        var out = ""
        for (column, cell) in cells.enumerated() {
            let isLast = column == cells.count - 1
            let (text, width) = fit(cell, widths[column], style)
            let padding = String(repeating: " ", count: max(0, widths[column] - width))
            if rightAligned.contains(column) { out += padding }
            out += bold && style.isTerminal ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
            if !isLast { out += (rightAligned.contains(column) ? "" : padding) + "  " }
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    /// The cell rendered within `limit` columns (cut with "…"), and its visible width. When the
    /// first match would fall in the cut-off part, the start is cut instead ("…der Wein[straße]").
    static func fit(_ cell: Cell, _ limit: Int, _ style: HighlightStyle) -> (String, Int) {
        if visibleWidth(cell, style) > limit, let first = cell.firstIndex(where: \.highlighted) {
            let before = visibleWidth(Array(cell[..<first]), style)
            let matchEnd = cell[first...].firstIndex(where: { !$0.highlighted }) ?? cell.endIndex
            let through = visibleWidth(Array(cell[..<matchEnd]), style)
            if through > limit - 1 && before > 0 {
                // Drop just enough from the start for the match to end inside the cell, after "…".
                let excess = through + 1 - limit + 1  // +1: the "…" that may close the cell
                var start = first
                var dropped = 0
                for index in cell.indices where index < first {
                    if dropped >= excess { break }
                    dropped += DisplayWidth.of(cell[index].character)
                    start = index + 1
                }
                let (text, width) = fit(Array(cell[start...]), limit - 1, style)
                return ("…" + text, width + 1)
            }
        }
        let markerWidth = style.markerWidth
        let total = visibleWidth(cell, style)
        let budget = total <= limit ? limit : limit - 1  // room for "…"
        var out = ""
        var width = 0
        var inside = false
        for (character, highlighted) in cell {
            let characterWidth = DisplayWidth.of(character)
            let opening = highlighted && !inside ? markerWidth : 0
            let closingBefore = !highlighted && inside ? markerWidth : 0  // a match ends here
            let closing = highlighted ? markerWidth : 0  // reserve room to close
            if width + opening + closingBefore + characterWidth + closing > budget && total > limit { break }
            if highlighted != inside {
                out += highlighted ? style.open : style.close
                width += markerWidth
                inside = highlighted
            }
            out += String(character)
            width += characterWidth
        }
        if inside {
            out += style.close
            width += markerWidth
        }
        if total > limit {
            out += "…"
            width += 1
        }
        return (out, width)
    }
}
