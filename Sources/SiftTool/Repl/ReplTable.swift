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

/// A table as the REPL shows it: the controller's table, read backwards when the sort is
/// descending and the table is in sorted order (the index sorts ascending). Row numbers are
/// 1-based, counted across sections, in the order shown; paths are the controller's.
struct ShownTable {
    let table: RecordTable
    /// Whether the rows are shown last first.
    let isReversed: Bool
    private let sections: [TableSection]

    init(_ table: RecordTable, descending: Bool) {
        self.table = table
        isReversed = descending && table.layout.order == .sorted
        sections = table.sections
    }

    var rowCount: Int { table.rowCount }
    var isSectioned: Bool { table.layout.isSectioned }
    var order: ResultOrder { table.layout.order }
    var sectionCount: Int { sections.count }

    /// The section index titles in the order shown.
    var sectionIndexTitles: [String] { isReversed ? table.sectionIndexTitles.reversed() : table.sectionIndexTitles }

    /// The controller's row number (1-based, across sections) of a row number shown.
    private func underlying(_ number: Int) -> Int { isReversed ? rowCount + 1 - number : number }

    /// The path of a row number shown, or nil when out of range.
    func path(ofRow number: Int) -> TableIndexPath? {
        guard number >= 1, number <= rowCount else { return nil }
        var remaining = underlying(number) - 1
        for (s, section) in sections.enumerated() {
            if remaining < section.rows.count { return TableIndexPath(section: s, row: remaining) }
            remaining -= section.rows.count
        }
        return nil
    }

    /// The row number shown for a path.
    func rowNumber(of path: TableIndexPath) -> Int {
        let number = sections[..<path.section].reduce(0) { $0 + $1.rows.count } + path.row + 1
        return underlying(number)
    }

    /// The row number shown for a record (by id), or nil when the table does not show it.
    func rowNumber(ofID id: String) -> Int? {
        var number = 0
        for section in sections {
            for row in section.rows {
                number += 1
                if row.id == id { return underlying(number) }
            }
        }
        return nil
    }

    /// The position, in `sectionIndexTitles`, of the section of a row number shown.
    func sectionIndexTitlePosition(ofRow number: Int) -> Int? {
        guard let path = path(ofRow: number), let position = sections[path.section].sectionIndexTitlePosition else {
            return nil
        }
        return isReversed ? table.sectionIndexTitles.count - 1 - position : position
    }

    /// The rows shown from `start` (0-based), at most `count` of them, numbered, with the section
    /// title on the first row of each section and on the first row.
    func slice(from start: Int, count: Int) -> [(number: Int, row: TableRow, section: String?)] {
        guard !isReversed else {
            var result: [(number: Int, row: TableRow, section: String?)] = []
            var number = start
            while result.count < count, number < rowCount, let path = path(ofRow: number + 1) {
                number += 1
                let section = sections[path.section]
                let startsSection = path.row == section.rows.count - 1  // shown first in its section
                result.append((number, section.rows[path.row], startsSection || result.isEmpty ? section.title : nil))
            }
            return result
        }
        return ReplTable.slice(of: table, from: start, count: count)
    }
}
