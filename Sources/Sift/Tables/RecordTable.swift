/// A table of records as a table view shows it: sections of rows, with section index titles,
/// answering what a table view's data source asks without building a row until it is read.
///
/// A search display has two of them (see `SearchTables`): the original table of every record and
/// the results table of the current matches. Tables are values: each `SearchUpdate` carries the
/// tables as they are after the update, and a `TableChangeSet` that turns the previous ones into
/// them. A table holds its records' handles in table order and a snapshot of what its rows show
/// (ids, titles, sections), so later edits of the index never change a table under its reader;
/// a `TableRow` is made when a row is read.
///
/// ```swift
/// let table = update.tables.original
/// table.numberOfSections                                          // numberOfSections(in:)
/// table.numberOfRows(inSection: 3)                                // tableView(_:numberOfRowsInSection:)
/// let row = table[TableIndexPath(section: 3, row: 0)]             // tableView(_:cellForRowAt:)
/// print(table.title(ofSection: 3) ?? "", row.title)               // Ñ Ñandú
/// let path = table.indexPath(of: row.handle)                      // where a record is
/// let scrollTo = table.section(forSectionIndexTitleAt: 12)        // a tap on the index bar
/// ```
public struct RecordTable: Sendable {
    /// How the rows are ordered and grouped.
    public let layout: TableLayout
    /// The titles for a table view's section index (the AlphabeticIndex labels of the locale, all
    /// of them, empty sections included); empty for an unsectioned table. Use
    /// `section(forSectionIndexTitleAt:)` to find the section a title scrolls to.
    public let sectionIndexTitles: [String]
    /// The record of every row, in table order; the rows of a section are one run. In an
    /// unsectioned results table they may be bitsets whose handles are made when read.
    var records: ResultRows
    /// Where each section's rows start in `handles`, then `handles.count`.
    private var sectionStarts: [Int]
    /// Each section's key: its AlphabeticIndex bucket, or 0 in an unsectioned table.
    private var sectionKeys: [Int32]
    /// The section of each key, or -1; one entry per section index title (or one).
    private var sectionOfKey: [Int32]
    /// What the rows show.
    private(set) var content: Content
    /// The row number of each record, made the first time one is asked for.
    private var rowNumbers = RowNumberIndex()

    /// Where rows come from.
    enum Content: Sendable {
        /// A snapshot of the index: rows are made from the handles when read.
        case snapshot(TableRowSource)
        /// Rows given whole, parallel to `handles` (tables rebuilt from change sets, and tests).
        case rows([TableRow])
    }

    /// A table of these records, given in the layout's order, whose rows `source` shows.
    ///
    /// - Parameter groupedBySection: whether the records are in runs by section already, in
    ///   section order, as the index's collation order is (it sorts by section first): the
    ///   sections are then found by binary search, O(*s* log *m*) for *s* sections. Otherwise a
    ///   sectioned table groups the rows by section, keeping their order: O(*m*).
    /// - Complexity: O(1) for an unsectioned table (the handles are shared, not copied).
    init(
        handles: [RecordHandle],
        layout: TableLayout,
        sectionTitles: [String],
        source: TableRowSource,
        groupedBySection: Bool
    ) {
        self.init(
            rows: ResultRows(handles),
            layout: layout,
            sectionTitles: sectionTitles,
            source: source,
            groupedBySection: groupedBySection
        )
    }

    /// A table of these rows, as `init(handles:layout:sectionTitles:source:groupedBySection:)`
    /// makes one; an unsectioned table keeps rows still to be made as they are.
    ///
    /// - Complexity: O(1) for an unsectioned table; else as the handles' initializer, after
    ///   making the rows.
    init(
        rows: ResultRows,
        layout: TableLayout,
        sectionTitles: [String],
        source: TableRowSource,
        groupedBySection: Bool
    ) {
        self.layout = layout
        sectionIndexTitles = layout.isSectioned ? sectionTitles : []
        content = .snapshot(source)
        sectionOfKey = [Int32](repeating: -1, count: max(1, sectionIndexTitles.count))
        guard layout.isSectioned else {
            self.records = rows
            sectionStarts = [0, rows.count]
            sectionKeys = [0]
            sectionOfKey[0] = 0
            return
        }
        let keyCount = sectionIndexTitles.count
        func key(_ handle: RecordHandle) -> Int32 { min(source.section(ofSlot: handle.slot), Int32(keyCount - 1)) }
        sectionStarts = []
        sectionKeys = []
        if groupedBySection {
            // Rows read one by one, so that rows still to be made (an index's order) stay so.
            self.records = rows
            var start = 0
            while start < rows.count {
                let sectionKey = key(rows.handle(at: start))
                var low = start + 1
                var high = rows.count
                while low < high {
                    let middle = (low + high) / 2
                    if key(rows.handle(at: middle)) <= sectionKey { low = middle + 1 } else { high = middle }
                }
                sectionOfKey[Int(sectionKey)] = Int32(sectionKeys.count)
                sectionKeys.append(sectionKey)
                sectionStarts.append(start)
                start = low
            }
        } else {
            let handles = rows.handles
            var counts = [Int](repeating: 0, count: keyCount)
            for handle in handles { counts[Int(key(handle))] += 1 }
            var next = [Int](repeating: 0, count: keyCount)
            var total = 0
            for sectionKey in 0..<keyCount where counts[sectionKey] > 0 {
                next[sectionKey] = total
                sectionOfKey[sectionKey] = Int32(sectionKeys.count)
                sectionKeys.append(Int32(sectionKey))
                sectionStarts.append(total)
                total += counts[sectionKey]
            }
            // Never `unsafeUninitializedCapacity: 0`: it writes the count into the empty array
            // singleton that every thread reads (a data race ThreadSanitizer reports).
            let grouped =
                handles.isEmpty
                ? []
                : [RecordHandle](unsafeUninitializedCapacity: handles.count) { buffer, initialized in
                    for handle in handles {
                        let sectionKey = Int(key(handle))
                        (buffer.baseAddress! + next[sectionKey]).initialize(to: handle)
                        next[sectionKey] += 1
                    }
                    initialized = handles.count
                }
            self.records = ResultRows(grouped)
        }
        sectionStarts.append(self.records.count)
    }

    /// A table of these rows, given in the layout's order; grouped into sections (keeping their
    /// order) when the layout asks for it. A row whose handle was already seen is left out.
    ///
    /// - Complexity: O(*m*) for *m* rows.
    package init(rows: [TableRow], layout: TableLayout, sectionTitles: [String]) {
        var seen = Set<RecordHandle>()
        var unique = rows.filter { seen.insert($0.handle).inserted }
        let titles = layout.isSectioned ? sectionTitles : []
        var sections: [(key: Int32, rows: ArraySlice<TableRow>)] = []
        if layout.isSectioned {
            unique = unique.enumerated().sorted { a, b in (a.element.bucket, a.offset) < (b.element.bucket, b.offset) }
                .map(\.element)
            var start = 0
            while start < unique.count {
                let key = unique[start].bucket
                let end = unique[start...].firstIndex { $0.bucket != key } ?? unique.count
                sections.append((key, unique[start..<end]))
                start = end
            }
        } else {
            sections = [(0, unique[...])]
        }
        self.init(sections: sections.map { ($0.key, Array($0.rows)) }, layout: layout, sectionIndexTitles: titles)
    }

    /// A table of exactly these sections (no regrouping), as a table view would show them.
    ///
    /// - Complexity: O(*m*) for *m* rows.
    init(sections: [(key: Int32, rows: [TableRow])], layout: TableLayout, sectionIndexTitles: [String]) {
        self.layout = layout
        self.sectionIndexTitles = sectionIndexTitles
        sectionOfKey = [Int32](repeating: -1, count: max(1, sectionIndexTitles.count))
        var rows: [TableRow] = []
        sectionStarts = []
        sectionKeys = []
        for (key, sectionRows) in sections {
            if sectionOfKey.indices.contains(Int(key)) { sectionOfKey[Int(key)] = Int32(sectionKeys.count) }
            sectionKeys.append(key)
            sectionStarts.append(rows.count)
            rows += sectionRows
        }
        if sectionKeys.isEmpty && !layout.isSectioned {
            sectionKeys = [0]
            sectionStarts = [0]
            sectionOfKey[0] = 0
        }
        sectionStarts.append(rows.count)
        self.records = ResultRows(rows.map(\.handle))
        content = .rows(rows)
    }

    /// An empty table with this layout.
    init(layout: TableLayout, sectionTitles: [String]) {
        self.init(rows: [], layout: layout, sectionTitles: sectionTitles)
    }

    // MARK: - What a table view's data source asks

    /// Number of rows in all sections.
    ///
    /// - Complexity: O(1).
    public var rowCount: Int { records.count }

    /// Number of sections: the non-empty alphabetic sections when sectioned, else exactly one.
    ///
    /// - Complexity: O(1).
    public var numberOfSections: Int { sectionKeys.count }

    /// Number of rows in a section (0 for a section that is not in the table).
    ///
    /// - Complexity: O(1).
    public func numberOfRows(inSection section: Int) -> Int {
        guard sectionKeys.indices.contains(section) else { return 0 }
        return sectionStarts[section + 1] - sectionStarts[section]
    }

    /// The title of a section: its AlphabeticIndex label (`"A"`, `"Ñ"`, `"…"`), or nil in an
    /// unsectioned table (or for a section that is not in the table).
    ///
    /// - Complexity: O(1).
    public func title(ofSection section: Int) -> String? {
        guard layout.isSectioned, sectionKeys.indices.contains(section) else { return nil }
        return sectionIndexTitles[Int(sectionKeys[section])]
    }

    /// The position of a section's title in `sectionIndexTitles`, or nil in an unsectioned table.
    ///
    /// - Complexity: O(1).
    public func sectionIndexTitlePosition(ofSection section: Int) -> Int? {
        guard layout.isSectioned, sectionKeys.indices.contains(section) else { return nil }
        return Int(sectionKeys[section])
    }

    /// The row at a path.
    ///
    /// - Precondition: the path is in the table.
    /// - Complexity: O(1); the row is made now.
    public subscript(path: TableIndexPath) -> TableRow {
        guard let number = rowNumber(of: path) else { preconditionFailure("index path \(path) is not in the table") }
        return row(number: number)
    }

    /// The row at a path, or nil when the path is not in the table.
    ///
    /// - Complexity: O(1); the row is made now.
    public func row(at path: TableIndexPath) -> TableRow? {
        rowNumber(of: path).map { row(number: $0) }
    }

    /// The rows numbered `numbers`, counting from 0 across sections: a page of the table.
    ///
    /// - Precondition: the numbers are in `0..<rowCount`.
    /// - Complexity: O(*k*) for *k* rows.
    public func rows(numbered numbers: Range<Int>) -> [TableRow] {
        precondition(numbers.lowerBound >= 0 && numbers.upperBound <= rowCount, "rows \(numbers) of \(rowCount)")
        return numbers.map { row(number: $0) }
    }

    /// The path of the row numbered `number`, counting from 0 across sections; nil past the end.
    ///
    /// - Complexity: O(log *s*) for *s* sections.
    public func indexPath(forRowNumber number: Int) -> TableIndexPath? {
        guard number >= 0, number < rowCount else { return nil }
        var low = 0
        var high = sectionKeys.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sectionStarts[middle] <= number { low = middle } else { high = middle - 1 }
        }
        return TableIndexPath(section: low, row: number - sectionStarts[low])
    }

    /// The number of the row at `path`, counting from 0 across sections; nil when the path is not
    /// in the table.
    ///
    /// - Complexity: O(1).
    public func rowNumber(of path: TableIndexPath) -> Int? {
        guard sectionKeys.indices.contains(path.section), path.row >= 0,
            path.row < sectionStarts[path.section + 1] - sectionStarts[path.section]
        else { return nil }
        return sectionStarts[path.section] + path.row
    }

    /// Where the record behind `handle` is in this table, or nil when the table does not show it
    /// (a stale handle, from before an update or delete, is not shown either).
    ///
    /// - Complexity: O(1) expected, after a first call on the table (or a copy of it) that maps
    ///   its rows: O(*m*).
    public func indexPath(of handle: RecordHandle) -> TableIndexPath? {
        rowNumber(ofHandle: handle).flatMap { indexPath(forRowNumber: $0) }
    }

    /// The row of the record behind `handle`, or nil when the table does not show it.
    ///
    /// - Complexity: as `indexPath(of:)`.
    public func row(for handle: RecordHandle) -> TableRow? { rowNumber(ofHandle: handle).map { row(number: $0) } }

    /// Whether the table shows the record behind `handle`.
    ///
    /// - Complexity: as `indexPath(of:)`.
    public func contains(_ handle: RecordHandle) -> Bool { rowNumber(ofHandle: handle) != nil }

    /// The section a tap on a section index title scrolls to: the section with that title, or
    /// else the next section after it, or else the last section; nil for an unsectioned or
    /// empty table.
    ///
    /// - Complexity: O(*t*) for *t* section index titles.
    public func section(forSectionIndexTitleAt position: Int) -> Int? {
        guard layout.isSectioned, !sectionKeys.isEmpty, position >= 0 else { return nil }
        for key in position..<sectionOfKey.count where sectionOfKey[key] >= 0 { return Int(sectionOfKey[key]) }
        return sectionKeys.count - 1
    }

    /// The rows of one section, made now.
    ///
    /// - Complexity: O(*r*) for the section's *r* rows (0 for a section not in the table).
    public func rows(inSection section: Int) -> [TableRow] {
        guard sectionKeys.indices.contains(section) else { return [] }
        return rowNumbers(inSection: section).map { row(number: $0) }
    }

    // MARK: - Every row at once (deprecated)

    /// The sections with all their rows.
    ///
    /// - Complexity: O(*m*): every row of the table is made. A table view asks for what it shows:
    ///   `numberOfSections`, `numberOfRows(inSection:)`, `title(ofSection:)`, `row(at:)`.
    @available(
        *,
        deprecated,
        message:
            "makes every row (O(m)); ask numberOfSections, numberOfRows(inSection:), title(ofSection:), row(at:), or rows(inSection:)"
    )
    public var sections: [TableSection] {
        sectionKeys.indices.map { section in
            TableSection(key: sectionKeys[section], title: title(ofSection: section), rows: rows(inSection: section))
        }
    }

    /// All rows, section after section.
    ///
    /// - Complexity: O(*m*): every row of the table is made.
    @available(*, deprecated, message: "makes every row (O(m)); read a page with rows(numbered:)")
    public var rows: [TableRow] { rows(numbered: 0..<rowCount) }

    /// The index path of every row, section after section.
    ///
    /// - Complexity: O(*m*).
    @available(*, deprecated, message: "lists every row (O(m)); use indexPath(forRowNumber:) for the rows you show")
    public var indexPaths: [TableIndexPath] {
        sectionKeys.indices.flatMap { section in
            (0..<numberOfRows(inSection: section)).map { TableIndexPath(section: section, row: $0) }
        }
    }

    // MARK: - Internals

    /// The row numbered `number`, made now.
    func row(number: Int) -> TableRow {
        switch content {
        case .snapshot(let source): return source.row(for: records.handle(at: number))
        case .rows(let rows): return rows[number]
        }
    }

    /// The number of the row showing `handle`, or nil.
    func rowNumber(ofHandle handle: RecordHandle) -> Int? {
        records.findsRowNumbers
            ? records.deferredRowNumber(of: handle) : rowNumbers.rowNumber(of: handle, in: records.handles)
    }

    /// Row numbers by record, for many lookups (the table's rows are mapped now if they were not).
    func rowNumberLookup() -> RowNumberLookup { rowNumbers.lookup(records.handles) }

    /// The record of every row, in table order (made now if they were not).
    ///
    /// - Complexity: O(1), or O(*m*) the first time for rows still to be made.
    var handles: [RecordHandle] { records.handles }

    /// Whether rows are made from a snapshot of an index (rows with equal handles are equal).
    var isSnapshot: Bool {
        if case .snapshot = content { return true }
        return false
    }

    /// The section index of a key, or nil when that section is absent.
    func section(ofKey key: Int32) -> Int? {
        guard sectionOfKey.indices.contains(Int(key)) else { return nil }
        let section = sectionOfKey[Int(key)]
        return section < 0 ? nil : Int(section)
    }

    /// The key of a section.
    func key(ofSection section: Int) -> Int32 { sectionKeys[section] }

    /// The rows of a section, as numbers.
    func rowNumbers(inSection section: Int) -> Range<Int> { sectionStarts[section]..<sectionStarts[section + 1] }

    /// The section key a record belongs to in this table, by the table's snapshot.
    func key(of handle: RecordHandle) -> Int32 {
        guard layout.isSectioned else { return 0 }
        switch content {
        case .snapshot(let source): return min(source.section(ofSlot: handle.slot), Int32(sectionIndexTitles.count - 1))
        case .rows(let rows): return rowNumber(ofHandle: handle).map { rows[$0].bucket } ?? 0
        }
    }

    /// Takes out the row numbered `number`; the section goes too when it empties (sectioned).
    /// With `keepingRecords`, the records are left as they are (the caller replaces them).
    ///
    /// - Complexity: O(*m*) to close the gap in the handles (a memory move), plus O(*s*).
    mutating func removeRow(
        number: Int,
        keepingRecords: Bool = false
    ) -> (path: TableIndexPath, removedSection: Bool) {
        let path = indexPath(forRowNumber: number)!
        if !keepingRecords { records.withHandles { _ = $0.remove(at: number) } }
        if case .rows(var rows) = content {
            rows.remove(at: number)
            content = .rows(rows)
        }
        for s in (path.section + 1)..<sectionStarts.count { sectionStarts[s] -= 1 }
        rowNumbers = RowNumberIndex()
        guard layout.isSectioned, numberOfRows(inSection: path.section) == 0 else { return (path, false) }
        sectionOfKey[Int(sectionKeys[path.section])] = -1
        sectionKeys.remove(at: path.section)
        sectionStarts.remove(at: path.section)
        for s in path.section..<sectionKeys.count { sectionOfKey[Int(sectionKeys[s])] = Int32(s) }
        return (path, true)
    }

    /// Takes `source` as the table's snapshot (after an edit that left the table's rows as they
    /// were).
    mutating func replaceSource(_ source: TableRowSource) { content = .snapshot(source) }

    /// Puts `handle` in its section (made when absent), after every row that precedes it, and
    /// takes `source` as the table's snapshot. With `recordsHoldIt`, the records already hold
    /// `handle` at its place (they were replaced by the rows after the edit): its row is found
    /// among them, and they are left as they are.
    ///
    /// - Complexity: O(log *r*) calls of `precedes` in a section of *r* rows, plus O(*m*) to open
    ///   the gap in the handles, plus O(*s*).
    mutating func insert(
        _ handle: RecordHandle,
        source: TableRowSource,
        recordsHoldIt: Bool = false,
        precedes: (RecordHandle, RecordHandle) throws -> Bool
    ) rethrows -> (path: TableIndexPath, insertedSection: Bool) {
        content = .snapshot(source)
        let key = key(of: handle)
        var insertedSection = false
        let section: Int
        if let existing = self.section(ofKey: key) {
            section = existing
        } else {
            section = sectionKeys.firstIndex { $0 > key } ?? sectionKeys.count
            sectionKeys.insert(key, at: section)
            sectionStarts.insert(sectionStarts[section], at: section)
            for s in section..<sectionKeys.count { sectionOfKey[Int(sectionKeys[s])] = Int32(s) }
            insertedSection = true
        }
        var low = sectionStarts[section]
        var high = sectionStarts[section + 1]
        if recordsHoldIt {
            // The section's rows before the edit's insert are `low..<high` here, and the records
            // hold one more row in it, `handle`: the first of them that does not precede
            // `handle` is `handle` itself, or the end when it is last.
            while low < high {
                let middle = (low + high) / 2
                if try precedes(records.handle(at: middle), handle) { low = middle + 1 } else { high = middle }
            }
        } else {
            try records.withHandles { handles in
                while low < high {
                    let middle = (low + high) / 2
                    if try precedes(handles[middle], handle) { low = middle + 1 } else { high = middle }
                }
                handles.insert(handle, at: low)
            }
        }
        for s in (section + 1)..<sectionStarts.count { sectionStarts[s] += 1 }
        rowNumbers = RowNumberIndex()
        return (TableIndexPath(section: section, row: low - sectionStarts[section]), insertedSection)
    }

    /// The number of the row showing `handle`, found by binary search in its section with the
    /// table's order: for the controller's own tables, whose every record is live in the index
    /// that `precedes` reads.
    ///
    /// - Complexity: O(log *r*) calls of `precedes` in a section of *r* rows.
    func locate(_ handle: RecordHandle, precedes: (RecordHandle, RecordHandle) throws -> Bool) rethrows -> Int? {
        guard let section = section(ofKey: key(of: handle)) else { return nil }
        var low = sectionStarts[section]
        var high = sectionStarts[section + 1]
        while low < high {
            let middle = (low + high) / 2
            if try precedes(records.handle(at: middle), handle) { low = middle + 1 } else { high = middle }
        }
        return low < sectionStarts[section + 1] && records.handle(at: low) == handle ? low : nil
    }
}

extension RecordTable: Hashable {
    /// Tables are equal when they have the same layout, section index titles, sections and rows.
    ///
    /// - Complexity: O(*m*); rows are compared whole unless both tables come from snapshots.
    public static func == (a: RecordTable, b: RecordTable) -> Bool {
        guard a.layout == b.layout, a.sectionIndexTitles == b.sectionIndexTitles, a.sectionKeys == b.sectionKeys,
            a.sectionStarts == b.sectionStarts, a.rowCount == b.rowCount, a.handles == b.handles
        else { return false }
        if a.isSnapshot && b.isSnapshot { return true }
        return (0..<a.rowCount).allSatisfy { a.row(number: $0) == b.row(number: $0) }
    }

    /// Hashes the layout, the sections and the rows' handles (equal tables hash alike).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(layout)
        hasher.combine(sectionKeys)
        hasher.combine(handles)
    }
}
