import Sift

/// Renders rows of the REPL's tables: an optional selection marker, the section title (on the
/// first row of each section, and on the first row shown), the 1-based row number, then the
/// columns to show, with matched ranges highlighted, sized by display width.
struct ReplTable {
    /// One row to show.
    struct Row {
        /// The row's 1-based number in its table (rows counted across sections).
        var number: Int
        /// The title of the row's section, when it starts a section (or starts what is shown).
        var section: String?
        var content: RowContent
        var isSelected = false
    }

    let columns: [String]
    let style: HighlightStyle
    /// Whether the table has sections (a column of section titles).
    let sectioned: Bool
    /// Whether a column marks the selected row (live mode).
    var marksSelection = false

    /// Header and row lines, fitted to `width` as far as the columns allow (the columns to show
    /// get at least 8 columns each).
    func lines(_ rows: [Row], width: Int) -> [String] {
        var header: [Cell] = []
        if marksSelection { header.append([]) }
        if sectioned { header.append([]) }
        header.append(Cells.plain("#"))
        header += columns.map { Cells.plain($0, .allControls) }
        let fixed = header.count - columns.count
        var table: [[Cell]] = []
        for row in rows {
            var cells: [Cell] = []
            if marksSelection { cells.append(Cells.plain(row.isSelected ? ">" : " ")) }
            if sectioned { cells.append(Cells.plain(row.section ?? "", .allControls)) }
            cells.append(Cells.plain(String(row.number)))
            for field in columns {
                let value = row.content.record?.fields[field] ?? ""
                cells.append(Cells.highlighted(value, row.content.highlights[field] ?? [], .allControls))
            }
            table.append(cells)
        }
        let widths = Cells.columnWidths([header] + table, fixed: fixed, width: width, style: style)
        let numberColumn = fixed - 1
        var lines = [Cells.line(header, widths, bold: true, style: style, rightAligned: [numberColumn])]
        for cells in table { lines.append(Cells.line(cells, widths, bold: false, style: style, rightAligned: [numberColumn])) }
        return lines
    }

    /// The rows of a table from `start` (0-based, across sections), at most `count` of them,
    /// numbered, with the section titles to show.
    static func slice(of table: RecordTable, from start: Int, count: Int) -> [(number: Int, row: TableRow, section: String?)] {
        var result: [(number: Int, row: TableRow, section: String?)] = []
        var number = 0
        for section in table.sections {
            if number + section.rows.count <= start {
                number += section.rows.count
                continue
            }
            for (r, row) in section.rows.enumerated() {
                number += 1
                guard number > start else { continue }
                if result.count == count { return result }
                let showsTitle = r == 0 || result.isEmpty
                result.append((number, row, showsTitle ? section.title : nil))
            }
        }
        return result
    }
}
