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
    var count: Int {
        words.withUnsafeBufferPointer { words in
            words.isEmpty ? 0 : sift_bits_count(words.baseAddress!, words.count)
        }
    }

    /// Adds the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(1) when this set has no words yet
    ///   (it then shares `other`'s).
    mutating func formUnion(_ other: Bitset) {
        if words.isEmpty {
            self = other
            return
        }
        if other.words.count > words.count {
            words.append(contentsOf: repeatElement(0, count: other.words.count - words.count))
        }
        combineInPlace(or: other)
    }

    /// Keeps only the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots.
    mutating func formIntersection(_ other: Bitset) {
        combineInPlace(and: other)
    }

    /// Removes the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots.
    mutating func formSubtraction(_ other: Bitset) {
        combineInPlace(minus: other)
    }

    /// `self = (self ∪ y) ∩ mask − s`, in place, one pass.
    private mutating func combineInPlace(or y: Bitset? = nil, and mask: Bitset? = nil, minus s: Bitset? = nil) {
        guard !words.isEmpty else { return }
        words.withUnsafeMutableBufferPointer { destination in
            let x = UnsafePointer(destination.baseAddress!)
            Self.withWords(y) { y, yn in
                Self.withWords(mask) { m, mn in
                    Self.withWords(s) { s, sn in
                        _ = sift_bits_combine(
                            destination.baseAddress!,
                            destination.count,
                            x,
                            destination.count,
                            y,
                            yn,
                            m,
                            mn,
                            s,
                            sn,
                            nil,
                            0
                        )
                    }
                }
            }
        }
    }

    /// `(x ∪ y) ∩ mask − (s ∪ t)` as a new set, and its member count, in one pass over the words
    /// (a missing `y`, `s` or `t` is empty; a missing `mask` is everything). The result has the
    /// capacity of the larger of `x` and `y`.
    ///
    /// A keystroke combines bitsets of one bit per slot several times (fields of a scope, its
    /// category filter, ranking groups) and counts each result (badges, the rows to make): one
    /// pass that also counts reads each word once.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots.
    static func combining(
        _ x: Bitset,
        or y: Bitset? = nil,
        and mask: Bitset? = nil,
        minus s: Bitset? = nil,
        _ t: Bitset? = nil
    ) -> (bits: Bitset, count: Int) {
        let n = max(x.words.count, y?.words.count ?? 0)
        guard n > 0 else { return (Bitset(), 0) }
        var count = 0
        let words = [UInt64](unsafeUninitializedCapacity: n) { destination, initialized in
            x.words.withUnsafeBufferPointer { x in
                withWords(y) { y, yn in
                    withWords(mask) { m, mn in
                        withWords(s) { s, sn in
                            withWords(t) { t, tn in
                                count = sift_bits_combine(
                                    destination.baseAddress!,
                                    n,
                                    x.baseAddress ?? UnsafePointer(destination.baseAddress!),
                                    x.count,
                                    y,
                                    yn,
                                    m,
                                    mn,
                                    s,
                                    sn,
                                    t,
                                    tn
                                )
                            }
                        }
                    }
                }
            }
            initialized = n
        }
        return (Bitset(words: words), count)
    }

    /// Removes the members of `x` from this set and returns them (`x ∩ self`, as a new set with
    /// this set's capacity) with their count: one pass over the words.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots.
    mutating func split(by x: Bitset) -> (bits: Bitset, count: Int) {
        let n = words.count
        guard n > 0 else { return (Bitset(), 0) }
        var count = 0
        let inside = [UInt64](unsafeUninitializedCapacity: n) { inside, initialized in
            words.withUnsafeMutableBufferPointer { rest in
                Self.withWords(x) { x, xn in
                    count = sift_bits_split(rest.baseAddress!, n, x!, xn, inside.baseAddress!)
                }
            }
            initialized = n
        }
        return (Bitset(words: inside), count)
    }

    private init(words: [UInt64]) { self.words = words }

    /// Calls `body` with a set's words and their count, or with nil and 0 for no set (an empty
    /// set gives a valid pointer to no words, which the kernels read as zeros past the count).
    private static func withWords<R>(_ set: Bitset?, _ body: (UnsafePointer<UInt64>?, Int) -> R) -> R {
        guard let set else { return body(nil, 0) }
        guard !set.words.isEmpty else { return withUnsafePointer(to: UInt64(0)) { body($0, 0) } }
        return set.words.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
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
