internal import SiftStorage

/// A set of slots kept as the low 16 bits of each member, grouped by block of 65,536 slots: two
/// bytes a member, half of a plain list (`Bitset`'s sparse form), for the posting sets too
/// small for bits.
struct PostingList: Sendable {
    /// The members of block *b* are `lows[blockStarts[b] ..< blockStarts[b + 1]]`, ascending; the
    /// last entry is `lows.count`.
    private var blockStarts: [UInt32] = [0]
    private var lows: [UInt16] = []

    /// The list of `members` (ascending).
    ///
    /// - Complexity: O(*k*) for *k* members.
    init(_ members: UnsafeBufferPointer<Int32>) {
        lows.reserveCapacity(members.count)
        blockStarts = []
        for slot in members {
            while blockStarts.count <= Int(slot >> 16) { blockStarts.append(UInt32(lows.count)) }
            lows.append(UInt16(truncatingIfNeeded: slot))
        }
        blockStarts.append(UInt32(lows.count))
    }

    var count: Int { lows.count }

    /// A bound on the members: every one is below it.
    var slotLimit: Int { (blockStarts.count - 1) << 16 }

    /// Where `slot` is or would go in `lows`, and whether it is there.
    private func position(of slot: Int32) -> (index: Int, found: Bool) {
        let block = Int(slot >> 16)
        guard block + 1 < blockStarts.count else { return (lows.count, false) }
        var low = Int(blockStarts[block])
        var high = Int(blockStarts[block + 1])
        let key = UInt16(truncatingIfNeeded: slot)
        while low < high {
            let middle = (low + high) >> 1
            if lows[middle] < key { low = middle + 1 } else { high = middle }
        }
        return (low, low < Int(blockStarts[block + 1]) && lows[low] == key)
    }

    func contains(_ slot: Int32) -> Bool { position(of: slot).found }

    /// Adds or removes `slot`.
    ///
    /// - Complexity: O(log *k*) when nothing changes; O(*k*) otherwise.
    mutating func set(_ slot: Int32, to member: Bool) {
        let (index, found) = position(of: slot)
        guard found != member else { return }
        let block = Int(slot >> 16)
        if member {
            while blockStarts.count <= block + 1 { blockStarts.append(UInt32(lows.count)) }
            // Grown by an eighth, not doubled: lists are kept at their size, and most edits add one.
            if lows.count == lows.capacity { lows.reserveCapacity(lows.count + lows.count / 8 + 4) }
            lows.insert(UInt16(truncatingIfNeeded: slot), at: index)
            for b in (block + 1)..<blockStarts.count { blockStarts[b] += 1 }
        } else {
            lows.remove(at: index)
            for b in (block + 1)..<blockStarts.count { blockStarts[b] -= 1 }
        }
    }

    /// The members, ascending.
    ///
    /// - Complexity: O(*k*).
    var members: [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(lows.count)
        for block in 0..<(blockStarts.count - 1) {
            let base = Int32(block) << 16
            for i in Int(blockStarts[block])..<Int(blockStarts[block + 1]) { result.append(base | Int32(lows[i])) }
        }
        return result
    }

    /// The members as bits: `wordCount` words, at least enough for every member.
    ///
    /// - Complexity: O(*k* + *w*) for *k* members and *w* words.
    func bits(wordCount: Int) -> Bitset {
        let words = [UInt64](unsafeUninitializedCapacity: wordCount) { words, initialized in
            words.initialize(repeating: 0)
            for block in 0..<(blockStarts.count - 1) {
                let base = block << 16
                for i in Int(blockStarts[block])..<Int(blockStarts[block + 1]) {
                    let slot = base | Int(lows[i])
                    words[slot >> 6] |= 1 << UInt64(slot & 63)
                }
            }
            initialized = wordCount
        }
        return Bitset(words: words)
    }

    /// Heap bytes held.
    var memoryFootprint: Int { 2 * lows.capacity + 4 * blockStarts.capacity }
}

/// One posting set: bits where it is dense, a `PostingList` where that is smaller.
enum PostingSet: Sendable {
    case bits(Bitset)
    case list(PostingList)

    static let empty = PostingSet.list(PostingList(UnsafeBufferPointer(start: nil, count: 0)))

    /// Whether `count` members take less memory as bits for `capacity` slots than as a list (two
    /// bytes a member).
    static func isDense(_ count: Int, capacity: Int) -> Bool { 2 * count > (capacity + 7) / 8 }

    var count: Int {
        switch self {
        case .bits(let bits): bits.count
        case .list(let list): list.count
        }
    }

    /// The set as a `Bitset`: its bits, or the list's members, as a sparse one when they are at
    /// most `sparseLimit` (the index's `sparseSlotLimit`: the query code reads larger sets as
    /// bits, word by word, not member by member).
    ///
    /// - Complexity: O(1) for bits; O(*k*) for a list of *k* members, plus O(*n* / 64) when
    ///   they are made bits.
    func bitset(capacity: Int, sparseLimit: Int = .max) -> Bitset {
        switch self {
        case .bits(let bits): bits
        case .list(let list) where list.count > sparseLimit:
            list.bits(wordCount: max((capacity + 63) >> 6, list.slotLimit >> 6 + 1))
        case .list(let list): Bitset(sparse: list.members, capacity: capacity)
        }
    }

    /// Adds or removes `slot`; a list that grows past `isDense` becomes bits.
    mutating func set(_ slot: Int32, to member: Bool, capacity: Int) {
        switch self {
        case .bits(var bits):
            guard bits.contains(slot) != member else { return }
            self = .empty  // the bits uniquely referenced while they change
            bits.set(slot, to: member)
            self = .bits(bits)
        case .list(var list):
            guard list.contains(slot) != member else { return }
            self = .empty
            list.set(slot, to: member)
            if Self.isDense(list.count, capacity: capacity) {
                var bits = Bitset(capacity: capacity)
                for slot in list.members { bits.insert(slot) }
                self = .bits(bits)
            } else {
                self = .list(list)
            }
        }
    }

    var memoryFootprint: Int {
        switch self {
        case .bits(let bits): bits.memoryFootprint
        case .list(let list): list.memoryFootprint
        }
    }
}
