import SiftStorage
import Testing

@testable import Sift

/// `SlotSequence` against a plain array of slots: random inserts, appends and removes, with
/// subscripts, positions, membership and `members(of:)` checked along the way, while the
/// sequence stays ascending (implicit) and after it has gone to blocks.
@Suite("Slot sequences (ascending bitset and blocks) against an array")
struct SlotSequenceTests {
    /// A sequence, the array it must equal, and the slots that may come back.
    struct Model {
        var sequence: SlotSequence
        var oracle: [Int32]
        /// Slots below `next` that are not in the sequence.
        var free: [Int32] = []
        /// The next never-used slot.
        var next: Int32

        init(_ slots: [Int32], labelLimit: UInt64 = SlotSequence.absent) {
            sequence = SlotSequence(slots, labelLimit: labelLimit)
            oracle = slots
            next = (slots.max() ?? -1) + 1
            let members = Set(slots)
            free = (0..<next).filter { !members.contains($0) }
        }

        /// Where ascending order puts `slot` (the oracle being ascending).
        func ascendingPosition(of slot: Int32) -> Int { oracle.firstIndex { $0 > slot } ?? oracle.count }

        /// A new slot, sometimes past a gap of empty 512-slot blocks.
        mutating func newSlot(_ generator: inout SeededGenerator) -> Int32 {
            let gap =
                Int.random(in: 0..<100, using: &generator) == 0 ? Int32.random(in: 1...2000, using: &generator) : 0
            free.append(contentsOf: next..<(next + gap))
            let slot = next + gap
            next = slot + 1
            return slot
        }

        mutating func takeFree(_ generator: inout SeededGenerator) -> Int32? {
            guard !free.isEmpty else { return nil }
            return free.remove(at: Int.random(in: free.indices, using: &generator))
        }

        mutating func insert(_ slot: Int32, at position: Int) {
            sequence.insert(slot, at: position)
            oracle.insert(slot, at: position)
        }

        /// One random edit; with `keepingAscending`, only edits that keep the slots ascending.
        mutating func edit(_ generator: inout SeededGenerator, keepingAscending: Bool) {
            switch Int.random(in: 0..<(keepingAscending ? 5 : 8), using: &generator) {
            case 0, 1:  // append a new slot
                insert(newSlot(&generator), at: oracle.count)
            case 2:  // a freed slot comes back where ascending order puts it
                if let slot = takeFree(&generator) {
                    insert(
                        slot,
                        at: keepingAscending
                            ? ascendingPosition(of: slot) : Int.random(in: 0...oracle.count, using: &generator)
                    )
                }
            case 3:  // remove at a position
                guard !oracle.isEmpty else { return }
                let position = Int.random(in: oracle.indices, using: &generator)
                let removed = sequence.remove(at: position)
                #expect(removed == oracle.remove(at: position))
                free.append(removed)
            case 4:  // remove a slot
                guard !oracle.isEmpty else { return }
                let slot = oracle.remove(at: Int.random(in: oracle.indices, using: &generator))
                sequence.remove(slot)
                free.append(slot)
            case 5:  // a new or freed slot anywhere
                let slot =
                    Bool.random(using: &generator) ? newSlot(&generator) : (takeFree(&generator) ?? newSlot(&generator))
                insert(slot, at: Int.random(in: 0...oracle.count, using: &generator))
            case 6:  // move
                guard oracle.count > 1 else { return }
                let source = Int.random(in: oracle.indices, using: &generator)
                let slot = sequence.remove(at: source)
                #expect(slot == oracle.remove(at: source))
                insert(slot, at: Int.random(in: 0...oracle.count, using: &generator))
            default:  // remove the last, then append a new slot
                guard let last = oracle.popLast() else { return }
                #expect(sequence.remove(at: oracle.count) == last)
                free.append(last)
                insert(newSlot(&generator), at: oracle.count)
            }
        }

        /// Cheap checks: the count, one subscript, one position, membership of a member and of
        /// a non-member.
        func spotCheck(_ generator: inout SeededGenerator) {
            #expect(sequence.count == oracle.count)
            if let position = oracle.indices.randomElement(using: &generator) {
                #expect(sequence[position] == oracle[position], "slot at \(position)")
                #expect(sequence.position(of: oracle[position]) == position, "position of \(oracle[position])")
                #expect(sequence.contains(oracle[position]))
            }
            if let slot = free.randomElement(using: &generator) { #expect(!sequence.contains(slot), "freed \(slot)") }
            #expect(!sequence.contains(next + Int32.random(in: 0...5000, using: &generator)))
        }

        /// Every slot, position and membership, and `members(of:)` for sparse and dense bitsets
        /// (with slots outside the sequence too).
        func fullCheck(_ generator: inout SeededGenerator) {
            #expect(sequence.count == oracle.count)
            #expect(sequence.array == oracle)
            for (position, slot) in oracle.enumerated()
            where sequence[position] != slot || sequence.position(of: slot) != position {
                Issue.record("position \(position): slot \(sequence[position]), expected \(slot)")
                break
            }
            #expect(free.allSatisfy { !sequence.contains($0) })
            #expect(oracle.allSatisfy { sequence.contains($0) })
            for density in [2, 40, 2000] {
                var bits = Bitset(capacity: Int(next) + 64)
                for slot in 0..<(next + 64) where Int.random(in: 0..<density, using: &generator) == 0 {
                    bits.insert(slot)
                }
                #expect(
                    sequence.members(of: bits, count: bits.count) == oracle.filter { bits.contains($0) },
                    "density 1/\(density)"
                )
            }
        }
    }

    /// Runs `operations` random edits, spot-checking after each and checking everything every
    /// 50 (every 250 unless `SIFT_FULL_TESTS=1`); with `keepingAscending`, also expects the
    /// sequence to stay ascending throughout.
    static func run(_ model: inout Model, operations: Int, keepingAscending: Bool, _ generator: inout SeededGenerator) {
        for operation in 1...operations {
            model.edit(&generator, keepingAscending: keepingAscending)
            model.spotCheck(&generator)
            if keepingAscending && !model.sequence.isAscending {
                Issue.record("went to blocks at operation \(operation)")
                return
            }
            if operation % TestScale.size(full: 50, default: 250) == 0 { model.fullCheck(&generator) }
        }
        model.fullCheck(&generator)
    }

    @Test func staysAscendingThroughAppendsReinsertsAndDeletes() {
        var generator = SeededGenerator(seed: 11)
        var model = Model([])
        Self.run(&model, operations: 6000, keepingAscending: true, &generator)
        #expect(model.sequence.isAscending)
        #expect(model.oracle.count > 1000)
        // Empty it, then fill it again.
        while let slot = model.oracle.popLast() {
            model.sequence.remove(slot)
            model.free.append(slot)
        }
        model.fullCheck(&generator)
        Self.run(&model, operations: 1000, keepingAscending: true, &generator)
        #expect(model.sequence.isAscending)
    }

    @Test func anOutOfOrderInsertConvertsToBlocks() {
        var generator = SeededGenerator(seed: 12)
        var model = Model(Array(0..<3000).filter { $0 % 7 != 3 }.map { Int32($0) })
        #expect(model.sequence.isAscending)
        Self.run(&model, operations: 2000, keepingAscending: true, &generator)
        // A new slot before the end: not where ascending order puts it.
        let slot = model.newSlot(&generator)
        model.insert(slot, at: model.oracle.count / 2)
        #expect(!model.sequence.isAscending)
        model.fullCheck(&generator)
        Self.run(&model, operations: 4000, keepingAscending: false, &generator)
        #expect(!model.sequence.isAscending)
    }

    /// Order labels in a label space small enough to run out: inserts at one interior point,
    /// at the front and before the last entry halve the gaps until a block, and then the whole
    /// sequence, is labeled again; positions, blocks and `members(of:)` order must survive it.
    @Test func labelsThatRunOutAreSpreadAgain() {
        var generator = SeededGenerator(seed: 15)
        var model = Model((0..<3000).map { Int32($0) }.reversed(), labelLimit: 1 << 20)
        #expect(!model.sequence.isAscending)
        for round in 0..<3 {
            for _ in 0..<200 { model.insert(model.newSlot(&generator), at: 1) }
            for _ in 0..<200 { model.insert(model.newSlot(&generator), at: 0) }
            for _ in 0..<200 { model.insert(model.newSlot(&generator), at: model.oracle.count - 1) }
            for _ in 0..<200 { model.insert(model.newSlot(&generator), at: model.oracle.count / 3) }
            model.fullCheck(&generator)
            // Appends until the space past the last label runs out.
            for _ in 0..<(round == 1 ? 4000 : 300) { model.insert(model.newSlot(&generator), at: model.oracle.count) }
            model.fullCheck(&generator)
            Self.run(&model, operations: 500, keepingAscending: false, &generator)
        }
    }

    @Test func aFreedSlotInsertedElsewhereConvertsToBlocks() {
        var generator = SeededGenerator(seed: 13)
        var model = Model(Array(0..<2000).map { Int32($0) })
        let slot = model.sequence.remove(at: 700)
        model.oracle.remove(at: 700)
        #expect(model.sequence.isAscending)
        model.insert(slot, at: 701)
        #expect(!model.sequence.isAscending)
        model.fullCheck(&generator)
        // An append of a slot below the last is out of order too.
        var appended = Model(Array(0..<2000).map { Int32($0) })
        let removed = appended.sequence.remove(at: 10)
        appended.oracle.remove(at: 10)
        appended.insert(removed, at: appended.oracle.count)
        #expect(!appended.sequence.isAscending)
        appended.fullCheck(&generator)
        Self.run(&appended, operations: 1000, keepingAscending: false, &generator)
    }

    @Test func builtFromAscendingAndNonAscendingSlots() {
        var generator = SeededGenerator(seed: 14)
        let ascending = (0..<5000).map { _ in Int32.random(in: 0..<20_000, using: &generator) }
        let sortedSlots = Array(Set(ascending)).sorted()
        var inputs: [(slots: [Int32], ascending: Bool)] = [
            ([], true), ([0], true), ([5000], true), (sortedSlots, true),
            (sortedSlots.shuffled(using: &generator), false),
            (sortedSlots.reversed(), false),
        ]
        // Ascending but for one slot late in the list (conversion part-way through the input).
        var late = sortedSlots
        late.swapAt(late.count - 3, late.count - 2)
        inputs.append((late, false))
        var first = sortedSlots
        first.swapAt(0, 1)
        inputs.append((first, false))
        for (slots, isAscending) in inputs {
            var model = Model(slots)
            #expect(model.sequence.isAscending == isAscending, "\(slots.count) slots")
            model.fullCheck(&generator)
            Self.run(&model, operations: 800, keepingAscending: isAscending, &generator)
        }
        #expect(SlotSequence(0..<Int32(3000)).array == (0..<3000).map { Int32($0) })
    }

    @Test func anAscendingSequenceTakesAboutOneBitPerSlot() {
        var loaded = SlotSequence(0..<Int32(1_000_000))
        loaded.trimCapacity()
        #expect(loaded.isAscending)
        #expect(loaded.memoryFootprint < 1_000_000 / 4, "\(loaded.memoryFootprint) bytes")
        var appended = SlotSequence()
        for slot in 0..<Int32(200_000) where slot % 5 != 0 { appended.insert(slot, at: appended.count) }
        for position in stride(from: 159_000, to: 0, by: -997) { appended.remove(at: position) }
        appended.trimCapacity()
        #expect(appended.isAscending)
        #expect(appended.memoryFootprint < appended.count / 2, "\(appended.memoryFootprint) bytes")
        // The same slots in blocks take over four bytes a slot.
        appended.insert(0, at: appended.count)
        appended.trimCapacity()
        #expect(!appended.isAscending)
        #expect(appended.memoryFootprint > 4 * appended.count)
    }
}
