import Testing

@testable import Sift

/// An index with enough names to fill several Spanish alphabetic sections (Ñ included).
private func makeIndex() throws -> SearchIndex {
    let names = [
        "Ñuñoa", "Nuuk", "Oslo", "Ávila", "Bogotá", "Zürich", "Paris", "Parma", "Pau", "Lapa", "Lyon", "Quito",
        "Nîmes", "Ñandú", "Malmö", "Kraków", "Straße", "São Paulo", "Saint-Paul", "Åse", "123 Street", "Écija",
        "Ceuta", "Chiclana", "Cádiz", "Dénia", "Elche", "Ibiza", "Jaén", "Yecla",
    ]
    return try SearchIndex(
        configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
        records: names.enumerated().map { Record(id: "r\($0)", fields: ["name": $1]) }
    )
}

private func table(_ handles: [RecordHandle], _ index: SearchIndex, sectioned: Bool) throws -> RecordTable {
    try RecordTable.expected(handles, in: index, layout: TableLayout(order: .original, isSectioned: sectioned))
}

@Suite("Tables: sections, index titles and O(1) row maps")
struct TableTests {
    @Test func sortedSectionsUseTheAlphabeticIndexOfTheLocale() throws {
        let index = try makeIndex()
        let sorted = try RecordTable.expected(
            index.handles(in: .sorted),
            in: index,
            layout: TableLayout(order: .sorted, isSectioned: true)
        )
        #expect(sorted.sectionIndexTitles == index.sectionTitles)
        let titles = sorted.everySection.map(\.title)
        #expect(titles.contains("Ñ") && titles.contains("N"))
        let n = try #require(sorted.everySection.first { $0.title == "N" })
        let enye = try #require(sorted.everySection.first { $0.title == "Ñ" })
        #expect(n.rows.map(\.title) == ["Nîmes", "Nuuk"])
        #expect(enye.rows.map(\.title) == ["Ñandú", "Ñuñoa"])
        // Every row sits in the section of its own title, sections in index order, rows sorted.
        #expect(sorted.everyRow.map(\.handle) == index.handles(in: .sorted))
        for section in sorted.everySection {
            #expect(section.sectionIndexTitlePosition.map { index.sectionTitles[$0] } == section.title)
            for row in section.rows { #expect(index.sectionTitles[try index.section(of: row.handle)] == section.title) }
        }
        // Empty titles scroll to the next section; titles past the last non-empty one to the last.
        let w = try #require(index.sectionTitles.firstIndex(of: "W"))
        let y = try #require(sorted.everySection.firstIndex { $0.title == "Y" })
        #expect(sorted.section(forSectionIndexTitleAt: w) == y)
        #expect(sorted.section(forSectionIndexTitleAt: index.sectionTitles.count - 1) == sorted.everySection.count - 1)
        #expect(sorted.section(forSectionIndexTitleAt: 0) == 0)
    }

    @Test func unsectionedTablesHaveOneUntitledSectionEvenWhenEmpty() throws {
        let index = try makeIndex()
        let empty = try table([], index, sectioned: false)
        #expect(empty.everySection.count == 1 && empty.everySection[0].title == nil && empty.rowCount == 0)
        #expect(empty.sectionIndexTitles.isEmpty && empty.section(forSectionIndexTitleAt: 0) == nil)
        let sectionedEmpty = try table([], index, sectioned: true)
        #expect(sectionedEmpty.everySection.isEmpty && sectionedEmpty.section(forSectionIndexTitleAt: 3) == nil)
        let original = try table(index.handles(), index, sectioned: false)
        #expect(original.everyRow.map(\.handle) == index.handles())
        #expect(original.rowCount == index.count)
    }

    /// Dense maps (many rows) and sparse maps (few rows) answer alike: every row's own path,
    /// nil for others and for stale handles.
    @Test(arguments: [false, true])
    func rowMapsFindEveryRowAndNothingElse(sectioned: Bool) throws {
        let index = try makeIndex()
        var generator = SeededGenerator(seed: 7)
        let all = index.handles()
        for size in [0, 2, 5, all.count / 2, all.count] {
            let chosen = Array(all.shuffled(using: &generator).prefix(size))
            let t = try table(chosen, index, sectioned: sectioned)
            #expect(t.rowCount == size)
            for path in t.everyIndexPath { #expect(t.indexPath(of: t[path].handle) == path) }
            for handle in all where !chosen.contains(handle) { #expect(t.indexPath(of: handle) == nil) }
        }
        let original = try table(all, index, sectioned: sectioned)
        let results = try table(Array(all.shuffled(using: &generator).prefix(9)), index, sectioned: sectioned)
        let tables = SearchTables(original: original, results: results)
        for path in results.everyIndexPath {
            let back = try #require(tables.originalIndexPath(ofResultsRowAt: path))
            #expect(original[back] == results[path])
        }
        var members = 0
        for path in original.everyIndexPath {
            let inResults = tables.resultsIndexPath(ofOriginalRowAt: path)
            #expect(inResults.map { results[$0] } == (results.contains(original[path].handle) ? original[path] : nil))
            #expect(tables.isInResults(originalRowAt: path) == (inResults != nil))
            if inResults != nil { members += 1 }
        }
        #expect(members == 9)
        #expect(tables.originalIndexPath(ofResultsRowAt: TableIndexPath(section: 40, row: 0)) == nil)

        // A deleted record's old handle is stale: the index reuses its slot for the next record.
        let victim = all[3]
        try index.remove(victim)
        let newcomer = try index.insert(Record(id: "new", fields: ["name": "Oviedo"]))
        #expect(newcomer.slot == victim.slot && newcomer != victim)
        #expect(original.indexPath(of: newcomer) == nil)
        #expect(original.indexPath(of: victim) != nil)  // the table is a value: a snapshot
    }
}

@Suite("Change sets: diffs and UIKit batch-update semantics")
struct TableChangeSetTests {
    /// A random table built from the index's records: a random subset, in random order, some rows
    /// with changed content (as an update gives: same record, new title and maybe a new section).
    private static func randomTable(
        _ index: SearchIndex,
        sectioned: Bool,
        _ generator: inout SeededGenerator,
        changing: Bool
    ) throws -> RecordTable {
        var rows: [TableRow] = []
        for handle in index.handles().shuffled(using: &generator) where Bool.random(using: &generator) {
            var row = try index.tableRow(for: handle)
            if changing && Int.random(in: 0..<6, using: &generator) == 0 {
                let bucket =
                    Bool.random(using: &generator)
                    ? row.bucket : Int32.random(in: 0..<Int32(index.sectionTitles.count), using: &generator)
                row = TableRow(id: row.id, title: row.title + "*", handle: row.handle, bucket: bucket)
            }
            rows.append(row)
        }
        return RecordTable(
            rows: rows,
            layout: TableLayout(order: .original, isSectioned: sectioned),
            sectionTitles: index.sectionTitles
        )
    }

    @Test(arguments: [false, true])
    func applyingTheDifferenceGivesExactlyTheNewTable(sectioned: Bool) throws {
        let index = try makeIndex()
        var generator = SeededGenerator(seed: sectioned ? 11 : 12)
        for _ in 0..<400 {
            let old = try Self.randomTable(index, sectioned: sectioned, &generator, changing: false)
            let new = try Self.randomTable(index, sectioned: sectioned, &generator, changing: true)
            let changes = TableChangeSet(from: old, to: new)
            let applied = try changes.apply(to: old, dataSource: new)
            #expect(applied == new)
            #expect(TableChangeSet(from: new, to: new).isEmpty)
        }
    }

    @Test func movesAreTheFewestPossible() throws {
        let index = try makeIndex()
        var generator = SeededGenerator(seed: 3)
        let all = index.handles()
        for _ in 0..<100 {
            let order = all.shuffled(using: &generator)
            let old = try table(all, index, sectioned: false)
            let new = try table(order, index, sectioned: false)
            let changes = TableChangeSet(from: old, to: new)
            let positions = order.map { all.firstIndex(of: $0)! }
            #expect(changes.movedRows.count == all.count - longestIncreasingSubsequence(positions).count)
            #expect(changes.deletedRows.isEmpty && changes.insertedRows.isEmpty)
            #expect(try changes.apply(to: old, dataSource: new) == new)
        }
        let values = [3, 1, 2, 5, 4, 6]
        let lis = longestIncreasingSubsequence(values).map { values[$0] }
        #expect(lis.count == 4 && zip(lis, lis.dropFirst()).allSatisfy { $0 < $1 })
        #expect(longestIncreasingSubsequence([]) == [])
    }

    @Test(arguments: [false, true])
    func narrowingGivesOnlyDeletesAndWideningOnlyInserts(sectioned: Bool) throws {
        let index = try makeIndex()
        let all = index.handles(in: .sorted)
        let some = all.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let wide = try table(all, index, sectioned: sectioned)
        let narrow = try table(some, index, sectioned: sectioned)
        let narrowing = TableChangeSet(from: wide, to: narrow)
        #expect(narrowing.insertedRows.isEmpty && narrowing.insertedSections.isEmpty && narrowing.movedRows.isEmpty)
        let rowsOfDeletedSections = narrowing.deletedSections.reduce(0) { $0 + wide.everySection[$1].rows.count }
        #expect(narrowing.deletedRows.count + rowsOfDeletedSections == all.count - some.count)
        #expect(sectioned ? !narrowing.deletedSections.isEmpty : narrowing.deletedSections.isEmpty)
        let widening = TableChangeSet(from: narrow, to: wide)
        #expect(widening.deletedRows.isEmpty && widening.deletedSections.isEmpty && widening.movedRows.isEmpty)
        #expect(try widening.apply(to: narrow, dataSource: wide) == wide)
    }

    /// The checks bite: a change set missing one change does not reproduce the new table.
    @Test func incompleteOrInvalidChangeSetsAreCaught() throws {
        let index = try makeIndex()
        let all = index.handles()
        let old = try table(all, index, sectioned: false)
        var rows = old.everyRow
        rows.remove(at: 2)
        let row = rows[4]
        rows[4] = TableRow(id: row.id, title: "Renamed", handle: row.handle, bucket: row.bucket)
        rows.swapAt(0, 9)
        let new = RecordTable(rows: rows, layout: old.layout, sectionTitles: index.sectionTitles)
        let changes = TableChangeSet(from: old, to: new)
        #expect(changes.deletedRows == [TableIndexPath(section: 0, row: 2)])
        #expect(changes.reloadedRows == [TableIndexPath(section: 0, row: 5)])
        #expect(try changes.apply(to: old, dataSource: new) == new)

        var withoutReload = changes
        withoutReload.reloadedRows = []
        #expect(try withoutReload.apply(to: old, dataSource: new) != new)
        var withoutMoves = changes
        withoutMoves.movedRows = []
        #expect(try withoutMoves.apply(to: old, dataSource: new) != new)
        var withoutDelete = changes
        withoutDelete.deletedRows = []
        #expect(throws: TableChangeSet.InconsistencyError.self) { try withoutDelete.apply(to: old, dataSource: new) }
        var twice = changes
        twice.reloadedRows.append(twice.reloadedRows[0])
        #expect(throws: TableChangeSet.InconsistencyError.self) { try twice.apply(to: old, dataSource: new) }
        var movedAndDeleted = changes
        movedAndDeleted.deletedRows.append(changes.movedRows[0].from)
        #expect(throws: TableChangeSet.InconsistencyError.self) { try movedAndDeleted.apply(to: old, dataSource: new) }
    }
}

/// Tables made from an index (the controller's): rows made on read, sections found from the
/// order, change sets as set differences, and values that later edits never change.
@Suite("Tables as views over an index snapshot")
struct TableViewTests {
    static let layouts: [TableLayout] = [
        TableLayout(order: .original), TableLayout(order: .original, isSectioned: true),
        TableLayout(order: .sorted), TableLayout(order: .sorted, isSectioned: true),
        TableLayout(order: .ranked), TableLayout(order: .ranked, isSectioned: true),
    ]

    /// A table of `handles` (in the layout's order) made as the controller makes it.
    static func view(_ handles: [RecordHandle], _ index: SearchIndex, _ layout: TableLayout) -> RecordTable {
        RecordTable(
            handles: handles,
            layout: layout,
            sectionTitles: index.sectionTitles,
            source: index.tableRowSource(withSections: true),
            groupedBySection: layout.order == .sorted
        )
    }

    /// The records in a layout's order: the index's, or a random one for `.ranked`.
    static func ordered(
        _ index: SearchIndex,
        _ layout: TableLayout,
        _ generator: inout SeededGenerator
    ) -> [RecordHandle] {
        switch layout.order {
        case .original: index.handles()
        case .sorted: index.handles(in: .sorted)
        case .ranked: index.handles().shuffled(using: &generator)
        }
    }

    @Test(arguments: layouts)
    func theDataSourceQuestionsAgreeWithTheRowsGroupedEagerly(layout: TableLayout) throws {
        let index = try makeIndex()
        var generator = SeededGenerator(seed: 21)
        let all = Self.ordered(index, layout, &generator)
        for _ in 0..<50 {
            let some = all.filter { _ in Bool.random(using: &generator) }
            let table = Self.view(some, index, layout)
            let expected = try RecordTable.expected(some, in: index, layout: layout)
            #expect(table == expected)
            #expect(table.numberOfSections == expected.everySection.count)
            #expect(table.rowCount == some.count)
            var number = 0
            for section in 0..<table.numberOfSections {
                #expect(table.title(ofSection: section) == expected.everySection[section].title)
                #expect(table.numberOfRows(inSection: section) == expected.everySection[section].rows.count)
                for row in 0..<table.numberOfRows(inSection: section) {
                    let path = TableIndexPath(section: section, row: row)
                    #expect(table[path] == expected.everySection[section].rows[row])
                    #expect(table.indexPath(of: table[path].handle) == path)
                    #expect(table.rowNumber(of: path) == number && table.indexPath(forRowNumber: number) == path)
                    number += 1
                }
            }
            #expect(table.indexPath(forRowNumber: number) == nil && table.indexPath(forRowNumber: -1) == nil)
            #expect(table.rows(numbered: 0..<table.rowCount) == expected.everyRow)
            for handle in all where !some.contains(handle) { #expect(table.indexPath(of: handle) == nil) }
        }
    }

    /// The property every change set keeps: applied to the old table, it gives exactly the new
    /// one; in original and collation order a query's new results give deletes and inserts only.
    @Test(arguments: layouts)
    func applyingTheDifferenceGivesExactlyTheNewTable(layout: TableLayout) throws {
        let index = try makeIndex()
        var generator = SeededGenerator(seed: 22)
        for _ in 0..<200 {
            let old = Self.view(
                Self.ordered(index, layout, &generator).filter { _ in Bool.random(using: &generator) },
                index,
                layout
            )
            let new = Self.view(
                Self.ordered(index, layout, &generator).filter { _ in Bool.random(using: &generator) },
                index,
                layout
            )
            let changes = TableChangeSet(from: old, to: new)
            #expect(try changes.apply(to: old, dataSource: new) == new)
            if layout.order != .ranked { #expect(changes.movedRows.isEmpty && changes.reloadedRows.isEmpty) }
            #expect(!changes.requiresReload)
            #expect(TableChangeSet(from: new, to: new).isEmpty)
            let count = changes.deletedRows.count + changes.insertedRows.count + changes.movedRows.count
            let limited = TableChangeSet(from: old, to: new, limit: 3)
            // Listed rows within the limit give the whole change set, unless the row counts alone
            // (rows of whole sections included) differ by more: that is a reload at once.
            if count <= 3 && abs(old.rowCount - new.rowCount) <= 3 {
                #expect(limited == changes)
            } else if count <= 3 {
                #expect(limited.requiresReload && limited.deletedRows.isEmpty)
            } else {
                #expect(limited.requiresReload && limited.deletedRows.isEmpty && !limited.isEmpty)
            }
            #expect(try limited.apply(to: old, dataSource: new) == new)
        }
    }

    /// A table is a value: edits made to the index after it was made change nothing in it.
    @Test func laterEditsNeverChangeATableUnderItsReader() async throws {
        let controller = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
            records: ["Paris", "Parma", "Pau", "Lapa", "Oslo"].enumerated().map {
                Record(id: "r\($0)", fields: ["name": $1])
            },
            options: .init(
                originalTable: TableLayout(order: .sorted, isSectioned: true),
                resultsTable: TableLayout(order: .sorted, isSectioned: true)
            )
        )
        let before = try await controller.settledUpdate(for: controller.setText("pa"))
        let original = before.tables.original.everyRow
        let results = before.tables.results.everyRow
        try await controller.update(Record(id: "r0", fields: ["name": "Zaragoza"]))
        try await controller.deleteRecord(id: "r1")
        try await controller.insert(Record(id: "r9", fields: ["name": "Pamplona"]), atOriginalPosition: 0)
        #expect(before.tables.original.everyRow == original)
        #expect(before.tables.results.everyRow == results)
        #expect(results.map(\.title) == ["Lapa", "Paris", "Parma", "Pau"])
        #expect(before.tables.original.indexPath(of: original[2].handle) != nil)
        let after = await controller.currentUpdate
        #expect(after.tables.results.everyRow.map(\.title) == ["Lapa", "Pamplona", "Pau"])
    }

    /// Past the controller's change limit a new query's change set is a reload, worked out when
    /// read; below it, the rows.
    @Test func theControllerReportsBigChangesAsAReload() async throws {
        let controller = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
            records: (0..<200).map {
                Record(id: "r\($0)", fields: ["name": $0 % 2 == 0 ? "Paris \($0)" : "Oslo \($0)"])
            },
            options: .init(changeLimit: 10)
        )
        let wide = try await controller.settledUpdate(for: controller.setText("p"))
        #expect(wide.tables.results.rowCount == 100 && wide.resultsChanges.requiresReload)
        let narrow = try await controller.settledUpdate(for: controller.setText("paris 10"))
        #expect(narrow.tables.results.rowCount == 6)  // 10, 100, 102, ..., 108
        #expect(narrow.resultsChanges.requiresReload)
        let narrower = try await controller.settledUpdate(for: controller.setText("paris 100"))
        #expect(!narrower.resultsChanges.requiresReload && narrower.resultsChanges.deletedRows.count == 5)
        #expect(
            try narrower.resultsChanges.apply(to: narrow.tables.results, dataSource: narrower.tables.results)
                == narrower.tables.results
        )
    }

    /// An index with no records yet has no column for its sort field: tables and sorting start
    /// empty instead of reading past the columns.
    @Test func aControllerOverNoRecordsStartsEmptyAndTakesInserts() async throws {
        for layout in Self.layouts where layout.order != .ranked {
            let controller = try SearchController(
                configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
                records: [],
                options: .init(originalTable: layout, resultsTable: layout)
            )
            #expect(await controller.currentUpdate.tables.original.rowCount == 0)
            try await controller.insert(Record(id: "1", fields: ["name": "Ñuñoa"]))
            let update = await controller.currentUpdate
            #expect(update.tables.original.rowCount == 1)
            #expect(update.tables.original.title(ofSection: 0) == (layout.isSectioned ? "Ñ" : nil))
        }
    }
}

/// Change sets' rows as runs of consecutive rows.
@Suite("Change sets as row runs")
struct TableRowRunTests {
    @Test func consecutiveRowsOfOneSectionFormOneRun() {
        let paths = [(0, 0), (0, 1), (0, 2), (0, 5), (1, 6), (1, 7), (2, 0)].map {
            TableIndexPath(section: $0.0, row: $0.1)
        }
        let changes = TableChangeSet(deletedRows: paths, insertedRows: [TableIndexPath(section: 3, row: 4)])
        #expect(
            changes.deletedRowRuns == [
                TableRowRun(section: 0, rows: 0..<3), TableRowRun(section: 0, rows: 5..<6),
                TableRowRun(section: 1, rows: 6..<8), TableRowRun(section: 2, rows: 0..<1),
            ]
        )
        #expect(changes.insertedRowRuns == [TableRowRun(section: 3, rows: 4..<5)])
        #expect(
            changes.deletedRowRuns.flatMap { run in run.rows.map { TableIndexPath(section: run.section, row: $0) } }
                == paths
        )
        #expect(TableChangeSet().deletedRowRuns.isEmpty)
    }
}
