/// Per-slot keys of the ranking rules that order ranked results within their groups (see
/// `ResultOrder.ranked`): each searched field's length, and the numeric tie-break's value.
///
/// A field's **length** is its number of collation elements as the index stores it folded (the
/// elements `contains` compares: the collator's at its strength, ignorable ones dropped), counted
/// up to `SIFT_RANKING_LENGTH_LIMIT` (255): longer fields tie. One byte per slot and per
/// (folding, search field), so that ordering a group reads one byte per result.
struct RankingKeys {
    /// Per folding, per search field position, per slot: the field's length.
    var lengths: [[[UInt8]]]
    /// Per slot: `RankingTieBreak.key(of:descending:)` of the numeric tie-break field's value;
    /// empty without a numeric tie-break.
    var numbers: [UInt64]
    /// One bit per slot, set when the text tie-break field's value is empty (such records come
    /// last); empty without a text tie-break.
    var emptyTieBreak: [UInt64] = []

    /// Heap bytes used.
    var memoryFootprint: Int {
        lengths.reduce(0) { $0 + $1.reduce(0) { $0 + $1.capacity } } + 8 * numbers.capacity
            + 8 * emptyTieBreak.capacity
    }
}

extension RankingKeys {
    /// The keys of `slots` (ascending), those of `slots[i]` at slot `i`, sized for `capacity`
    /// slots (the lengths for `lengthCapacity`) as `SearchIndex.rankingKeys` sizes them (see
    /// `SearchIndex.renumberSlots()`).
    ///
    /// - Complexity: O(`capacity`) per key.
    func renumbered(_ slots: [Int32], capacity: Int, lengthCapacity: Int) -> RankingKeys {
        func gather<T>(_ keys: [T], padding: T, capacity: Int = capacity) -> [T] {
            var result = [T]()
            result.reserveCapacity(capacity)
            for slot in slots { result.append(keys[Int(slot)]) }
            result.append(contentsOf: repeatElement(padding, count: capacity - slots.count))
            return result
        }
        var result = RankingKeys(
            lengths: lengths.map { folding in folding.map { gather($0, padding: 0, capacity: lengthCapacity) } },
            numbers: numbers.isEmpty ? [] : gather(numbers, padding: RankingTieBreak.missing)
        )
        if !emptyTieBreak.isEmpty {
            result.emptyTieBreak = [UInt64](repeating: 0, count: capacity / 64 + 1)
            for (new, old) in slots.enumerated() where emptyTieBreak[Int(old) >> 6] & (1 << UInt64(old & 63)) != 0 {
                result.emptyTieBreak[new >> 6] |= 1 << UInt64(new & 63)
            }
        }
        return result
    }
}
