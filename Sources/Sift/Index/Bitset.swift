/// A fixed-universe set of record slots, one bit per slot.
///
/// Query results, narrowing candidates and category members are bitsets, so combining scopes and
/// counting badge numbers are word-wide operations.
struct Bitset: Equatable, Sendable {
    private(set) var words: [UInt64]

    init(capacity: Int = 0) { words = [UInt64](repeating: 0, count: (capacity + 63) >> 6) }

    /// Number of slots the set can hold without growing.
    var capacity: Int { words.count << 6 }

    @inline(__always)  // bit arithmetic in the scan loops
    func contains(_ slot: Int32) -> Bool {
        let word = Int(slot) >> 6
        return word < words.count && words[word] & (1 << UInt64(slot & 63)) != 0
    }

    @inline(__always)  // bit arithmetic in the scan loops
    mutating func insert(_ slot: Int32) {
        let word = Int(slot) >> 6
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
        words[word] |= 1 << UInt64(slot & 63)
    }

    @inline(__always)  // bit arithmetic
    mutating func remove(_ slot: Int32) {
        let word = Int(slot) >> 6
        if word < words.count { words[word] &= ~(1 << UInt64(slot & 63)) }
    }

    mutating func set(_ slot: Int32, to member: Bool) {
        if member { insert(slot) } else { remove(slot) }
    }

    /// Number of members.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots.
    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    mutating func formUnion(_ other: Bitset) {
        if other.words.count > words.count {
            words.append(contentsOf: repeatElement(0, count: other.words.count - words.count))
        }
        for i in 0..<other.words.count { words[i] |= other.words[i] }
    }

    mutating func formIntersection(_ other: Bitset) {
        for i in 0..<words.count { words[i] &= i < other.words.count ? other.words[i] : 0 }
    }

    /// Calls `body` with each member in ascending slot order.
    ///
    /// - Complexity: O(*n* / 64 + *k*) for *k* members.
    @inline(__always)  // lets the caller's closure inline into the word loop
    func forEach(_ body: (Int32) throws -> Void) rethrows {
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let bit = bits.trailingZeroBitCount
                try body(Int32(index << 6 | bit))
                bits &= bits - 1
            }
        }
    }

    /// Members in ascending slot order.
    var members: [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        forEach { result.append($0) }
        return result
    }
}
