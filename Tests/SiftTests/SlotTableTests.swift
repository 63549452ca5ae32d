import Foundation
import SiftStorage
import Testing

@testable import Sift

/// The per-slot tables: the id table (sized for its load, not a power of two) and the slot
/// generations (materialized on the first reuse of a slot).
@Suite("Slot tables: id table and generations")
struct SlotTableTests {
    // MARK: - IDTable

    /// Ids and a table over them, checked against a `Dictionary` after every change.
    private struct Model {
        var ids = TextColumn()
        var table = IDTable()
        var oracle: [String: Int32] = [:]
        var freeSlots: [Int32] = []
        var slotCount: Int32 = 0

        mutating func takeSlot(_ id: String) -> Int32 {
            var slot = slotCount
            if let free = freeSlots.popLast() { slot = free } else { slotCount += 1 }
            ids.set(slot, id)
            oracle[id] = slot
            return slot
        }

        mutating func insert(_ id: String) {
            table.insert(takeSlot(id), ids: ids)
        }

        /// The bulk path: `prepareToInsert`, then `insert(slots:hashes:)`.
        mutating func insertInBulk(_ newIDs: [String]) {
            table.prepareToInsert(newIDs.count, ids: ids)
            let slots = newIDs.map { takeSlot($0) }
            let hashes = newIDs.map { IDTable.hash($0) }
            slots.withUnsafeBufferPointer { slots in
                hashes.withUnsafeBufferPointer { table.insert(slots: slots, hashes: $0) }
            }
        }

        mutating func remove(_ id: String) {
            table.remove(id, ids: ids)
            let slot = oracle.removeValue(forKey: id)!
            ids.set(slot, "")
            freeSlots.append(slot)
        }

        func check(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(table.slot(of: id, ids: ids) == oracle[id], "\(id)", sourceLocation: sourceLocation)
        }

        func checkAll(_ universe: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(table.count == oracle.count, sourceLocation: sourceLocation)
            for id in universe where table.slot(of: id, ids: ids) != oracle[id] {
                Issue.record(
                    "\(id): \(String(describing: table.slot(of: id, ids: ids))), expected \(String(describing: oracle[id]))",
                    sourceLocation: sourceLocation
                )
                return
            }
            // Never fuller than the load limit (so probes always end at an empty bucket).
            #expect(table.count * 5 <= table.bucketCount * 4, sourceLocation: sourceLocation)
        }
    }

    /// Random inserts (one by one and in bulk), removals and lookups over a small universe of ids,
    /// so that ids come back after being removed and probe chains cross many tombstones.
    @Test(arguments: [1, 2, 3])
    func idTableAgreesWithADictionary(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let universe = (0..<4000).map { "id-\($0)-\(String(repeating: "x", count: $0 % 13))" }
        var model = Model()
        for step in 0..<60_000 {
            let id = universe.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                if model.oracle[id] == nil { model.insert(id) }
            case 4..<7:
                if model.oracle[id] != nil { model.remove(id) }
            case 7:
                if Int.random(in: 0..<50, using: &generator) == 0 {
                    var fresh = Set<String>()
                    for _ in 0..<Int.random(in: 1..<600, using: &generator) {
                        let candidate = universe.randomElement(using: &generator)!
                        if model.oracle[candidate] == nil { fresh.insert(candidate) }
                    }
                    model.insertInBulk(Array(fresh))
                } else {
                    model.check(id)
                }
            default:
                model.check(id)
            }
            if step % 5000 == 0 { model.checkAll(universe) }
        }
        model.checkAll(universe)
    }

    /// A bulk load leaves the table about 70% full (the old power-of-two table was 48% full at
    /// 100k ids: 1 MB); one-by-one inserts then fill it further and grow it, and lookups still
    /// find every id.
    @Test func bulkLoadsAreSizedForTheTargetLoadThenGrowOneByOne() throws {
        var model = Model()
        let n = 100_000
        let first = (0..<n).map { "record-\($0)" }
        for id in first { _ = model.takeSlot(id) }
        model.table = try #require(IDTable.bulk(count: n, ids: model.ids))
        #expect(model.table.count == n)
        #expect(model.table.bucketCount == IDTable.bucketCount(for: n))
        #expect(Double(n) / Double(model.table.bucketCount) > 0.69)
        #expect(model.table.memoryFootprint < 5 * n * 10 / 7 + 4096)  // about 714 KB (slots and tags), was 1,049 KB
        model.checkAll(first.prefix(2000) + ["record-\(n)", "nope"])

        // One by one past the load limit: the table grows by half, and keeps every id.
        let more = (n..<(2 * n)).map { "record-\($0)" }
        var sizes = [model.table.bucketCount]
        for id in more {
            model.insert(id)
            if model.table.bucketCount != sizes.last { sizes.append(model.table.bucketCount) }
        }
        #expect(sizes.count == 3)  // 80% of 142,858 then of 214,287 buckets passed
        for (a, b) in zip(sizes, sizes.dropFirst()) { #expect(b == a + a / 2) }
        model.checkAll(first + more + ["record-\(2 * n)"])

        // A bulk insert on top sizes the table for the target load at its end.
        let bulk = ((2 * n)..<(5 * n)).map { "record-\($0)" }
        model.insertInBulk(bulk)
        #expect(model.table.bucketCount == IDTable.bucketCount(for: 5 * n))
        model.checkAll(first + more + bulk + ["record-\(5 * n)"])
    }

    @Test func snapshotBulkLoadFindsDuplicates() {
        var ids = TextColumn()
        for (slot, id) in ["a", "b", "c", "b", "d"].enumerated() { ids.set(Int32(slot), id) }
        #expect(IDTable.bulk(count: 5, ids: ids) == nil)
        #expect(IDTable.bulk(count: 3, ids: ids)?.count == 3)
        #expect(IDTable.bulk(count: 0, ids: TextColumn())?.count == 0)
    }

    /// Growth is geometric: a million one-by-one inserts rebuild the table a few dozen times,
    /// not once per few inserts.
    @Test func oneByOneInsertsGrowGeometrically() {
        var model = Model()
        var rebuilds = 0
        var size = model.table.bucketCount
        for i in 0..<200_000 {
            model.insert("k\(i)")
            if model.table.bucketCount != size {
                rebuilds += 1
                size = model.table.bucketCount
            }
        }
        #expect(rebuilds <= 30)  // 16 → 200,000 / 0.8 by halves: 24
        #expect(Double(model.table.count) / Double(model.table.bucketCount) >= 0.5)
    }

    /// Removals leave tombstones: lookups probe past them, inserts reuse them, and a steady
    /// stream of removals and inserts at a constant count purges them without growing the table.
    @Test func tombstonesKeepChainsAndArePurgedWithoutGrowth() {
        var model = Model()
        let live = 3000
        for i in 0..<live { model.insert("t\(i)") }
        let settled = model.table.bucketCount
        var next = live
        var generator = SeededGenerator(seed: 9)
        for round in 0..<60_000 {
            let victim = model.oracle.keys.randomElement(using: &generator)!
            model.remove(victim)
            model.check(victim)
            model.insert("t\(next)")
            next += 1
            if round % 10_000 == 0 { model.checkAll((0..<next).map { "t\($0)" }) }
        }
        model.checkAll((0..<next).map { "t\($0)" })
        #expect(model.table.bucketCount <= max(settled, IDTable.bucketCount(for: live + 1)))
        // Remove all but a few: the survivors are still found across the tombstones.
        for id in Array(model.oracle.keys).dropFirst(5) { model.remove(id) }
        model.checkAll((0..<next).map { "t\($0)" })
    }

    /// The id repeats check (its own small tables) is unchanged by the table's sizing.
    @Test func firstRepeatFindsTheFirstRepeatedID() {
        let ids = (0..<50_000).map { "r\($0)" } + ["r17", "r3", "r17"]
        let hashes = ids.map { IDTable.hash($0) }
        let found = hashes.withUnsafeBufferPointer { IDTable.firstRepeat(hashes: $0) { ids[$0] == ids[$1] } }
        #expect(found == 50_000)
        let distinct = Array(hashes.prefix(50_000))
        #expect(distinct.withUnsafeBufferPointer { IDTable.firstRepeat(hashes: $0) { ids[$0] == ids[$1] } } == nil)
    }

    /// An index's bulk insert leaves its id table about 70% full.
    @Test func anIndexBulkLoadLeavesTheIDTableSevenTenthsFull() throws {
        let index = try Self.index((0..<100_000).map { "id\($0)" })
        #expect(index.records.slotOfID.bucketCount == IDTable.bucketCount(for: 100_000))
        #expect(index.records.slotOfID.memoryFootprint < 750_000)  // five bytes a bucket
        for i in stride(from: 0, to: 100_000, by: 997) {
            #expect(try index.id(of: #require(index.handle(forID: "id\(i)"))) == "id\(i)")
        }
        #expect(index.handle(forID: "id100000") == nil)
    }

    // MARK: - Generations

    static func index(_ ids: [String]) throws -> SearchIndex {
        try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: ids.map { Record(id: $0, fields: ["name": "name \($0)"]) }
        )
    }

    /// Remove then reuse, before the generations exist and after: the old handle is rejected by
    /// every call that takes one, and the new one works.
    @Test func staleHandlesAreRejectedBeforeAndAfterMaterialization() throws {
        let index = try Self.index(["a", "b", "c", "d"])
        #expect(!index.records.generations.isMaterialized)
        let before = index.memoryUsage.slotTables

        let b = try #require(index.handle(forID: "b"))
        try index.remove(b)
        #expect(throws: SiftError.staleHandle) { try index.record(b) }  // freed, not yet reused
        #expect(!index.records.generations.isMaterialized)
        let e = try index.insert(Record(id: "e", fields: ["name": "name e"]))  // the first reuse
        #expect(e.slot == b.slot && e != b)
        #expect(index.records.generations.isMaterialized)
        #expect(index.memoryUsage.slotTables >= before + 4 * 4)
        try Self.expectStale(b, in: index)
        #expect(try index.id(of: e) == "e")

        // Materialized: a second reuse of the same slot, and a reuse of another one.
        try index.remove(e)
        let f = try index.insert(Record(id: "f", fields: ["name": "name f"]))
        #expect(f.slot == b.slot)
        try Self.expectStale(b, in: index)
        try Self.expectStale(e, in: index)
        let c = try #require(index.handle(forID: "c"))
        try index.update(Record(id: "c", fields: ["name": "name c2"]))  // in place: same slot, next generation
        let c2 = try #require(index.handle(forID: "c"))
        #expect(c2.slot == c.slot && c2 != c)
        try Self.expectStale(c, in: index)
        #expect(try index.value(of: "name", for: c2) == "name c2")
        // Query results carry the current generations.
        #expect(
            try index.search(Query("name")).rows.sorted()
                == ["a", "c", "d", "f"].map { index.handle(forID: $0)! }.sorted()
        )
    }

    /// Slots freed and reused by the bulk path (`insert(contentsOf:)` of 8,192 records or more).
    @Test func staleHandlesAreRejectedAfterABulkInsertReusesSlots() throws {
        let index = try Self.index((0..<9000).map { "old\($0)" })
        #expect(!index.records.generations.isMaterialized)
        let victims = try (0..<100).map { i in try #require(index.handle(forID: "old\(i * 7)")) }
        for victim in victims { try index.remove(victim) }
        try index.insert(contentsOf: (0..<9000).map { Record(id: "new\($0)", fields: ["name": "name new\($0)"]) })
        #expect(index.records.generations.isMaterialized)
        for victim in victims.prefix(3) { try Self.expectStale(victim, in: index) }
        #expect(victims.allSatisfy { (try? index.record($0)) == nil })
        let reused = Set(victims.map(\.slot))
        let newcomers = (0..<9000).compactMap { index.handle(forID: "new\($0)") }.filter { reused.contains($0.slot) }
        #expect(newcomers.count == 100)
        for handle in newcomers { #expect(try index.value(of: "name", for: handle) == "name " + index.id(of: handle)) }
        let results = try index.search(Query("new"))
        #expect(results.rows.count == 9000)
        #expect(Set(results.rows).isSuperset(of: newcomers))
    }

    /// A loaded snapshot numbers its records afresh, every generation 0 (nothing materialized,
    /// even when the saved index had reused slots); stale handles are then detected as in any
    /// index.
    @Test func staleHandlesAreRejectedAfterASnapshotLoad() throws {
        let index = try Self.index(["a", "b", "c", "d"])
        try index.remove(id: "a")
        try index.insert(Record(id: "e", fields: ["name": "name e"]))
        #expect(index.records.generations.isMaterialized)
        let path = SnapshotTests.temporaryPath("generations.siftidx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(!loaded.records.generations.isMaterialized)
        let handles = try ["b", "c", "d", "e"].map { try #require(loaded.handle(forID: $0)) }
        #expect(try handles.map { try loaded.id(of: $0) } == ["b", "c", "d", "e"])
        #expect(try loaded.search(Query("name")).rows == handles)

        try loaded.remove(handles[1])
        try Self.expectStale(handles[1], in: loaded)
        let f = try loaded.insert(Record(id: "f", fields: ["name": "name f"]))
        #expect(f.slot == handles[1].slot && f != handles[1])
        #expect(loaded.records.generations.isMaterialized)
        try Self.expectStale(handles[1], in: loaded)
        #expect(try loaded.id(of: f) == "f")
        #expect(try loaded.search(Query("name")).rows.sorted() == [handles[0], handles[2], handles[3], f].sorted())
    }

    private static func expectStale(
        _ handle: RecordHandle,
        in index: SearchIndex,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(throws: SiftError.staleHandle, sourceLocation: sourceLocation) { try index.record(handle) }
        #expect(throws: SiftError.staleHandle, sourceLocation: sourceLocation) { try index.id(of: handle) }
        #expect(throws: SiftError.staleHandle, sourceLocation: sourceLocation) { try index.position(of: handle) }
        #expect(throws: SiftError.staleHandle, sourceLocation: sourceLocation) { try index.remove(handle) }
    }
}
