internal import CSiftKernels

/// Finds a record's slot by its id: open addressing over slot numbers, the ids themselves living
/// in the index's `ids` column. Four bytes per bucket instead of a `Dictionary<String, Int32>`'s
/// key copies and metadata; at most 70% of the buckets are used (tombstones included), and the
/// table doubles when it would pass that.
struct IDTable {
    private var buckets = [Int32](repeating: -1, count: 16)
    private(set) var count = 0
    /// Buckets emptied by a removal: -2 (a tombstone keeps probe chains intact).
    private var tombstones = 0

    /// A per-process random seed, so that crafted ids cannot be made to collide.
    private static let seed = UInt64.random(in: 0...UInt64.max)

    /// The hash of an id's UTF-8 bytes (the same for a `String` and for the stored bytes): a fast
    /// seeded 64-bit mix, since loading a million-record snapshot hashes every id.
    private static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = utf8.baseAddress else { return Int(truncatingIfNeeded: seed) }
        return Int(truncatingIfNeeded: sift_checksum(base, utf8.count, seed))
    }

    private static func hash(_ id: String) -> Int {
        var id = id
        return id.withUTF8 { hash($0) }
    }

    private static func hash(slot: Int32, in ids: TextColumn) -> Int { ids.withUTF8(slot) { hash($0) } }

    /// The slot holding `id`, where `ids[slot]` reads a slot's id.
    ///
    /// - Complexity: O(1) expected.
    func slot(of id: String, ids: TextColumn) -> Int32? {
        let mask = buckets.count - 1
        var i = Self.hash(id) & mask
        while true {
            let slot = buckets[i]
            if slot == -1 { return nil }
            if slot >= 0 && ids.equals(slot, id) { return slot }
            i = (i + 1) & mask
        }
    }

    /// Adds a slot whose id (`ids[slot]`) is not in the table.
    ///
    /// - Complexity: O(1) amortized.
    mutating func insert(_ slot: Int32, ids: TextColumn) {
        if (count + tombstones + 1) * 10 > buckets.count * 7 { rehash(capacity: max(16, (count + 1) * 2), ids: ids) }
        let mask = buckets.count - 1
        var i = Self.hash(slot: slot, in: ids) & mask
        while buckets[i] >= 0 { i = (i + 1) & mask }
        if buckets[i] == -2 { tombstones -= 1 }
        buckets[i] = slot
        count += 1
    }

    /// A table of slots `0..<count` (loading a snapshot), or nil when two slots have the same id.
    /// The slots are inserted in bucket order (after a counting sort of their hashes), so that
    /// the probes walk the table sequentially instead of missing the cache once per id.
    ///
    /// - Complexity: O(*n*) expected, with sequential memory access.
    static func bulk(count: Int, ids: TextColumn) -> IDTable? {
        var table = IDTable()
        var size = 16
        while size * 7 < count * 10 { size <<= 1 }
        table.buckets = [Int32](repeating: -1, count: size)
        let mask = size - 1
        let bits = size.trailingZeroBitCount
        let shift = max(0, bits - 16)
        var homes = [UInt32](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: (mask >> shift) + 2)
        for slot in 0..<count {
            let home = UInt32(hash(slot: Int32(slot), in: ids) & mask)
            homes[slot] = home
            counts[Int(home >> UInt32(shift)) + 1] += 1
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var ordered = [Int32](repeating: 0, count: count)
        for slot in 0..<count {
            let group = Int(homes[slot] >> UInt32(shift))
            ordered[counts[group]] = Int32(slot)
            counts[group] += 1
        }
        for slot in ordered {
            var i = Int(homes[Int(slot)])
            let duplicate = ids.withUTF8(slot) { id -> Bool in
                while table.buckets[i] >= 0 {
                    if ids.withUTF8(table.buckets[i], { $0.elementsEqual(id) }) { return true }
                    i = (i + 1) & mask
                }
                return false
            }
            if duplicate { return nil }
            table.buckets[i] = slot
        }
        table.count = count
        return table
    }

    /// Removes the entry of `id`.
    ///
    /// - Complexity: O(1) expected.
    mutating func remove(_ id: String, ids: TextColumn) {
        let mask = buckets.count - 1
        var i = Self.hash(id) & mask
        while buckets[i] != -1 {
            let slot = buckets[i]
            if slot >= 0 && ids.equals(slot, id) {
                buckets[i] = -2
                count -= 1
                tombstones += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Makes room for `additional` more ids without rehashing.
    mutating func reserveCapacity(_ additional: Int, ids: TextColumn) {
        if (count + additional) * 10 > buckets.count * 7 { rehash(capacity: (count + additional) * 10 / 7 + 1, ids: ids) }
    }

    private mutating func rehash(capacity: Int, ids: TextColumn) {
        var size = 16
        while size < capacity { size <<= 1 }
        let old = buckets
        buckets = [Int32](repeating: -1, count: size)
        tombstones = 0
        let mask = size - 1
        for slot in old where slot >= 0 {
            var i = Self.hash(slot: slot, in: ids) & mask
            while buckets[i] != -1 { i = (i + 1) & mask }
            buckets[i] = slot
        }
    }

    var memoryFootprint: Int { 4 * buckets.capacity }
}
