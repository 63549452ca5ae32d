import SiftStorage
import Testing

@testable import Sift

/// A subscriber with the default buffering (`.all`) that reads slowly, or never, costs O(1)
/// updates: what it has not taken is merged into the newest update, whose change sets lead from
/// the tables it received last (issue 27).
@Suite("Controller: slow and idle subscribers", .timeLimit(.minutes(30)))
struct ControllerBufferingTests {
    let configuration = ControllerFixtures.indexConfiguration()

    func path(_ section: Int, _ row: Int) -> TableIndexPath { TableIndexPath(section: section, row: row) }

    /// Reads `stream` until it delivers the controller's current update; returns what it read.
    func read(
        _ iterator: inout AsyncStream<SearchUpdate>.Iterator,
        upTo controller: SearchController
    ) async throws -> [SearchUpdate] {
        let current = await controller.currentUpdate.sequence
        var received: [SearchUpdate] = []
        while received.last.map({ $0.sequence < current }) ?? true {
            received.append(try #require(await iterator.next()))
        }
        return received
    }

    /// A storm of edits and keystrokes under a subscriber that never reads: what its stream
    /// holds then retains no more than twice the table data of the controller's own current
    /// update. (Each update held whole kept the copy of the index's columns that the next edit
    /// made for it: here about 80 copies.)
    @Test func aSubscriberThatNeverReadsHoldsNoCopiesOfTheTables() async throws {
        let records = (0..<2_000).map { i in
            Record(id: "g\(i)", fields: ["name": "Place \(i)", "code": "P\(i % 97)", "continent": "EU"])
        }
        let controller = try SearchController(configuration: configuration, records: records)
        let idle = await controller.updates()
        for round in 0..<8 {
            for i in 0..<10 {
                let id = round * 10 + i
                try await controller.update(
                    Record(id: "g\(id)", fields: ["name": "Renamed \(id)", "code": "R", "continent": "EU"])
                )
            }
            _ = try await controller.settledUpdate(for: controller.setText(round % 2 == 0 ? "pla" : "ren"))
        }
        // Only now read what the idle subscriber holds (all of it, for the count).
        var iterator = idle.makeAsyncIterator()
        let held = try await read(&iterator, upTo: controller)
        let current = await controller.currentUpdate
        var retained = RetainedStorage()
        for update in held { retained.add(update.tables) }
        var own = RetainedStorage()
        own.add(current.tables)
        #expect(own.bytes > 0)
        #expect(
            retained.bytes <= 2 * own.bytes,
            "\(held.count) updates held retain \(retained.bytes) bytes; the current update \(own.bytes)"
        )
        #expect(held.count == 1 && held.last?.sequence == current.sequence)
    }

    /// A subscriber that falls behind receives the newest update, whose change sets turn the
    /// tables it received last into the newest; once it keeps up, it receives each update with its
    /// own change sets.
    @Test func aSubscriberThatFallsBehindGetsTheNewestUpdateWithChangesFromTheLastItReceived() async throws {
        let controller = try SearchController(configuration: configuration, records: ControllerFixtures.records)
        var reader = await controller.updates().makeAsyncIterator()
        let first = try #require(await reader.next())
        #expect(first.sequence == 0)
        _ = try await controller.settledUpdate(for: controller.setText("pa"))
        try await controller.update(Record(id: "c1", fields: ["name": "Paris Nord", "code": "PA", "continent": "EU"]))
        try await controller.deleteRecord(id: "c9")
        try await controller.insert(Record(id: "n1", fields: ["name": "Palermo", "code": "PA"]), atOriginalPosition: 3)
        _ = try await controller.settledUpdate(for: controller.setText("p"))
        try await controller.deleteRecord(id: "c13")

        let behind = try await read(&reader, upTo: controller)
        let current = await controller.currentUpdate
        #expect(behind.map(\.sequence) == [current.sequence])
        let merged = try #require(behind.last)
        #expect(merged.sequence > first.sequence + 1)
        #expect(merged.generation == current.generation && merged.reason == .edit)
        try expectConsistentHistory([first, merged], merged: true)
        #expect(!merged.originalChanges.isEmpty && !merged.resultsChanges.requiresReload)

        // Kept up: the next update comes alone, with its own change sets.
        try await controller.moveRecord(id: "c0", toOriginalPosition: 5)
        let next = try await read(&reader, upTo: controller)
        let published = await controller.currentUpdate
        #expect(next.map(\.sequence) == [merged.sequence + 1])
        #expect(next.first?.originalChanges == published.originalChanges)
        #expect(next.first?.originalChanges == TableChangeSet(movedRows: [.init(from: path(0, 0), to: path(0, 5))]))
        try expectConsistentHistory([merged] + next, merged: true)
    }

    /// Moves reorder rows that both tables keep, also rows the results table did not show when
    /// the record moved: a merged change set then compares the rows by position.
    @Test(arguments: [ResultOrder.original, .ranked])
    func movesMissedBySlowSubscribersReorderTheirRows(results: ResultOrder) async throws {
        let controller = try SearchController(
            configuration: configuration,
            records: ControllerFixtures.records,
            options: .init(resultsTable: TableLayout(order: results))
        )
        var reader = await controller.updates().makeAsyncIterator()
        _ = try await controller.settledUpdate(for: controller.setText("pa"))
        var last = try #require(try await read(&reader, upTo: controller).last)
        #expect(last.tables.results.rowCount == 6)

        // Pau to the front and São Paulo to the back while both tables show them.
        try await controller.moveRecord(id: "c10", toOriginalPosition: 0)
        try await controller.moveRecord(id: "c0", toOriginalPosition: 19)
        try await controller.update(Record(id: "c11", fields: ["name": "Oslo Sur", "code": "OS"]))
        var behind = try await read(&reader, upTo: controller)
        #expect(behind.count == 1)
        try expectConsistentHistory([last] + behind, merged: true)
        #expect(behind.last?.originalChanges.movedRows.isEmpty == false)
        last = try #require(behind.last)

        // Parma to the front while the results table shows no match, then "pa" again.
        _ = try await controller.settledUpdate(for: controller.setText("zzz"))
        try await controller.moveRecord(id: "c9", toOriginalPosition: 0)
        _ = try await controller.settledUpdate(for: controller.setText("pa"))
        behind = try await read(&reader, upTo: controller)
        #expect(behind.count == 1)
        try expectConsistentHistory([last] + behind, merged: true)
        #expect(behind.last?.tables.results.rows(numbered: 0..<1).first?.id == "c9")
    }

    /// After the index renumbers its slots, the handles of older tables name other records: a
    /// merged update across it reloads both tables.
    @Test func aMergedUpdateAcrossARenumberingReloads() async throws {
        let index = try SearchIndex(configuration: configuration, records: ControllerFixtures.records)
        index.knobs.minimumSlotsToRenumber = 2
        let controller = try SearchController(index: index)
        var reader = await controller.updates().makeAsyncIterator()
        _ = try await controller.settledUpdate(for: controller.setText("pa"))
        let last = try #require(try await read(&reader, upTo: controller).last)
        for i in 0..<12 { try await controller.deleteRecord(id: "c\(i)") }
        try await controller.insert(Record(id: "n1", fields: ["name": "Paraty", "code": "PA"]))
        let behind = try await read(&reader, upTo: controller)
        let merged = try #require(behind.last)
        #expect(behind.count == 1)
        #expect(merged.originalChanges.requiresReload && merged.resultsChanges.requiresReload)
        try expectConsistentHistory([last, merged], merged: true)
        #expect(merged.tables.results.rows(numbered: 0..<merged.tables.results.rowCount).map(\.id) == ["n1"])
    }

    /// A stream that is dropped, or whose reader is cancelled, is forgotten at the next update; a
    /// controller that goes away ends its streams after the update they hold.
    @Test func streamsEndWithTheirReaderOrTheController() async throws {
        let controller = try SearchController(configuration: configuration, records: ControllerFixtures.records)
        do { _ = await controller.updates() }
        let delivery = await controller.deliverUpdates(to: UpdateCollector()) { collector, update in
            collector.updates.append(update)
        }
        delivery.cancel()
        await delivery.value
        _ = try await controller.settledUpdate(for: controller.setText("pa"))
        #expect(await controller.subscribers.isEmpty)

        var alone: SearchController? = try SearchController(
            configuration: configuration,
            records: ControllerFixtures.records
        )
        var reader = await alone!.updates().makeAsyncIterator()
        alone = nil
        #expect(await reader.next()?.sequence == 0)
        #expect(await reader.next() == nil)
    }
}

/// The table data that a set of tables retains, counting each buffer once: the ids, titles and
/// sections of their row sources, and the handles of tables that hold them as a list.
struct RetainedStorage {
    private var seen: Set<UInt> = []
    private(set) var bytes = 0

    mutating func add(_ tables: SearchTables) {
        add(tables.original)
        add(tables.results)
    }

    mutating func add(_ table: RecordTable) {
        if case .snapshot(let source) = table.content {
            add(source.ids)
            add(source.titles)
            add(source.sections)
        }
        if !table.records.isDeferred { add(table.records.handles) }
    }

    mutating func add(_ column: TextColumn) {
        add(column.bytes)
        add(column.groupStarts)
        add(column.groupSlack)
    }

    mutating func add<Element>(_ array: [Element]) {
        let base = array.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
        guard let base, seen.insert(base).inserted else { return }
        bytes += array.capacity * MemoryLayout<Element>.stride
    }
}
