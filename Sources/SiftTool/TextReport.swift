import Sift

/// The readable form of a query's results: a header line and a table of the columns to show,
/// whose cells show the matched ranges highlighted (terminal colours, or [brackets] when not a
/// terminal), with columns sized by display width so CJK, emoji and accents line up.
struct TextReport {
    let page: QueryPage
    let color: Bool

    private var style: HighlightStyle { color ? .terminal : .brackets }

    /// The narrowest a text column is drawn (`Cells.columnWidths` gives each at least 8, plus two
    /// spaces between columns).
    static let narrowestColumn = 10

    func render(width: Int) throws -> String {
        let index = page.index
        let showID = page.opened.dataset.idField != nil
        let (fields, hidden) = try shownFields(width: width, showID: showID)

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
        if hidden > 0 && !table.isEmpty {
            out +=
                "… \(hidden) more \(hidden == 1 ? "column" : "columns") not shown "
                + "(--show to choose, --format json for every value)\n"
        }
        let after = page.offset + page.rows.count
        if after < page.total {
            out += "… \(page.total - after) more (--offset \(after) for the next ones, --limit 0 to print all)\n"
        }
        return out
    }

    /// The columns the table shows: every one of `--show` that fits `width` at its narrowest
    /// (columns past the width would make each line wider than the terminal); where not all fit,
    /// the columns holding a match in a printed row come first, then the first ones, in their
    /// order. Returns the number left out, too.
    ///
    /// - Complexity: O(*c*) for *c* columns to show, plus, when they do not fit, the match ranges
    ///   of the printed rows in those columns. A row of a million columns builds cells for the
    ///   few that fit, not for all.
    private func shownFields(width: Int, showID: Bool) throws -> (fields: [String], hidden: Int) {
        let show = page.settings.show
        // The fixed columns (row number, id) as `Cells.columnWidths` measures them.
        var fixed = max(3, page.rows.map { String(page.dataRow(of: $0)).count }.max() ?? 0) + 2
        if showID {
            let ids = try page.rows.map { Cells.visibleWidth(plain(try page.index.id(of: $0)), style) }
            fixed += max(2, ids.max() ?? 0) + 2
        }
        let room = max(1, (width - fixed + 2) / Self.narrowestColumn)
        guard show.count > room else { return (show, 0) }
        var chosen = Set<String>()
        for row in page.rows where chosen.count < room {
            let ranges = try page.index.matchRanges(of: row, for: page.query, fields: show)
            for field in show where chosen.count < room && ranges[field] != nil { chosen.insert(field) }
        }
        for field in show where chosen.count < room { chosen.insert(field) }
        return (show.filter(chosen.contains), show.count - room)
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
