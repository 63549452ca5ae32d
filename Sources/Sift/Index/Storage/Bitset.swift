internal import CSiftKernels

/// A fixed-universe set of record slots, one bit per slot.
///
/// Query results, narrowing candidates and category members are bitsets, so combining scopes and
/// counting badge numbers are word-wide operations.
struct Bitset: Equatable, Sendable {
    private(set) var words: [UInt64]

    init(capacity: Int = 0) { words = [UInt64](repeating: 0, count: (capacity + 63) >> 6) }

    /// The set of slots `0..<count`.
    static func all(_ count: Int) -> Bitset {
        var result = Bitset(capacity: count)
        for i in 0..<(count >> 6) { result.words[i] = ~0 }
        if count & 63 != 0 { result.words[count >> 6] = (1 << UInt64(count & 63)) - 1 }
        return result
    }

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

    mutating func formUnion(_ other: Bitset) {
        if other.words.count > words.count {
            words.append(contentsOf: repeatElement(0, count: other.words.count - words.count))
        }
        for i in 0..<other.words.count { words[i] |= other.words[i] }
    }

    mutating func formIntersection(_ other: Bitset) {
        for i in 0..<words.count { words[i] &= i < other.words.count ? other.words[i] : 0 }
    }

    /// Removes the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots.
    mutating func formSubtraction(_ other: Bitset) {
        for i in 0..<min(words.count, other.words.count) { words[i] &= ~other.words[i] }
    }

    /// Calls `body` with each member in ascending slot order.
    ///
    /// - Complexity: O(*n* / 64 + *k*) for *k* members.
    @inline(__always)  // lets the caller's closure inline into the word loop
    func forEachMember(_ body: (Int32) throws -> Void) rethrows {
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let bit = bits.trailingZeroBitCount
                try body(Int32(index << 6 | bit))
                bits &= bits - 1
            }
        }
    }

    /// Calls `body` with the words, for kernels that set bits (the capacity does not change).
    mutating func withUnsafeMutableWords<R>(_ body: (UnsafeMutablePointer<UInt64>) throws -> R) rethrows -> R {
        if words.isEmpty { words.append(0) }
        return try words.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
    }

    /// Members in ascending slot order.
    ///
    /// - Complexity: O(*n* / 64 + *k*) for *k* members.
    var members: [Int32] {
        let count = self.count
        guard count > 0 else { return [] }
        return [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
            words.withUnsafeBufferPointer { words in
                initialized = sift_bits_to_slots(words.baseAddress!, words.count, buffer.baseAddress!)
            }
        }
    }
}
