import Foundation
import SiftStorage
import Testing

@testable import Sift

/// `checkInvariants()` after every step of random edits (issue 31): inserts anywhere, updates
/// that grow and shrink values (so that columns rebuild), removals down to a few records (so that
/// slots renumber), moves, bulk inserts, a snapshot round trip, in two foldings with the sorted
/// order built. The checks trap on the first broken rule; a test process started with
/// `SIFT_INTERNAL_CHECKS=1` (as `.ci/run` runs the editing suites) also runs them inside every
/// edit of the other suites.
@Suite("Invariants after every edit")
struct InvariantTests {
    static let words = ["Straße", "strasse", "José", "jose", "niño", "Ærø", "日本語", "ไทย", "Zürich", "a", ""]

    static func record(_ id: Int, _ random: inout SeededGenerator) -> Record {
        let length = Int.random(in: 0...6, using: &random)
        let name = (0..<length).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
        let long = Int.random(in: 0..<10, using: &random) == 0 ? String(repeating: "long text ", count: 40) : ""
        return Record(id: "r\(id)", fields: ["name": name + long, "place": words.randomElement(using: &random)!])
    }

    /// `.ci/run` relies on the variable to check inside the other suites' edits: were it not read,
    /// its checked step would pass without checking anything.
    @Test func theEnvironmentSwitchesTheChecksOn() {
        #if SIFT_INTERNAL_CHECKS
        #expect(InternalChecks.afterEveryMutation)
        #else
        let requested = ProcessInfo.processInfo.environment["SIFT_INTERNAL_CHECKS"] == "1"
        #expect(InternalChecks.afterEveryMutation == requested)
        #endif
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomEditsKeepEveryPartConsistent(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "place"],
                scopes: [
                    Scope(name: "All"), Scope(name: "Danish", fields: ["name"], collation: Collation(locale: "da")),
                ]
            )
        )
        index.knobs.minimumSlotsToRenumber = 16
        index.knobs.rebuildStepBytes = 64
        var nextID = 0
        var ids: [String] = []
        index.checkInvariants()
        for step in 0..<600 {
            let choice = Int.random(in: 0..<100, using: &random)
            switch choice {
            case 0..<35:
                let record = Self.record(nextID, &random)
                nextID += 1
                _ = try index.insert(record, at: Int.random(in: 0...index.count, using: &random))
                ids.append(record.id)
            case 35..<60 where !ids.isEmpty:
                let id = ids.randomElement(using: &random)!
                var record = Self.record(0, &random)
                record = Record(id: id, fields: record.fields)
                _ = try index.update(record)
            case 60..<80 where !ids.isEmpty:
                let at = Int.random(in: 0..<ids.count, using: &random)
                try index.remove(id: ids.remove(at: at))
            case 80..<90 where index.count > 1:
                try index.move(
                    from: Int.random(in: 0..<index.count, using: &random),
                    to: Int.random(in: 0..<index.count, using: &random)
                )
            case 90..<93:
                let records = (0..<Int.random(in: 1...40, using: &random)).map { _ in
                    defer { nextID += 1 }
                    return Self.record(nextID, &random)
                }
                try index.insert(contentsOf: records)
                ids += records.map(\.id)
            case 93..<95 where ids.count > 20:
                // Most records go at once: the next edit renumbers the slots.
                for id in ids.dropFirst(4) { try index.remove(id: id) }
                ids = Array(ids.prefix(4))
            default:
                _ = index.handles(in: .sorted)  // builds (or reads) the sorted order
                _ = try index.search(Query("s", scope: step % 2 == 0 ? "All" : "Danish"))
            }
            index.checkInvariants()
            #expect(index.count == ids.count)
        }
        let path = SnapshotTests.temporaryPath("invariants.sift")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        loaded.checkInvariants()
        #expect(Set(loaded.handles().map { try! loaded.id(of: $0) }) == Set(ids))
    }

    /// The storage structures' own checks on their edge cases.
    @Test func storageStructuresCheckThemselves() {
        var map = SlotMap()
        for key in Int32(0)..<200 { map.set(key * 7, to: key) }
        for key in stride(from: Int32(0), to: 200, by: 3) { map.remove(key * 7) }
        map.checkInvariants()

        var bits = RankedBitset()
        for slot in stride(from: Int32(0), to: 5_000, by: 7) { bits.insert(slot) }
        for slot in stride(from: Int32(0), to: 5_000, by: 21) { bits.remove(slot) }
        bits.checkInvariants()

        var sequence = SlotSequence(0..<3_000)
        sequence.checkInvariants()
        sequence.insert(3_000, at: 17)  // out of ascending order: blocks
        for slot in Int32(3_001)..<Int32(5_000) { sequence.insert(slot, at: Int(slot) % sequence.count) }
        sequence.checkInvariants()

        var column = TextColumn()
        for slot in Int32(0)..<300 { column.set(slot, String(repeating: "x", count: Int(slot) % 150)) }
        for slot in stride(from: Int32(0), to: 300, by: 2) { column.set(slot, "") }
        column.checkInvariants()

        Bitset(sparse: [1, 5, 9], capacity: 64).checkInvariants()
    }
}
