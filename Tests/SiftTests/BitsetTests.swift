import SiftStorage
import Testing

@testable import Sift

/// `Bitset`'s one-pass combinations and counts (a C kernel with a scalar and an AVX2 variant)
/// against sets of slots, on operands of different lengths, of few and many members, each held
/// as bits or as a list (`Bitset(sparse:capacity:)`), at every kernel level this CPU has.
@Suite struct BitsetTests {
    /// A random set of slots below `limit`, about `density` of them.
    static func randomSlots(below limit: Int, density: Double, _ generator: inout SeededGenerator) -> Set<Int32> {
        var slots = Set<Int32>()
        for slot in 0..<limit where Double.random(in: 0..<1, using: &generator) < density { slots.insert(Int32(slot)) }
        return slots
    }

    static func bitset(_ slots: Set<Int32>, capacity: Int, sparse: Bool = false) -> Bitset {
        if sparse { return Bitset(sparse: slots.sorted(), capacity: capacity) }
        var bits = Bitset(capacity: capacity)
        for slot in slots { bits.insert(slot) }
        return bits
    }

    @Test func combiningEqualsSetAlgebraAtEveryKernelLevel() throws {
        try KernelLevel.exclusively { try combiningAtEveryKernelLevel() }
    }

    func combiningAtEveryKernelLevel() throws {
        for level in KernelLevel.supported {
            KernelLevel.force(level)
            var generator = SeededGenerator(seed: 7)
            for round in 0..<60 {
                // Lengths that differ by whole words and by less, including empty sets.
                let limits = (0..<5).map { _ in
                    [0, 1, 63, 64, 65, 300, 4_100][Int.random(in: 0..<7, using: &generator)]
                }
                let densities = [0.001, 0.05, 0.5, 0.97]
                let sets = limits.map { limit in
                    Self.randomSlots(below: limit, density: densities[round % 4], &generator)
                }
                // Each operand as bits or as a list, so that every mix of forms meets.
                let bits = zip(sets, limits).map {
                    Self.bitset($0, capacity: $1, sparse: Bool.random(using: &generator))
                }
                let (x, y, m, s, t) = (sets[0], sets[1], sets[2], sets[3], sets[4])
                let choice = round % 16
                let useY = choice & 1 != 0
                let useM = choice & 2 != 0
                let useS = choice & 4 != 0
                let useT = choice & 8 != 0
                var expected = useY ? x.union(y) : x
                if useM { expected.formIntersection(m) }
                if useS { expected.subtract(s) }
                if useT { expected.subtract(t) }
                let (result, count) = Bitset.combining(
                    bits[0],
                    or: useY ? bits[1] : nil,
                    and: useM ? bits[2] : nil,
                    minus: useS ? bits[3] : nil,
                    useT ? bits[4] : nil
                )
                #expect(Set(result.members) == expected, "level \(level), round \(round)")
                #expect(count == expected.count, "level \(level), round \(round)")
                #expect(result.count == expected.count, "level \(level), round \(round)")
                #expect(result.capacity >= max(bits[0].capacity, useY ? bits[1].capacity : 0))
                #expect(result.words.count == result.wordCount && Set(Bitset(capacity: 0).members).isEmpty)
                #expect(expected.allSatisfy { result.contains($0) } && !result.contains(Int32(result.capacity)))

                var inPlace = bits[0]
                inPlace.formUnion(bits[1])
                #expect(Set(inPlace.members) == x.union(y))
                inPlace.formIntersection(bits[2])
                #expect(Set(inPlace.members) == x.union(y).intersection(m))
                inPlace.formSubtraction(bits[3])
                #expect(Set(inPlace.members) == x.union(y).intersection(m).subtracting(s))
                var rest = bits[0]
                let inside = rest.split(by: bits[1])
                #expect(Set(inside.bits.members) == x.intersection(y) && inside.count == x.intersection(y).count)
                #expect(Set(rest.members) == x.subtracting(y))

                // Inserts and removes keep either form exact (a list that grows past half the
                // bits' bytes becomes bits).
                var edited = bits[2]
                var model = m
                for _ in 0..<40 {
                    let slot = Int32.random(in: 0..<Int32(max(1, limits[2] + 70)), using: &generator)
                    if Bool.random(using: &generator) {
                        edited.insert(slot)
                        model.insert(slot)
                    } else {
                        edited.remove(slot)
                        model.remove(slot)
                    }
                }
                #expect(Set(edited.members) == model && edited.count == model.count)
                var denseCopy = edited
                denseCopy.makeDense()
                #expect(denseCopy == edited && !denseCopy.isSparse)

                // The operands are values: combining never changed them.
                #expect(Set(bits[0].members) == x && Set(bits[1].members) == y)
            }
        }
    }

    @Test func unionIntoAnEmptySetSharesTheOther() {
        var empty = Bitset()
        let other = Self.bitset([3, 64, 700], capacity: 1_000)
        empty.formUnion(other)
        #expect(empty == other)
        empty.insert(5)
        #expect(!other.contains(5), "a shared set is copied on write")
    }
}
