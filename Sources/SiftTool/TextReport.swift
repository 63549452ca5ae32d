import Sift

/// The readable form of a query's results: a header line and a table whose cells show the
/// matched ranges highlighted (terminal colours, or [brackets] when not a terminal), with
/// columns sized by display width so CJK, emoji and accents line up.
struct TextReport {
    let loaded: LoadedDataset
    let query: Query
    let result: SearchResult
    let rows: [RecordHandle]
    let color: Bool

    /// A cell: characters, each with whether it is inside a match.
    typealias Cell = [(character: Character, highlighted: Bool)]

    func render(width: Int) throws -> String {
        let index = loaded.index
        let fields = index.scopes.first { $0.name == query.scope }?.fields ?? loaded.searchFields
        let showID = loaded.hasIDField

        var header: [Cell] = [plain("row")]
        if showID { header.append(plain("id")) }
        header += fields.map(plain)
        var table: [[Cell]] = []
        for row in rows {
            let id = try index.id(of: row)
            var cells: [Cell] = [plain(String(loaded.rowOfID[id] ?? 0))]
            if showID { cells.append(plain(id)) }
            let highlights = try index.highlights(of: row, for: query)
            for field in fields {
                let value = try index.value(of: field, for: row)
                cells.append(highlighted(value, highlights[field] ?? []))
            }
            table.append(cells)
        }

        // Column widths: fixed columns in full, text columns share what is left.
        let fixed = showID ? 2 : 1
        var widths = (0..<header.count).map { column in
            ([header] + table).map { visibleWidth($0[column]) }.max() ?? 0
        }
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

        var out = summary() + "\n"
        if !table.isEmpty {
            out += line(header, widths, bold: true) + "\n"
            for cells in table { out += line(cells, widths, bold: false) + "\n" }
        }
        if rows.count < result.rows.count {
            out += "… \(result.rows.count - rows.count) more (use --limit 0 to print all)\n"
        }
        return out
    }

    private func summary() -> String {
        let index = loaded.index
        let collation = index.configuration.collation
        let what: String
        switch result.state {
        case .all: what = "\(result.rows.count) records (empty query)"
        case .tooShort(let needed): what = "query too short (needs \(needed) characters)"
        case .matches: what = "\(result.rows.count) \(result.rows.count == 1 ? "match" : "matches") for \"\(query.text)\""
        }
        return "\(what) in \(loaded.source) · \(collation.locale), \(collation.strength.rawValue), \(query.mode.rawValue)"
            + (query.scope == "All" ? "" : " · scope \(query.scope)")
    }

    private func plain(_ text: String) -> Cell { sanitize(text).map { ($0, false) } }

    private func highlighted(_ text: String, _ ranges: [Range<String.Index>]) -> Cell {
        var cell: Cell = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            let inside = ranges.contains { $0.contains(index) }
            for character in sanitize(String(text[index..<next])) { cell.append((character, inside)) }
            index = next
        }
        return cell
    }

    /// Control characters (tabs, newlines inside quoted fields) would break the table's lines.
    private func sanitize(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }

    private func visibleWidth(_ cell: Cell) -> Int {
        var width = 0
        var inside = false
        for (character, highlighted) in cell {
            if highlighted != inside && !color { width += 1 }  // a bracket
            inside = highlighted
            width += DisplayWidth.of(character)
        }
        if inside && !color { width += 1 }
        return width
    }

    private func line(_ cells: [Cell], _ widths: [Int], bold: Bool) -> String {
        var out = ""
        for (column, cell) in cells.enumerated() {
            let isLast = column == cells.count - 1
            let (text, width) = fit(cell, widths[column])
            out += bold && color ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
            if !isLast { out += String(repeating: " ", count: widths[column] - width + 2) }
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    /// The cell rendered within `limit` columns (cut with "…"), and its visible width. When the
    /// first match would fall in the cut-off part, the start is cut instead ("…der Wein[straße]").
    private func fit(_ cell: Cell, _ limit: Int) -> (String, Int) {
        if visibleWidth(cell) > limit, let first = cell.firstIndex(where: \.highlighted) {
            let before = visibleWidth(Array(cell[..<first]))
            let matchEnd = cell[first...].firstIndex(where: { !$0.highlighted }) ?? cell.endIndex
            let through = visibleWidth(Array(cell[..<matchEnd]))
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
                let (text, width) = fit(Array(cell[start...]), limit - 1)
                return ("…" + text, width + 1)
            }
        }
        let open = color ? "\u{1B}[1;7m" : "[", close = color ? "\u{1B}[0m" : "]"
        let markerWidth = color ? 0 : 1
        let total = visibleWidth(cell)
        let budget = total <= limit ? limit : limit - 1  // room for "…"
        var out = ""
        var width = 0
        var inside = false
        for (character, highlighted) in cell {
            let characterWidth = DisplayWidth.of(character)
            let opening = highlighted && !inside ? markerWidth : 0
            let closing = highlighted ? markerWidth : 0  // reserve room to close
            if width + opening + characterWidth + closing > budget && total > limit { break }
            if highlighted != inside {
                out += highlighted ? open : close
                width += markerWidth
                inside = highlighted
            }
            out += String(character)
            width += characterWidth
        }
        if inside {
            out += close
            width += markerWidth
        }
        if total > limit {
            out += "…"
            width += 1
        }
        return (out, width)
    }
}
