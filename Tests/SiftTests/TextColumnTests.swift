import SiftStorage
import Testing

@testable import Sift

@Suite("Text columns (grouped, length-prefixed values)")
struct TextColumnTests {
    /// A random value: mostly short, some empty, some past the one-byte prefix (127+ bytes), some
    /// with multi-byte characters.
    static func randomValue(_ generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<20, using: &generator) {
        case 0..<3: return ""
        case 3: return String(repeating: "ü", count: Int.random(in: 60...200, using: &generator))
        case 4: return String(repeating: "x", count: Int.random(in: 120...140, using: &generator))
        default:
            let letters = Array("abcdefghijßéñ東")
            return String(
                (0..<Int.random(in: 1...30, using: &generator)).map { _ in letters.randomElement(using: &generator)! }
            )
        }
    }

    static func expectEqual(_ column: TextColumn, _ model: [Int: String], slots: Int) {
        for slot in 0..<slots {
            let expected = model[slot] ?? ""
            #expect(column.string(Int32(slot)) == expected, "slot \(slot)")
            #expect(column.equals(Int32(slot), expected))
            #expect(column.withUTF8(Int32(slot)) { Array($0) } == Array(expected.utf8))
        }
    }

    @Test func randomEditsReadBackLikeADictionary() {
        var generator = SeededGenerator(seed: 3)
        var column = TextColumn()
        var model: [Int: String] = [:]
        // Appends (the bulk path), then sparse slots, then edits anywhere (in place and copies).
        for slot in 0..<300 {
            let value = Self.randomValue(&generator)
            column.set(Int32(slot), value)
            model[slot] = value
        }
        for slot in [310, 311, 330, 401, 402, 403, 500] {
            let value = Self.randomValue(&generator)
            column.set(Int32(slot), value)
            model[slot] = value
        }
        Self.expectEqual(column, model, slots: 520)
        for _ in 0..<8_000 {
            let slot = Int.random(in: 0..<560, using: &generator)
            let value = Self.randomValue(&generator)
            column.set(Int32(slot), value)
            model[slot] = value
        }
        Self.expectEqual(column, model, slots: 600)
        // Compaction ran: dead bytes never outweigh the live ones by much.
        let live = model.values.reduce(0) { $0 + $1.utf8.count + 6 } + 600
        #expect(column.bytes.count <= 2 * live + 65_536)
    }

    /// A rebuild copies the values a piece at a time while sets go on, before and after its
    /// cursor and past the last slot (a last group copied before its later slots existed); every
    /// value reads back at every step, and the copy takes the column's place without dead bytes.
    @Test func rebuildsCopyWhileSetsGoOn() {
        var generator = SeededGenerator(seed: 8)
        var column = TextColumn()
        var model: [Int: String] = [:]
        for slot in 0..<203 {
            let value = Self.randomValue(&generator)
            column.set(Int32(slot), value)
            model[slot] = value
        }
        for _ in 0..<6 {
            column.startRebuild()
            #expect(column.isRebuilding)
            var finished = false
            while !finished {
                for _ in 0..<3 {
                    let slot = Int.random(in: 0..<(column.slotCount + 3), using: &generator)
                    let value = Self.randomValue(&generator)
                    column.set(Int32(slot), value)
                    model[slot] = value
                }
                finished = column.continueRebuild(budget: 40)
                Self.expectEqual(column, model, slots: column.slotCount + 2)
            }
            #expect(!column.isRebuilding)
        }
    }

    @Test func clearingTheLastValuesGivesTheirBytesBack() {
        var column = TextColumn()
        for slot in 0..<16 { column.set(Int32(slot), "value \(slot)") }
        let full = column.bytes.count
        column.set(15, "")
        #expect(column.bytes.count == full - "value 15".utf8.count)
        #expect(column.string(15) == "" && column.string(14) == "value 14")
        // An update (clear, then set again) in a group that does not end `bytes` stays in place:
        // the value grows back into the slack the clear left.
        column.set(3, "")
        column.set(3, "value 3 again")  // 6 bytes longer: copied to the end, with no slack
        column.set(9, "value 9, longer")  // the other group moves to the end
        let size = column.bytes.count
        for round in 0..<100 {
            column.set(3, "")
            column.set(3, round % 2 == 0 ? "short" : "value 3 again")
            column.set(5, "")
            column.set(5, round % 2 == 0 ? "value 5" : "v5")
        }
        #expect(column.bytes.count == size)
        #expect(
            column.string(3) == "value 3 again" && column.string(5) == "v5" && column.string(4) == "value 4"
                && column.string(9) == "value 9, longer"
        )
        // Setting "" past the end stores nothing.
        column.set(100, "")
        #expect(column.slotCount == 16)
        #expect(column.string(100) == "" && column.string(-1) == "")
    }

    @Test func aRenumberedColumnLoadsBack() throws {
        var generator = SeededGenerator(seed: 5)
        var column = TextColumn()
        var model: [Int: String] = [:]
        for _ in 0..<3000 {
            let slot = Int.random(in: 0..<200, using: &generator)
            let value = Self.randomValue(&generator)
            column.set(Int32(slot), value)
            model[slot] = value
        }
        let order = (0..<210).map { Int32($0) }.shuffled(using: &generator)
        let renumbered = column.renumbered(order)
        let loaded = try TextColumn(bytes: renumbered.bytes, slotCount: order.count)
        for (i, slot) in order.enumerated() { #expect(loaded.string(Int32(i)) == model[Int(slot)] ?? "") }
        #expect(loaded.slotCount == order.count)
    }

    @Test func damagedBytesAreRejected() throws {
        var column = TextColumn()
        for (slot, value) in ["a", "", String(repeating: "é", count: 100), "zz"].enumerated() {
            column.set(Int32(slot), value)
        }
        let bytes = column.bytes
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: bytes, slotCount: 5) }  // too few bytes
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: bytes, slotCount: 3) }  // bytes left over
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: bytes, slotCount: -1) }
        var cut = bytes
        cut[0] = 9  // the first value runs into the others
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: cut, slotCount: 4) }
        var badPrefix = bytes
        badPrefix[2] = 0x80  // not a prefix
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: badPrefix, slotCount: 4) }
        var longPrefix = bytes
        longPrefix[4] = 0xFF  // a long prefix digit must be seven bits
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: longPrefix, slotCount: 4) }
        var notUTF8 = bytes
        notUTF8[notUTF8.count - 1] = 0xC3
        #expect(throws: SnapshotFormatError.self) { try TextColumn(bytes: notUTF8, slotCount: 4) }
        #expect(try TextColumn(bytes: bytes, slotCount: 4).string(2) == String(repeating: "é", count: 100))
        #expect(try TextColumn(bytes: [], slotCount: 0).slotCount == 0)
    }

    @Test func theByteLimitIsCheckedBeforehandAndCompactionMakesRoom() {
        var column = TextColumn()
        column.byteLimit = 1000
        for slot in 0..<20 { column.set(Int32(slot), String(repeating: "a", count: 20)) }
        #expect(column.bytes.count == 20 * 21)
        #expect(!column.canStore(600, at: 20))
        #expect(column.canStore(400, at: 20))
        // Rewrites that copy groups leave dead bytes; near the limit, `set` compacts instead of failing.
        for round in 0..<50 {
            for slot in 0..<20 {
                let value = String(repeating: "b", count: 20 + (round + slot) % 7)
                #expect(column.canStore(value.utf8.count, at: Int32(slot)))
                column.set(Int32(slot), value)
                #expect(column.string(Int32(slot)) == value)
                #expect(column.bytes.count <= 1000)
            }
        }
    }

    @Test func anIndexRefusesARecordWhoseTextDoesNotFit() throws {
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]))
        index.records.ids.byteLimit = 400
        var inserted = 0
        var failure: SiftError? = nil
        for i in 0..<1000 {
            do throws(SiftError) {
                try index.insert(Record(id: "record-\(i)", fields: ["name": "name \(i)"]))
                inserted += 1
            } catch {
                failure = error
                break
            }
        }
        #expect(failure == .capacityExceeded("ids take 4 GiB"))
        #expect(inserted > 20 && index.count == inserted)
        #expect(try index.ids(index.search(Query("name"))).count == inserted)
        // Removing records makes room again.
        for i in 0..<15 { try index.remove(id: "record-\(i)") }
        try index.insert(Record(id: "again", fields: ["name": "again"]))
        #expect(index.handle(forID: "again") != nil && index.handle(forID: "record-15") != nil)
    }
}
