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

    /// The hash of an id, as the table uses it (bulk inserts compute it on all cores).
    ///
    /// - Complexity: O(*n*) in the id's length.
    static func hash(_ id: String) -> Int {
        var id = id
        return id.withUTF8 { hash($0) }
    }

    private static func hash(slot: Int32, in ids: TextColumn) -> Int { ids.withUTF8(slot) { hash($0) } }

    /// The slot holding `id`, where `ids[slot]` reads a slot's id.
    ///
    /// - Complexity: O(1) expected.
    func slot(of id: String, ids: TextColumn) -> Int32? { slot(of: id, hash: Self.hash(id), ids: ids) }

    /// The slot holding `id`, whose hash (`IDTable.hash(_:)`) is known.
    ///
    /// - Complexity: O(1) expected.
    func slot(of id: String, hash: Int, ids: TextColumn) -> Int32? {
        let mask = buckets.count - 1
        var i = hash & mask
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

    /// Makes room for `additional` more slots without rehashing (and without growing while
    /// `insert(slots:hashes:)` adds them), rehashing now if needed.
    ///
    /// - Complexity: O(1), or O(*n*) when it rehashes.
    mutating func prepareToInsert(_ additional: Int, ids: TextColumn) {
        if (count + tombstones + additional) * 2 > buckets.count {
            rehash(capacity: max(16, (count + additional) * 4), ids: ids)
        }
    }

    /// Adds slots whose ids are not in the table (nor twice among them), given the ids' hashes,
    /// after `prepareToInsert(_:ids:)` made room for them. They are placed in bucket order (after
    /// a counting sort of their hashes), so that the probes walk the table sequentially instead
    /// of missing the cache once per id; no id is compared.
    ///
    /// - Complexity: O(*n*) expected, with sequential memory access.
    mutating func insert(slots: UnsafeBufferPointer<Int32>, hashes: UnsafeBufferPointer<Int>) {
        precondition(slots.count == hashes.count && (count + tombstones + slots.count) * 2 <= buckets.count)
        let n = slots.count
        guard n > 0 else { return }
        let mask = buckets.count - 1
        var groupBits = 0
        while groupBits < mask.nonzeroBitCount && (1 << groupBits) < n { groupBits += 1 }
        let shift = mask.nonzeroBitCount - groupBits
        var starts = [Int32](repeating: 0, count: (1 << groupBits) + 1)
        for hash in hashes { starts[((hash & mask) >> shift) + 1] += 1 }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        var ordered = [Int32](repeating: 0, count: n)
        for (entry, hash) in hashes.enumerated() {
            let group = (hash & mask) >> shift
            ordered[Int(starts[group])] = Int32(entry)
            starts[group] += 1
        }
        var emptied = 0
        buckets.withUnsafeMutableBufferPointer { buckets in
            for entry in ordered {
                var i = hashes[Int(entry)] & mask
                while buckets[i] >= 0 { i = (i + 1) & mask }
                if buckets[i] == -2 { emptied += 1 }
                buckets[i] = slots[Int(entry)]
            }
        }
        tombstones -= emptied
        count += n
    }

    /// The first of a list of ids that repeats an earlier one, given their hashes
    /// (`IDTable.hash(_:)`) and a byte-wise comparison of two of them; nil when they are distinct.
    /// The ids are partitioned by hash (counting sort), then each partition checked with a small
    /// table that stays in cache.
    ///
    /// - Complexity: O(*n*) expected.
    static func firstRepeat(hashes: UnsafeBufferPointer<Int>, sameID: (Int, Int) -> Bool) -> Int? {
        let n = hashes.count
        guard n > 1 else { return nil }
        var partitionBits = 0
        while partitionBits < 16 && (1 << partitionBits) * 1024 < n { partitionBits += 1 }
        @inline(__always) func partition(_ hash: Int) -> Int {
            partitionBits == 0 ? 0 : Int(truncatingIfNeeded: UInt64(bitPattern: Int64(hash)) >> UInt64(64 - partitionBits))
        }
        var starts = [Int](repeating: 0, count: (1 << partitionBits) + 1)
        for hash in hashes { starts[partition(hash) + 1] += 1 }
        var largest = 0
        for i in 1..<starts.count {
            largest = max(largest, starts[i])
            starts[i] += starts[i - 1]
        }
        var ordered = [Int32](repeating: 0, count: n)
        var cursors = starts
        for (index, hash) in hashes.enumerated() {
            let p = partition(hash)
            ordered[cursors[p]] = Int32(index)
            cursors[p] += 1
        }
        var size = 16
        while size < largest * 2 { size <<= 1 }
        var tableIndices = [Int32](repeating: -1, count: size)
        var tableHashes = [Int](repeating: 0, count: size)
        var first: Int? = nil
        for p in 0..<(starts.count - 1) where starts[p] < starts[p + 1] {
            var size = 16
            while size < (starts[p + 1] - starts[p]) * 2 { size <<= 1 }
            let mask = size - 1
            for i in 0..<size { tableIndices[i] = -1 }
            search: for k in starts[p]..<starts[p + 1] {
                let index = Int(ordered[k])
                if let found = first, index >= found { break }
                let hash = hashes[index]
                var i = hash & mask
                while tableIndices[i] >= 0 {
                    if tableHashes[i] == hash && sameID(Int(tableIndices[i]), index) {
                        first = index
                        break search
                    }
                    i = (i + 1) & mask
                }
                tableIndices[i] = Int32(index)
                tableHashes[i] = hash
            }
        }
        return first
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
