/// Finds a record's slot by its id: open addressing over slot numbers, the ids themselves living
/// in the index's `ids` array. Four bytes per bucket instead of a `Dictionary<String, Int32>`'s
/// key copies and metadata.
struct IDTable {
    private var buckets = [Int32](repeating: -1, count: 16)
    private(set) var count = 0
    /// Buckets emptied by a removal: -2 (a tombstone keeps probe chains intact).
    private var tombstones = 0

    @inline(__always)  // hashing the id's UTF-8 once per lookup
    private static func hash(_ id: String) -> Int {
        var hasher = Hasher()
        hasher.combine(id)
        return hasher.finalize()
    }

    /// The slot holding `id`, where `ids[slot]` reads a slot's id.
    ///
    /// - Complexity: O(1) expected.
    func slot(of id: String, ids: [String]) -> Int32? {
        let mask = buckets.count - 1
        var i = Self.hash(id) & mask
        while true {
            let slot = buckets[i]
            if slot == -1 { return nil }
            if slot >= 0 && ids[Int(slot)] == id { return slot }
            i = (i + 1) & mask
        }
    }

    /// Adds a slot whose id (`ids[slot]`) is not in the table.
    ///
    /// - Complexity: O(1) amortized.
    mutating func insert(_ slot: Int32, ids: [String]) {
        if (count + tombstones + 1) * 2 > buckets.count { rehash(capacity: max(16, (count + 1) * 4), ids: ids) }
        let mask = buckets.count - 1
        var i = Self.hash(ids[Int(slot)]) & mask
        while buckets[i] >= 0 { i = (i + 1) & mask }
        if buckets[i] == -2 { tombstones -= 1 }
        buckets[i] = slot
        count += 1
    }

    /// Removes the entry of `id`.
    ///
    /// - Complexity: O(1) expected.
    mutating func remove(_ id: String, ids: [String]) {
        let mask = buckets.count - 1
        var i = Self.hash(id) & mask
        while buckets[i] != -1 {
            let slot = buckets[i]
            if slot >= 0 && ids[Int(slot)] == id {
                buckets[i] = -2
                count -= 1
                tombstones += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Makes room for `additional` more ids without rehashing.
    mutating func reserveCapacity(_ additional: Int, ids: [String]) {
        if (count + additional) * 2 > buckets.count { rehash(capacity: (count + additional) * 2, ids: ids) }
    }

    private mutating func rehash(capacity: Int, ids: [String]) {
        var size = 16
        while size < capacity { size <<= 1 }
        let old = buckets
        buckets = [Int32](repeating: -1, count: size)
        tombstones = 0
        let mask = size - 1
        for slot in old where slot >= 0 {
            var i = Self.hash(ids[Int(slot)]) & mask
            while buckets[i] != -1 { i = (i + 1) & mask }
            buckets[i] = slot
        }
    }

    var memoryFootprint: Int { 4 * buckets.capacity }
}
