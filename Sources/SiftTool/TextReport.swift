import Sift

/// The readable form of a query's results: a header line and a table of the columns to show,
/// whose cells show the matched ranges highlighted (terminal colours, or [brackets] when not a
/// terminal), with columns sized by display width so CJK, emoji and accents line up.
struct TextReport {
    let page: QueryPage
    let color: Bool

    private var style: HighlightStyle { color ? .terminal : .brackets }

    func render(width: Int) throws -> String {
        let index = page.index
        let fields = page.settings.show
        let showID = page.opened.dataset.idField != nil

        var table: [[Cell]] = []
        for row in page.rows {
            let (id, values) = try page.values(row, fields: fields)
            var cells: [Cell] = [plain(String(page.dataRow(of: row)))]
            if showID { cells.append(plain(id)) }
            // The ranges are placed in the record's own values (`index.highlights` would copy
            // each), for the shown fields only.
            let ranges = try index.matchRanges(of: row, for: page.query, fields: fields)
            let snippets =
                try page.snippetLength.map { try index.snippets(of: row, for: page.query, length: $0) } ?? [:]
            for (field, text) in zip(fields, values) {
                if let snippet = snippets[field] {
                    cells.append(Self.cell(snippet))
                } else {
                    cells.append(highlighted(text, Self.stringRanges(ranges[field] ?? [], in: text)))
                }
            }
            table.append(cells)
        }

        var out = summary() + "\n"
        if !table.isEmpty {
            var header: [Cell] = [plain("row")]
            if showID { header.append(plain("id")) }
            header += fields.map(plain)
            // Column widths: fixed columns in full, text columns share what is left. Without rows
            // there is no table, so no header cells are measured (a million columns cost nothing).
            let widths = Cells.columnWidths([header] + table, fixed: showID ? 2 : 1, width: width, style: style)
            out += Cells.line(header, widths, bold: true, style: style) + "\n"
            for cells in table { out += Cells.line(cells, widths, bold: false, style: style) + "\n" }
        }
        let after = page.offset + page.rows.count
        if after < page.total {
            out += "… \(page.total - after) more (--offset \(after) for the next ones, --limit 0 to print all)\n"
        }
        return out
    }

    private func summary() -> String {
        let collation = page.index.configuration.collation
        let query = page.query
        let count = page.total
        var what: String
        switch page.result.state {
        case .all: what = "\(count) records (empty query)"
        case .tooShort(let needed): what = "query too short (needs \(needed) characters)"
        case .matches: what = "\(count) \(count == 1 ? "match" : "matches") for \(QueryMessages.quoted(query.text))"
        }
        if page.offset > 0 {
            what +=
                page.rows.isEmpty
                ? ", none from --offset \(page.offset)"
                : ", \(page.offset + 1)–\(page.offset + page.rows.count) shown"
        }
        var line =
            "\(what) in \(page.opened.dataset.source) · \(collation.locale), \(collation.strength.rawValue), \(query.mode.rawValue)"
            + (query.mode == .words ? " (\(query.syntax.rawValue))" : "")
            + (query.typos != .off ? ", typos \(query.typos)" : "")
        if query.scope != "All" { line += " · scope \(query.scope)" }
        if query.order == .sorted, page.settings.sort != nil { line += " · sorted by \(page.settings.sortDescription)" }
        return line
    }

    private func plain(_ text: String) -> Cell { Cells.plain(text) }

    /// A snippet's window, with "…" where the field was cut.
    private static func cell(_ snippet: Snippet) -> Cell {
        let text = (snippet.isCutAtStart ? "…" : "") + snippet.text + (snippet.isCutAtEnd ? "…" : "")
        let shift = snippet.isCutAtStart ? 1 : 0
        let utf16 = text.utf16
        let ranges = snippet.utf16Ranges.map { range in
            let lower = utf16.index(utf16.startIndex, offsetBy: range.lowerBound + shift)
            return lower..<utf16.index(lower, offsetBy: range.count)
        }
        return Cells.highlighted(text, ranges)
    }

    /// UTF-16 ranges of a value as ranges of the `String`, as `SearchIndex.highlights` gives them.
    static func stringRanges(_ ranges: [Range<Int>], in text: String) -> [Range<String.Index>] {
        guard !ranges.isEmpty else { return [] }
        let utf16 = text.utf16
        let length = utf16.count
        return ranges.map { range in
            let lowerOffset = min(max(0, range.lowerBound), length)
            let lower = utf16.index(utf16.startIndex, offsetBy: lowerOffset)
            let upper = utf16.index(lower, offsetBy: min(range.count, length - lowerOffset))
            return lower..<upper
        }
    }

    private func highlighted(_ text: String, _ ranges: [Range<String.Index>]) -> Cell {
        Cells.highlighted(text, ranges)
    }
}
