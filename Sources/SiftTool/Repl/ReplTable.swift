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
        for cells in table {
            lines.append(Cells.line(cells, widths, bold: false, style: style, rightAligned: [numberColumn]))
        }
        return lines
    }
}

/// A table as the REPL shows it: the controller's table, read backwards when the sort is
/// descending and the table is in sorted order (the index sorts ascending). Row numbers are
/// 1-based, counted across sections, in the order shown; paths are the controller's.
///
/// Everything it answers comes from the table's data-source answers (`numberOfRows(inSection:)`,
/// `indexPath(forRowNumber:)`, `rows(numbered:)`, ...), so it reads only the rows it shows: O(1)
/// or O(log *s*) per row, whatever the size of the table.
struct ShownTable {
    let table: RecordTable
    /// Whether the rows are shown last first.
    let isReversed: Bool

    init(_ table: RecordTable, descending: Bool) {
        self.table = table
        isReversed = descending && table.layout.order == .sorted
    }

    var rowCount: Int { table.rowCount }
    var isSectioned: Bool { table.layout.isSectioned }
    var order: ResultOrder { table.layout.order }
    var sectionCount: Int { table.numberOfSections }

    /// The section index titles in the order shown.
    var sectionIndexTitles: [String] { isReversed ? table.sectionIndexTitles.reversed() : table.sectionIndexTitles }

    /// The controller's row number (1-based, across sections) of a row number shown, and back.
    private func underlying(_ number: Int) -> Int { isReversed ? rowCount + 1 - number : number }

    /// The path of a row number shown, or nil when out of range.
    func path(ofRow number: Int) -> TableIndexPath? {
        guard number >= 1, number <= rowCount else { return nil }
        return table.indexPath(forRowNumber: underlying(number) - 1)
    }

    /// The row number shown for a path of the table.
    func rowNumber(of path: TableIndexPath) -> Int? {
        table.rowNumber(of: path).map { underlying($0 + 1) }
    }

    /// The row number shown for a record, or nil when the table does not show it.
    ///
    /// - Complexity: O(1) after the first lookup in the table, which maps its rows: O(*m*).
    func rowNumber(of handle: RecordHandle) -> Int? {
        table.indexPath(of: handle).flatMap { rowNumber(of: $0) }
    }

    /// The position, in `sectionIndexTitles`, of the section of a row number shown.
    func sectionIndexTitlePosition(ofRow number: Int) -> Int? {
        guard let path = path(ofRow: number), let position = table.sectionIndexTitlePosition(ofSection: path.section)
        else {
            return nil
        }
        return isReversed ? table.sectionIndexTitles.count - 1 - position : position
    }

    /// The rows shown from `start` (0-based), at most `count` of them, numbered, with the section
    /// title on the first row of each section (as shown) and on the first row.
    ///
    /// - Complexity: O(*k* log *s*) for *k* rows and *s* sections.
    func slice(from start: Int, count: Int) -> [(number: Int, row: TableRow, section: String?)] {
        let end = min(rowCount, start + count)
        guard start >= 0, start < end else { return [] }
        let underlyingNumbers = isReversed ? (rowCount - end)..<(rowCount - start) : start..<end
        var rows = table.rows(numbered: underlyingNumbers)
        if isReversed { rows.reverse() }
        return rows.enumerated().map { offset, row in
            let number = start + offset + 1
            let path = table.indexPath(forRowNumber: underlying(number) - 1)!
            // Shown first in its section: its first row, or its last one when reversed.
            let startsSection = isReversed ? path.row == table.numberOfRows(inSection: path.section) - 1 : path.row == 0
            return (number, row, startsSection || offset == 0 ? table.title(ofSection: path.section) : nil)
        }
    }
}
