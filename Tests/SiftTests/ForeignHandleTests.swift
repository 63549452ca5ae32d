import Testing

@testable import Sift

/// A handle carries a tag of the index that made it: another index refuses it with
/// `SiftError.foreignHandle` instead of answering with its own record in the same slot.
@Suite("Handles from another index")
struct ForeignHandleTests {
    static func index(_ names: [String]) throws -> SearchIndex {
        try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: names.enumerated().map { Record(id: "\($0.offset)", fields: ["name": $0.element]) }
        )
    }

    @Test func everyWayToUseAHandleRefusesAnotherIndexs() throws {
        let a = try Self.index(["Paris", "Lyon"])
        let b = try Self.index(["Berlin", "Hamburg"])
        var handles = [try #require(a.handle(forID: "0")), try a.handle(at: 1)]
        handles += try a.search(Query("o")).rows  // the fast path of results (every generation 0)
        handles += a.handles(in: .sorted)
        for handle in handles {
            #expect(throws: SiftError.foreignHandle) { try b.record(handle) }
            #expect(throws: SiftError.foreignHandle) { try b.id(of: handle) }
            #expect(throws: SiftError.foreignHandle) { try b.value(of: "name", for: handle) }
            #expect(throws: SiftError.foreignHandle) { try b.position(of: handle) }
            #expect(throws: SiftError.foreignHandle) { try b.highlights(of: handle, for: Query("r")) }
            #expect(throws: SiftError.foreignHandle) { try b.remove(handle) }
            _ = try a.record(handle)  // its own index takes it
        }
        #expect(b.count == 2)
    }

    @Test func afterSlotsAreReusedResultsStillCarryTheirIndexTag() throws {
        let a = try Self.index(["Oslo", "Lyon", "Nice"])
        let b = try Self.index(["Berlin", "Hamburg", "Köln"])
        for index in [a, b] {
            try index.remove(id: "1")
            try index.insert(Record(id: "new", fields: ["name": "Orléans"]))  // reuses slot 1: generations exist
        }
        let rows = try a.search(Query("o")).rows
        #expect(try rows.map { try a.id(of: $0) } == ["0", "new"])
        for handle in rows { #expect(throws: SiftError.foreignHandle) { try b.record(handle) } }
        #expect(throws: SiftError.staleHandle) { try a.record(RecordHandle(slot: 1, generation: rows[0].generation)) }
    }

    @Test func aLoadedSnapshotIsAnotherIndex() throws {
        let a = try Self.index(["Paris", "Lyon"])
        let path = SnapshotTests.temporaryPath("foreign.siftidx")
        try a.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        let handle = try #require(a.handle(forID: "0"))
        #expect(throws: SiftError.foreignHandle) { try loaded.record(handle) }
        #expect(try loaded.record(#require(loaded.handle(forID: "0"))) == a.record(handle))
    }
}
