import SiftStorage
import Testing

@testable import Sift

@Suite("Slot maps (records away from their slot number)")
struct SlotMapTests {
    /// Random sets and removes, with keys clustered the way slots are (runs of neighbours, which
    /// stress linear probing and backward-shift deletion), against a `Dictionary`.
    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var map = SlotMap()
        var oracle: [Int32: Int32] = [:]
        for step in 0..<40_000 {
            let base = Int32.random(in: 0..<5_000, using: &generator)
            let key = step % 3 == 0 ? base : base % 300 + 1_000
            if Int.random(in: 0..<5, using: &generator) < 3 {
                let value = Int32.random(in: 0..<Int32.max, using: &generator)
                map.set(key, to: value)
                oracle[key] = value
            } else {
                map.remove(key)
                oracle[key] = nil
            }
            if step % 997 == 0 {
                #expect(map.count == oracle.count)
                for probe in Int32(0)..<5_400 where map[probe] != oracle[probe] {
                    Issue.record(
                        "step \(step): key \(probe) is \(String(describing: map[probe])), expected \(String(describing: oracle[probe]))"
                    )
                    return
                }
            }
        }
        #expect(
            map
                == {
                    var m = SlotMap()
                    for (k, v) in oracle { m.set(k, to: v) }
                    return m
                }()
        )
        for key in oracle.keys { map.remove(key) }
        #expect(map.count == 0 && map[0] == nil)
    }

    @Test func anEmptyMapCostsNothing() {
        let map = SlotMap()
        #expect(map.memoryFootprint == 0 && map.capacity == 0 && map[7] == nil)
    }
}
