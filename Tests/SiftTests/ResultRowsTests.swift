import SiftStorage
import Testing

@testable import Sift

/// Rows kept as bitsets (`ResultRows`), read one at a time, against the list they stand for; and
/// the searches and tables that keep them so.
@Suite struct ResultRowsTests {
    @Test func readingRowsOfGroupsOneByOneGivesTheirList() {
        var generator = SeededGenerator(seed: 11)
        let tag: UInt32 = 3 << 24
        for round in 0..<40 {
            let limit = [1, 63, 64, 65, 511, 512, 513, 5_000][round % 8]
            var remaining = Set((0..<limit).map { Int32($0) })
            var groups: [(bits: Bitset, count: Int)] = []
            var expected: [RecordHandle] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let density = [0.01, 0.3, 0.9][Int.random(in: 0..<3, using: &generator)]
                let members = remaining.filter { _ in Double.random(in: 0..<1, using: &generator) < density }
                remaining.subtract(members)
                groups.append((BitsetTests.bitset(members, capacity: limit), members.count))
                expected += members.sorted().map { RecordHandle(slot: $0, generation: tag) }
            }
            let rows = ResultRows(groups: groups, tag: tag)
            #expect(rows.isDeferred)
            #expect(rows.count == expected.count)
            for (number, handle) in expected.enumerated() {
                #expect(rows.handle(at: number) == handle)
                #expect(rows.deferredRowNumber(of: handle) == number)
            }
            for slot in remaining.prefix(20) {
                #expect(rows.deferredRowNumber(of: RecordHandle(slot: slot, generation: tag)) == nil)
            }
            if let first = expected.first {
                #expect(rows.deferredRowNumber(of: RecordHandle(slot: first.slot, generation: tag + 1)) == nil)
            }
            #expect(rows.handles == expected)
        }
    }

    /// Ranked groups read row by row in any order, by row number and by handle, order each group
    /// as the whole list does: by its deciding field's length, ties in slot order, each handle
    /// with its slot's generation; whether the list was made before, after or never.
    @Test func readingRankedGroupsInAnyOrderGivesTheirList() {
        var generator = SeededGenerator(seed: 23)
        let tag: UInt32 = 5 << 24
        for round in 0..<48 {
            let limit = [1, 63, 64, 65, 511, 513, 5_000, 20_000][round % 8]
            var remaining = Set((0..<limit).map { Int32($0) })
            let lengthColumns = (0..<2).map { _ in
                (0..<limit).map { _ in UInt8.random(in: 0...UInt8([1, 3, 255][round % 3]), using: &generator) }
            }
            var generations = SlotGenerations(count: limit)
            if round % 2 == 1 {
                for _ in 0..<limit / 3 { generations.bump(Int32.random(in: 0..<Int32(limit), using: &generator)) }
            }
            var groups: [RankedRowGroups.Group] = []
            var expected: [RecordHandle] = []
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                let density = [0.0, 0.01, 0.3, 0.9][Int.random(in: 0..<4, using: &generator)]
                let members = remaining.filter { _ in Double.random(in: 0..<1, using: &generator) < density }
                remaining.subtract(members)
                let lengths = lengthColumns[Int.random(in: 0..<2, using: &generator)]
                groups.append(
                    .init(
                        // Groups as bits or as lists (a narrow answer's), each ordered its way.
                        bits: BitsetTests.bitset(members, capacity: limit, sparse: Bool.random(using: &generator)),
                        count: members.count,
                        lengths: lengths
                    )
                )
                expected += members.sorted { (lengths[Int($0)], $0) < (lengths[Int($1)], $1) }.map {
                    RecordHandle(slot: $0, generation: tag | generations[$0])
                }
            }
            let rows = ResultRows(
                ranked: RankedRowGroups(
                    groups,
                    generations: round % 2 == 1 ? generations : nil,
                    tag: tag,
                    membersPerThread: [1, 7, 1 << 20][round % 3]
                )
            )
            #expect(rows.isDeferred && rows.findsRowNumbers)
            #expect(rows.count == expected.count)
            let listFirst = round % 4 == 2
            if listFirst { #expect(rows.handles == expected) }
            for number in expected.indices.shuffled(using: &generator) {
                #expect(rows.handle(at: number) == expected[number], "round \(round) row \(number)")
                #expect(rows.deferredRowNumber(of: expected[number]) == number, "round \(round) row \(number)")
            }
            for slot in remaining.prefix(20) {
                #expect(rows.deferredRowNumber(of: RecordHandle(slot: slot, generation: tag)) == nil)
            }
            if let first = expected.first {
                let stale = RecordHandle(slot: first.slot, generation: first.generation + 1)
                #expect(rows.deferredRowNumber(of: stale) == nil)
            }
            if !listFirst { #expect(rows.handles == expected) }
            #expect(rows.memoryFootprint > 0 || expected.isEmpty)
        }
    }

    /// A broad answer in original order keeps its rows as bitsets, and they read as the list an
    /// index that has counted generations (and so makes every handle) gives; so do ranked answers,
    /// whatever they keep.
    @Test func broadResultsKeepTheirRowsAsBitsetsAndReadAsTheList() throws {
        let words = ["alpha", "alpine", "beta", "gamma", "delta", "Ålborg", "álamo", "ALPACA"]
        var generator = SeededGenerator(seed: 5)
        let records = (0..<3_000).map { number in
            Record(
                id: "r\(number)",
                fields: [
                    "name": (0..<2).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
                        .joined(separator: " "),
                    "summary": words[Int.random(in: 0..<words.count, using: &generator)],
                ]
            )
        }
        let configuration = IndexConfiguration(searchFields: ["name", "summary"], collation: Collation(locale: "en"))
        let index = try SearchIndex(configuration: configuration, records: records)
        // The same records where a slot was given to a new record: every handle is made at once.
        let counted = try SearchIndex(configuration: configuration, records: records)
        // Sorted answers of thousands kept as positions, as those of millions are.
        (index.knobs.orderSubsetMinimumRows, counted.knobs.orderSubsetMinimumRows) = (0, 0)
        let last = try #require(counted.handle(forID: "r2999"))
        let lastRecord = try counted.record(last)
        try counted.remove(last)
        _ = try counted.insert(lastRecord)
        for order in [ResultOrder.original, .sorted, .ranked] {
            for text in ["", "a", "al", "alp", "ga"] {
                let query = Query(text, mode: .contains, order: order)
                let result = try index.search(query)
                let expected = try counted.search(query)
                // Ranked groups are put in order where they are read, and sorted answers are kept
                // as positions in the sorted order, with generations or not.
                if order == .original { #expect(!expected.resultRows.isDeferred) }
                if result.rowCount >= 1_000 {
                    #expect(result.resultRows.isDeferred, "\(order) '\(text)'")
                    if order != .original, !text.isEmpty {
                        #expect(expected.resultRows.isDeferred, "\(order) '\(text)'")
                    }
                }
                #expect(result.rowCount == expected.rows.count)
                let ids = try result.rows(numbered: 0..<result.rowCount).map { try index.id(of: $0) }
                #expect(try ids == expected.rows.map { try counted.id(of: $0) }, "\(order) '\(text)'")

                // A results table over them answers a table view's questions row by row.
                let table = RecordTable(
                    rows: result.resultRows,
                    layout: TableLayout(order: order, isSectioned: false),
                    sectionTitles: index.sectionTitles,
                    source: index.tableRowSource(withSections: false),
                    groupedBySection: true
                )
                #expect(table.rowCount == result.rowCount)
                for number in stride(from: 0, to: table.rowCount, by: 7) {
                    let path = TableIndexPath(section: 0, row: number)
                    #expect(try table[path].id == index.id(of: result.rows[number]))
                    #expect(table.indexPath(of: result.rows[number]) == path)
                }
            }
        }
    }

    /// An original order that moves put in blocks keeps a broad answer as its positions in that
    /// order, and it reads, row by row and as a list, as a fresh build of the records in that
    /// order answers.
    @Test func broadAnswersInAMovedOrderReadAsTheList() throws {
        let words = ["alpha", "beta", "gamma", "Ålborg", "álamo"]
        var records = (0..<2_000).map { number in
            Record(id: "r\(number)", fields: ["name": "\(words[number % 5]) \(words[(number / 5) % 5])"])
        }
        let configuration = IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "en"))
        let index = try SearchIndex(configuration: configuration, records: records)
        index.knobs.orderSubsetMinimumRows = 0
        try index.move(from: 1_999, to: 3)
        records.insert(records.removeLast(), at: 3)
        try index.move(from: 10, to: 1_500)
        records.insert(records.remove(at: 10), at: 1_500)
        let fresh = try SearchIndex(configuration: configuration, records: records)
        for text in ["a", "al", "ga", "beta"] {
            let query = Query(text, mode: .contains)
            let result = try index.search(query)
            let expected = try fresh.search(query).rows.map { try fresh.id(of: $0) }
            if result.rowCount >= 250 { #expect(result.resultRows.isDeferred, "'\(text)'") }
            let read = try result.rows(numbered: 0..<result.rowCount).map { try index.id(of: $0) }
            #expect(read == expected, "'\(text)'")
            #expect(try result.rows.map { try index.id(of: $0) } == expected, "'\(text)'")
        }
    }

    /// An original table reads the index's order in place, sorted or not, and keeps doing so
    /// through edits that give no slot to a new record; its rows stay those of a fresh build.
    @Test(arguments: [TableLayout(order: .sorted, isSectioned: true), TableLayout(order: .original)])
    func originalTablesShareTheIndexOrderThroughEdits(_ layout: TableLayout) async throws {
        let names = ["Zürich", "Ávila", "Bern", "Ñandú", "Oslo", "Lyon", "Évora", "Quito", "Lima", "Rome"]
        var records = (0..<200).map { Record(id: "r\($0)", fields: ["name": "\(names[$0 % 10]) \($0)"]) }
        let configuration = IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es"))
        let controller = try SearchController(
            configuration: configuration,
            records: records,
            options: .init(originalTable: layout)
        )
        func expectFreshBuild(_ step: String) async throws {
            let original = await controller.currentUpdate.tables.original
            #expect(original.records.isIndexOrder, "\(step)")
            let fresh = try SearchIndex(configuration: configuration, records: records)
            let expected = try fresh.handles(in: layout.order).map { try fresh.id(of: $0) }
            #expect(original.rows(numbered: 0..<original.rowCount).map(\.id) == expected, "\(step)")
        }
        try await expectFreshBuild("start")
        try await controller.update(Record(id: "r7", fields: ["name": "Aachen"]))
        records[7] = Record(id: "r7", fields: ["name": "Aachen"])
        try await expectFreshBuild("update")
        try await controller.insert(Record(id: "new", fields: ["name": "Madrid"]))
        records.append(Record(id: "new", fields: ["name": "Madrid"]))
        try await expectFreshBuild("insert")
        try await controller.deleteRecord(id: "r3")
        records.remove(at: 3)
        try await expectFreshBuild("delete")
    }
}
