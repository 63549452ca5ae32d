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

    private var style: HighlightStyle { color ? .terminal : .brackets }

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
        let widths = Cells.columnWidths([header] + table, fixed: showID ? 2 : 1, width: width, style: style)

        var out = summary() + "\n"
        if !table.isEmpty {
            out += Cells.line(header, widths, bold: true, style: style) + "\n"
            for cells in table { out += Cells.line(cells, widths, bold: false, style: style) + "\n" }
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

    private func plain(_ text: String) -> Cell { Cells.plain(text) }

    private func highlighted(_ text: String, _ ranges: [Range<String.Index>]) -> Cell { Cells.highlighted(text, ranges) }
}
