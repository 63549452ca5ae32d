internal import CSiftKernels

/// A fixed-universe set of record slots: one bit per slot, or, for a few members in a large
/// universe, the members themselves.
///
/// Query results, narrowing candidates and category members are bitsets, so combining scopes and
/// counting badge numbers are word-wide operations. A narrow keystroke's results (a few hundred
/// records of a million) are kept *sparse* instead: their members, ascending (see
/// `init(sparse:capacity:)`). Then the keystroke costs what its matches cost, not a pass over
/// (and a fresh page-faulting allocation of) 125 KB per field result: every operation here takes
/// either form, and a sparse operand is read member by member.
package struct Bitset: Equatable, Sendable {
    /// The dense form: one bit per slot. Empty while the set is sparse.
    private var dense: [UInt64]
    /// The sparse form: the members, ascending; nil while the set is dense.
    package private(set) var sparseMembers: [Int32]?
    /// The dense form's word count (the capacity) while the set is sparse.
    private var sparseWordCount = 0

    package init(capacity: Int = 0) { dense = [UInt64](repeating: 0, count: (capacity + 63) >> 6) }

    /// The set of `members` (ascending, each below `capacity`), kept sparse: O(1) to count, O(log
    /// *k*) to test, O(*k*) to read or combine, for *k* members.
    package init(sparse members: [Int32], capacity: Int) {
        dense = []
        sparseMembers = members
        sparseWordCount = max((capacity + 63) >> 6, members.last.map { Int($0) >> 6 + 1 } ?? 0)
    }

    /// The set whose words are `words` (bit *i* of word *w*: slot 64*w* + *i*).
    package init(words: [UInt64]) { dense = words }

    /// The set of slots `0..<count`.
    package static func all(_ count: Int) -> Bitset {
        var result = Bitset(capacity: count)
        for i in 0..<(count >> 6) { result.dense[i] = ~0 }
        if count & 63 != 0 { result.dense[count >> 6] = (1 << UInt64(count & 63)) - 1 }
        return result
    }

    /// Whether the set holds its members as a list (see `init(sparse:capacity:)`).
    package var isSparse: Bool { sparseMembers != nil }

    /// The dense form's words: the set's own for a dense set, made from the members for a sparse
    /// one (O(*n* / 64); read it once, not in a loop).
    package var words: [UInt64] {
        guard let sparseMembers else { return dense }
        var words = [UInt64](repeating: 0, count: sparseWordCount)
        for slot in sparseMembers { words[Int(slot) >> 6] |= 1 << UInt64(slot & 63) }
        return words
    }

    /// The number of words of the dense form (the capacity in words), whichever form the set is in.
    package var wordCount: Int { sparseMembers == nil ? dense.count : sparseWordCount }

    /// Number of slots the set can hold without growing.
    package var capacity: Int { wordCount << 6 }

    /// Heap bytes the set holds.
    package var memoryFootprint: Int { 8 * dense.capacity + 4 * (sparseMembers?.capacity ?? 0) }

    /// The dense form in place (a no-op for a dense set).
    ///
    /// - Complexity: O(*n* / 64 + *k*) for a sparse set of *k* members.
    package mutating func makeDense() {
        guard sparseMembers != nil else { return }
        dense = words
        sparseMembers = nil
        sparseWordCount = 0
    }

    /// The sparse form in place when the set has at most `limit` members (a no-op otherwise, and
    /// for a sparse set).
    ///
    /// - Complexity: O(*n* / 64 + *k*) for *k* members.
    package mutating func makeSparse(ifAtMost limit: Int) {
        guard sparseMembers == nil, limit > 0 else { return }
        let count = self.count
        guard count <= limit else { return }
        self = Bitset(sparse: denseMembers(count: count), capacity: capacity)
    }

    /// A list grown (by inserts or a union) past half the dense form's bytes becomes dense.
    private mutating func makeDenseIfLarge() {
        if let sparseMembers, sparseMembers.count > 2 * sparseWordCount { makeDense() }
    }

    @inline(__always)  // bit arithmetic in the scan loops
    @inlinable
    package func contains(_ slot: Int32) -> Bool {
        if let sparseMembers { return Self.position(of: slot, in: sparseMembers).found }
        let word = Int(slot) >> 6
        return word < dense.count && dense[word] & (1 << UInt64(slot & 63)) != 0
    }

    @inline(__always)  // bit arithmetic in the scan loops
    @inlinable
    package mutating func insert(_ slot: Int32) {
        if sparseMembers != nil {
            if sparseMembers!.last ?? -1 < slot {  // members added in ascending order: no search
                sparseMembers!.append(slot)
                sparseWordCount = max(sparseWordCount, Int(slot) >> 6 + 1)
                makeDenseIfLarge()
                return
            }
            let (index, found) = Self.position(of: slot, in: sparseMembers!)
            guard !found else { return }
            sparseMembers!.insert(slot, at: index)
            sparseWordCount = max(sparseWordCount, Int(slot) >> 6 + 1)
            makeDenseIfLarge()
            return
        }
        let word = Int(slot) >> 6
        if word >= dense.count { dense.append(contentsOf: repeatElement(0, count: word + 1 - dense.count)) }
        dense[word] |= 1 << UInt64(slot & 63)
    }

    @inline(__always)  // bit arithmetic
    @inlinable
    package mutating func remove(_ slot: Int32) {
        if sparseMembers != nil {
            let (index, found) = Self.position(of: slot, in: sparseMembers!)
            if found { sparseMembers!.remove(at: index) }
            return
        }
        let word = Int(slot) >> 6
        if word < dense.count { dense[word] &= ~(1 << UInt64(slot & 63)) }
    }

    package mutating func set(_ slot: Int32, to member: Bool) {
        if member { insert(slot) } else { remove(slot) }
    }

    /// Whether the set has no member.
    ///
    /// - Complexity: O(*n* / 64) at most for a universe of *n* slots, up to the first member;
    ///   O(1) for a sparse set.
    package var isEmpty: Bool {
        if let sparseMembers { return sparseMembers.isEmpty }
        return !dense.contains { $0 != 0 }
    }

    /// Number of members.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(1) for a sparse set.
    package var count: Int {
        if let sparseMembers { return sparseMembers.count }
        return dense.withUnsafeBufferPointer { words in
            words.isEmpty ? 0 : sift_bits_count(words.baseAddress!, words.count)
        }
    }

    /// Adds the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(*k*) for the *k* members of a
    ///   sparse `other` (and O(*k* + *j*) when this set is sparse too, with *j* members); O(1)
    ///   when this set has no words yet (it then shares `other`'s).
    package mutating func formUnion(_ other: Bitset) {
        if wordCount == 0 && !isSparse {
            self = other
            return
        }
        if let mine = sparseMembers, let theirs = other.sparseMembers {
            self = Bitset(sparse: Self.merged(mine, theirs), capacity: max(capacity, other.capacity))
            makeDenseIfLarge()
            return
        }
        if let theirs = other.sparseMembers {
            for slot in theirs { insert(slot) }
            return
        }
        makeDense()
        if other.dense.count > dense.count {
            dense.append(contentsOf: repeatElement(0, count: other.dense.count - dense.count))
        }
        combineInPlace(or: other)
    }

    /// Keeps only the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(*k* log *j*) when either set is
    ///   sparse (*k* members of it, *j* of the other if that one is sparse too).
    package mutating func formIntersection(_ other: Bitset) {
        if let mine = sparseMembers {
            var other = AscendingMembership(other)
            sparseMembers = mine.filter { other.contains($0) }
        } else if let theirs = other.sparseMembers {
            let kept = theirs.filter { contains($0) }  // dense here: a bit test each
            self = Bitset(sparse: kept, capacity: capacity)
        } else {
            combineInPlace(and: other)
        }
    }

    /// Removes the members of `other`.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(*k* log *j*) when either set is
    ///   sparse.
    package mutating func formSubtraction(_ other: Bitset) {
        if let mine = sparseMembers {
            var other = AscendingMembership(other)
            sparseMembers = mine.filter { !other.contains($0) }
        } else if let theirs = other.sparseMembers {
            for slot in theirs { remove(slot) }
        } else {
            combineInPlace(minus: other)
        }
    }

    /// `self = (self ∪ y) ∩ mask − s`, in place, one pass (all three dense).
    private mutating func combineInPlace(or y: Bitset? = nil, and mask: Bitset? = nil, minus s: Bitset? = nil) {
        guard !dense.isEmpty else { return }
        dense.withUnsafeMutableBufferPointer { destination in
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
    /// pass that also counts reads each word once. When the members the result can have come
    /// from sparse sets (a sparse `mask`, or `x` and `y` both sparse), the result is sparse, made
    /// member by member; a sparse `y`, `s` or `t` beside dense sets is applied member by member
    /// after the pass.
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(*k* log *j*) for a sparse result
    ///   from *k* sparse members, each tested against the other sets.
    package static func combining(
        _ x: Bitset,
        or y: Bitset? = nil,
        and mask: Bitset? = nil,
        minus s: Bitset? = nil,
        _ t: Bitset? = nil
    ) -> (bits: Bitset, count: Int) {
        let n = max(x.wordCount, y?.wordCount ?? 0)
        guard n > 0 else { return (Bitset(), 0) }
        // Sparse: every member of the result is a member of a sparse list (the mask's, then tested
        // against x and y; or x's and y's, then tested against the mask).
        let fromMembers: [Int32]?
        var inMask = mask.map(AscendingMembership.init)
        if let maskMembers = mask?.sparseMembers {
            var (inX, inY) = (AscendingMembership(x), y.map(AscendingMembership.init))
            fromMembers = maskMembers.filter { inX.contains($0) || inY?.contains($0) == true }
            inMask = nil
        } else if let xMembers = x.sparseMembers, y == nil || y!.isSparse {
            fromMembers = y.map { merged(xMembers, $0.sparseMembers!) } ?? xMembers
        } else {
            fromMembers = nil
        }
        if let fromMembers {
            var (inS, inT) = (s.map(AscendingMembership.init), t.map(AscendingMembership.init))
            let kept = fromMembers.filter {
                inMask?.contains($0) != false && inS?.contains($0) != true && inT?.contains($0) != true
            }
            return (Bitset(sparse: kept, capacity: n << 6), kept.count)
        }
        // Dense: one pass over the dense operands (x dense here, or y dense with x sparse),
        // then the sparse ones member by member.
        let (first, second) = x.isSparse ? (y!, x) : (x, y)
        let sparseUnion = second?.isSparse == true ? second : nil
        let denseUnion = sparseUnion == nil ? second : nil
        let denseS = s?.isSparse == true ? nil : s
        let denseT = t?.isSparse == true ? nil : t
        var count = 0
        let words = [UInt64](unsafeUninitializedCapacity: n) { destination, initialized in
            first.dense.withUnsafeBufferPointer { x in
                withWords(denseUnion) { y, yn in
                    withWords(mask) { m, mn in
                        withWords(denseS) { s, sn in
                            withWords(denseT) { t, tn in
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
        var result = Bitset(words: words)
        if let added = sparseUnion?.sparseMembers {
            var (inS, inT) = (s.map(AscendingMembership.init), t.map(AscendingMembership.init))
            for slot in added
            where !result.contains(slot) && inMask?.contains(slot) != false && inS?.contains(slot) != true
                && inT?.contains(slot) != true
            {
                result.insert(slot)
                count += 1
            }
        }
        for slot in (s?.sparseMembers ?? []) + (t?.sparseMembers ?? []) where result.contains(slot) {
            result.remove(slot)
            count -= 1
        }
        return (result, count)
    }

    /// Removes the members of `x` from this set and returns them (`x ∩ self`, as a new set with
    /// this set's capacity) with their count: one pass over the words, or member by member when
    /// either set is sparse (the returned set is then sparse).
    ///
    /// - Complexity: O(*n* / 64) for a universe of *n* slots; O(*k* log *j*) when either set is
    ///   sparse.
    package mutating func split(by x: Bitset) -> (bits: Bitset, count: Int) {
        if let mine = sparseMembers {
            var inside: [Int32] = []
            var rest: [Int32] = []
            var x = AscendingMembership(x)
            for slot in mine {
                if x.contains(slot) { inside.append(slot) } else { rest.append(slot) }
            }
            sparseMembers = rest
            return (Bitset(sparse: inside, capacity: capacity), inside.count)
        }
        if let theirs = x.sparseMembers {
            let inside = theirs.filter { contains($0) }
            for slot in inside { remove(slot) }
            return (Bitset(sparse: inside, capacity: capacity), inside.count)
        }
        let n = dense.count
        guard n > 0 else { return (Bitset(), 0) }
        var count = 0
        let inside = [UInt64](unsafeUninitializedCapacity: n) { inside, initialized in
            dense.withUnsafeMutableBufferPointer { rest in
                Self.withWords(x) { x, xn in
                    count = sift_bits_split(rest.baseAddress!, n, x!, xn, inside.baseAddress!)
                }
            }
            initialized = n
        }
        return (Bitset(words: inside), count)
    }

    /// Calls `body` with a set's words and their count, or with nil and 0 for no set (an empty
    /// set gives a valid pointer to no words, which the kernels read as zeros past the count).
    private static func withWords<R>(_ set: Bitset?, _ body: (UnsafePointer<UInt64>?, Int) -> R) -> R {
        guard let set else { return body(nil, 0) }
        let words = set.words
        guard !words.isEmpty else { return withUnsafePointer(to: UInt64(0)) { body($0, 0) } }
        return words.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }

    /// Calls `body` with each member in ascending slot order.
    ///
    /// - Complexity: O(*n* / 64 + *k*) for *k* members; O(*k*) for a sparse set.
    @inline(__always)  // lets the caller's closure inline into the word loop
    @inlinable
    package func forEachMember(_ body: (Int32) throws -> Void) rethrows {
        if let sparseMembers {
            for slot in sparseMembers { try body(slot) }
            return
        }
        for (index, word) in dense.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let bit = bits.trailingZeroBitCount
                try body(Int32(index << 6 | bit))
                bits &= bits - 1
            }
        }
    }

    /// Calls `body` with the words, for kernels that set bits (the capacity does not change; a
    /// sparse set becomes dense first).
    @inlinable
    package mutating func withUnsafeMutableWords<R>(_ body: (UnsafeMutablePointer<UInt64>) throws -> R) rethrows -> R {
        makeDense()
        if dense.isEmpty { dense.append(0) }
        return try dense.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
    }

    /// Members in ascending slot order.
    ///
    /// - Complexity: O(*n* / 64 + *k*) for *k* members; O(1) for a sparse set.
    package var members: [Int32] { sparseMembers ?? denseMembers(count: count) }

    /// The members of the dense form, `count` of them.
    private func denseMembers(count: Int) -> [Int32] {
        guard count > 0 else { return [] }  // no empty unsafeUninitializedCapacity (see SnapshotReader.readArray)
        return [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
            dense.withUnsafeBufferPointer { words in
                initialized = sift_bits_to_slots(words.baseAddress!, words.count, buffer.baseAddress!)
            }
        }
    }

    /// Equal members and capacity, whichever form each set is in.
    package static func == (lhs: Bitset, rhs: Bitset) -> Bool {
        if !lhs.isSparse && !rhs.isSparse { return lhs.dense == rhs.dense }
        return lhs.wordCount == rhs.wordCount && lhs.members == rhs.members
    }

    /// Where `slot` is or would go in ascending `members`.
    @inline(__always)
    private static func position(of slot: Int32, in members: [Int32]) -> (index: Int, found: Bool) {
        let index = firstIndex(notBelow: slot, in: members, from: 0, to: members.count)
        return (index, index < members.count && members[index] == slot)
    }

    /// The first index of `low..<high` in ascending `members` whose member is `slot` or more, or
    /// `high`: a binary search.
    @inline(__always)
    @inlinable
    package static func firstIndex(notBelow slot: Int32, in members: [Int32], from low: Int, to high: Int) -> Int {
        var (low, high) = (low, high)
        while low < high {
            let middle = (low + high) >> 1
            if members[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The union of two ascending lists, ascending.
    private static func merged(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if a[i] < b[j] {
                result.append(a[i])
                i += 1
            } else if b[j] < a[i] {
                result.append(b[j])
                j += 1
            } else {
                result.append(a[i])
                i += 1
                j += 1
            }
        }
        result.append(contentsOf: a[i...])
        result.append(contentsOf: b[j...])
        return result
    }
}

/// Membership of ascending slots in a set: a bit test for a dense set; for a sparse one a cursor
/// that only moves forward, galloping, so that testing *k* ascending slots against *j* members
/// costs O(*k* log(*j* / *k*)) rather than a binary search each.
package struct AscendingMembership {
    private let set: Bitset
    private let members: [Int32]?
    private var cursor = 0

    package init(_ set: Bitset) {
        self.set = set
        members = set.sparseMembers
    }

    /// Whether `slot` is a member; each call's slot is above the previous call's.
    package mutating func contains(_ slot: Int32) -> Bool {
        guard let members else { return set.contains(slot) }
        guard cursor < members.count, members[cursor] < slot else {
            return cursor < members.count && members[cursor] == slot
        }
        // members[cursor] < slot: gallop to a step past it, then search the last step.
        var step = 1
        while cursor + step < members.count && members[cursor + step] < slot { step <<= 1 }
        cursor = Bitset.firstIndex(
            notBelow: slot,
            in: members,
            from: cursor + (step >> 1) + 1,
            to: min(cursor + step, members.count)
        )
        return cursor < members.count && members[cursor] == slot
    }
}
