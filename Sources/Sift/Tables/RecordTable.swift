/// A table of records as a table view shows it: sections of rows, with section index titles and
/// an O(1) map from a record to its row.
///
/// A search display has two of them (see `SearchTables`): the original table of every record and
/// the results table of the current matches. Tables are values: each `SearchUpdate` carries the
/// tables as they are after the update, and a `TableChangeSet` that turns the previous ones into
/// them.
///
/// ```swift
/// let table = update.tables.original
/// for section in table.sections {
///     print(section.title ?? "", section.rows.map(\.title))   // Ñ ["Ñandú", "Ñuñoa"]
/// }
/// let path = table.indexPath(of: row.handle)                     // O(1)
/// let scrollTo = table.section(forSectionIndexTitleAt: 12)       // a tap on the index bar
/// ```
public struct RecordTable: Sendable {
    /// How the rows are ordered and grouped.
    public let layout: TableLayout
    /// The sections, in order: the non-empty alphabetic sections when sectioned, else exactly one.
    public private(set) var sections: [TableSection]
    /// The titles for a table view's section index (the AlphabeticIndex labels of the locale, all
    /// of them, empty sections included); empty for an unsectioned table. Use
    /// `section(forSectionIndexTitleAt:)` to find the section a title scrolls to.
    public let sectionIndexTitles: [String]
    /// Number of rows in all sections.
    public private(set) var rowCount: Int
    /// Section index of each key (bucket), or -1; one entry per `sectionIndexTitles` (or one).
    private var sectionOfKey: [Int32]
    private var locations: RowLocations

    /// A table of `rows`, given in the layout's order; the rows are grouped into sections when the
    /// layout asks for it. A row whose handle was already seen is left out.
    ///
    /// - Parameter sectionTitles: the AlphabeticIndex labels (`SearchIndex.sectionTitles`).
    /// - Complexity: O(*m*) for *m* rows, plus O(*n*) in the largest slot when the rows are many.
    init(rows: [TableRow], layout: TableLayout, sectionTitles: [String]) {
        self.layout = layout
        sectionIndexTitles = layout.isSectioned ? sectionTitles : []
        sectionOfKey = [Int32](repeating: -1, count: max(1, sectionIndexTitles.count))
        locations = RowLocations(
            expectedCount: rows.count, slotLimit: rows.reduce(0) { max($0, Int($1.handle.slot) + 1) })
        sections = []
        rowCount = 0
        if layout.isSectioned {
            var rowsOfKey = [[TableRow]](repeating: [], count: sectionIndexTitles.count)
            for row in rows where locations[row.handle.slot] == nil {
                locations[row.handle.slot] = RowLocations.Location(key: row.bucket, row: Int32(rowsOfKey[Int(row.bucket)].count))
                rowsOfKey[Int(row.bucket)].append(row)
            }
            for (key, rows) in rowsOfKey.enumerated() where !rows.isEmpty {
                sectionOfKey[key] = Int32(sections.count)
                sections.append(TableSection(key: Int32(key), title: sectionIndexTitles[key], rows: rows))
                rowCount += rows.count
            }
        } else {
            var kept = rows
            for (r, row) in rows.enumerated() {
                guard locations[row.handle.slot] == nil else {
                    kept = Self.withoutRepeats(rows, &locations)
                    break
                }
                locations[row.handle.slot] = RowLocations.Location(key: 0, row: Int32(r))
            }
            sectionOfKey[0] = 0
            sections = [TableSection(key: 0, title: nil, rows: kept)]
            rowCount = kept.count
        }
    }

    /// The rows without those whose handle was already seen, with `locations` rebuilt for them.
    private static func withoutRepeats(_ rows: [TableRow], _ locations: inout RowLocations) -> [TableRow] {
        for row in rows { locations[row.handle.slot] = nil }
        var kept: [TableRow] = []
        kept.reserveCapacity(rows.count)
        for row in rows where locations[row.handle.slot] == nil {
            locations[row.handle.slot] = RowLocations.Location(key: 0, row: Int32(kept.count))
            kept.append(row)
        }
        return kept
    }

    /// A table of exactly these sections (no regrouping), as a table view would show them.
    ///
    /// - Complexity: O(*m*) for *m* rows, plus O(*n*) in the largest slot when the rows are many.
    init(sections: [TableSection], layout: TableLayout, sectionIndexTitles: [String]) {
        self.layout = layout
        self.sectionIndexTitles = sectionIndexTitles
        self.sections = sections
        sectionOfKey = [Int32](repeating: -1, count: max(1, sectionIndexTitles.count))
        rowCount = sections.reduce(0) { $0 + $1.rows.count }
        let slotLimit = sections.reduce(0) { limit, section in
            section.rows.reduce(limit) { max($0, Int($1.handle.slot) + 1) }
        }
        locations = RowLocations(expectedCount: rowCount, slotLimit: slotLimit)
        for (s, section) in sections.enumerated() {
            if sectionOfKey.indices.contains(Int(section.key)) { sectionOfKey[Int(section.key)] = Int32(s) }
            for (r, row) in section.rows.enumerated() {
                locations[row.handle.slot] = RowLocations.Location(key: section.key, row: Int32(r))
            }
        }
    }

    /// An empty table with this layout.
    init(layout: TableLayout, sectionTitles: [String]) {
        self.init(rows: [], layout: layout, sectionTitles: sectionTitles)
    }

    // MARK: - Reading

    /// The row at a path.
    ///
    /// - Precondition: the path is in the table.
    /// - Complexity: O(1).
    public subscript(path: TableIndexPath) -> TableRow { sections[path.section].rows[path.row] }

    /// The row at a path, or nil when the path is not in the table.
    ///
    /// - Complexity: O(1).
    public func row(at path: TableIndexPath) -> TableRow? {
        guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row) else {
            return nil
        }
        return sections[path.section].rows[path.row]
    }

    /// Where the record behind `handle` is in this table, or nil when the table does not show it
    /// (a stale handle, from before an update or delete, is not shown either).
    ///
    /// - Complexity: O(1).
    public func indexPath(of handle: RecordHandle) -> TableIndexPath? {
        guard let location = locations[handle.slot] else { return nil }
        let section = Int(sectionOfKey[Int(location.key)])
        guard section >= 0 else { return nil }
        let path = TableIndexPath(section: section, row: Int(location.row))
        return sections[section].rows[path.row].handle == handle ? path : nil
    }

    /// The row of the record behind `handle`, or nil when the table does not show it.
    ///
    /// - Complexity: O(1).
    public func row(for handle: RecordHandle) -> TableRow? { indexPath(of: handle).map { self[$0] } }

    /// Whether the table shows the record behind `handle`.
    ///
    /// - Complexity: O(1).
    public func contains(_ handle: RecordHandle) -> Bool { indexPath(of: handle) != nil }

    /// The section a tap on a section index title scrolls to: the section with that title, or
    /// else the next section after it, or else the last section; nil for an unsectioned or
    /// empty table.
    ///
    /// - Complexity: O(*t*) for *t* section index titles.
    public func section(forSectionIndexTitleAt position: Int) -> Int? {
        guard layout.isSectioned, !sections.isEmpty, position >= 0 else { return nil }
        for key in position..<sectionOfKey.count where sectionOfKey[key] >= 0 { return Int(sectionOfKey[key]) }
        return sections.count - 1
    }

    /// All rows, section after section.
    ///
    /// - Complexity: O(*m*).
    public var rows: [TableRow] { sections.flatMap(\.rows) }

    /// The index path of every row, section after section.
    ///
    /// - Complexity: O(*m*).
    public var indexPaths: [TableIndexPath] {
        sections.enumerated().flatMap { s, section in section.rows.indices.map { TableIndexPath(section: s, row: $0) } }
    }

    // MARK: - Internals for editing (see RecordTable+Editing.swift)

    /// The section index of a key, or nil when that section is absent.
    func section(ofKey key: Int32) -> Int? {
        let section = sectionOfKey[Int(key)]
        return section < 0 ? nil : Int(section)
    }

    /// The section key a row belongs to in this table.
    func key(of row: TableRow) -> Int32 { layout.isSectioned ? row.bucket : 0 }

    mutating func removeRow(at path: TableIndexPath) -> (row: TableRow, removedSection: Bool) {
        let row = sections[path.section].rows.remove(at: path.row)
        locations[row.handle.slot] = nil
        for r in path.row..<sections[path.section].rows.count {
            locations.setRow(r, ofSlot: sections[path.section].rows[r].handle.slot)
        }
        rowCount -= 1
        guard layout.isSectioned, sections[path.section].rows.isEmpty else { return (row, false) }
        let removed = sections.remove(at: path.section)
        sectionOfKey[Int(removed.key)] = -1
        for s in path.section..<sections.count { sectionOfKey[Int(sections[s].key)] = Int32(s) }
        return (row, true)
    }

    /// Inserts a row at a position of its key's section, creating the section when absent.
    mutating func insert(_ row: TableRow, atRow index: Int) -> (path: TableIndexPath, insertedSection: Bool) {
        let key = key(of: row)
        var insertedSection = false
        let section: Int
        if let existing = self.section(ofKey: key) {
            section = existing
        } else {
            section = sections.firstIndex { $0.key > key } ?? sections.count
            sections.insert(TableSection(key: key, title: sectionIndexTitles[Int(key)], rows: []), at: section)
            for s in section..<sections.count { sectionOfKey[Int(sections[s].key)] = Int32(s) }
            insertedSection = true
        }
        sections[section].rows.insert(row, at: index)
        locations[row.handle.slot] = RowLocations.Location(key: key, row: Int32(index))
        for r in (index + 1)..<sections[section].rows.count {
            locations.setRow(r, ofSlot: sections[section].rows[r].handle.slot)
        }
        rowCount += 1
        return (TableIndexPath(section: section, row: index), insertedSection)
    }
}

extension RecordTable: Hashable {
    /// Tables are equal when they have the same layout, section index titles, sections and rows.
    public static func == (a: RecordTable, b: RecordTable) -> Bool {
        a.layout == b.layout && a.sectionIndexTitles == b.sectionIndexTitles && a.sections == b.sections
    }

    /// Hashes the layout and the sections (equal tables hash alike).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(layout)
        hasher.combine(sections)
    }
}
