internal import CSiftKernels

/// Finds a record's slot by its id: open addressing over slot numbers, the ids themselves living
/// in the index's `ids` column. Five bytes per bucket (a slot and an eight-bit tag of the id's
/// hash) instead of a `Dictionary<String, Int32>`'s key copies and metadata.
///
/// The bucket count is not a power of two: a hash's home bucket is its multiply-high range
/// reduction (`hash × buckets / 2⁶⁴`, monotone in the hash), then linear probing with
/// wrap-around. So the table can be sized for its load: a bulk load (`bulk(count:ids:)`, or
/// `prepareToInsert(_:ids:)` then `insert(slots:hashes:)`) leaves it `targetLoad` (70%) full,
/// 7.1 bytes an id. One-by-one inserts may take it up to `maxLoad` (80%, tombstones included);
/// past that, it grows by half (or, when tombstones took the room, is rebuilt for the target load).
package struct IDTable {
    /// An empty table.
    package init() {}

    package private(set) var buckets = [Int32](repeating: -1, count: 16)
    /// Per bucket, eight bits of its id's hash (`tag(_:)`): a probe compares ids, which reads the
    /// id column (a cache miss), only when the tags are equal.
    package private(set) var tags = [UInt8](repeating: 0, count: 16)
    package private(set) var count = 0
    /// Buckets emptied by a removal: -2 (a tombstone keeps probe chains intact).
    package private(set) var tombstones = 0

    /// How full a bulk load or a rebuild leaves the table.
    package static let targetLoad = (numerator: 7, denominator: 10)
    /// How full the table may get (entries and tombstones) before it is rebuilt.
    package static let maxLoad = (numerator: 4, denominator: 5)

    /// The bucket count that holds `entries` at `targetLoad` (16 at least).
    package static func bucketCount(for entries: Int) -> Int {
        max(16, (entries * targetLoad.denominator + targetLoad.numerator - 1) / targetLoad.numerator)
    }

    /// How many entries and tombstones `buckets` buckets may hold.
    private static func maxEntries(_ buckets: Int) -> Int { buckets * maxLoad.numerator / maxLoad.denominator }

    /// The home bucket of a hash among `buckets` buckets: the high half of `hash × buckets`.
    @inline(__always)
    private static func home(_ hash: Int, _ buckets: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: hash).multipliedFullWidth(by: UInt64(buckets)).high)
    }

    /// The tag of a hash: its low byte (the home bucket comes from its high bits).
    @inline(__always)  // a truncation
    @inlinable
    package static func tag(_ hash: Int) -> UInt8 { UInt8(truncatingIfNeeded: hash) }

    /// Number of buckets (for tests: the load is `count / bucketCount`).
    package var bucketCount: Int { buckets.count }

    /// A per-process random seed, so that crafted ids cannot be made to collide.
    private static let seed = UInt64.random(in: 0...UInt64.max)

    /// The hash of an id's UTF-8 bytes (the same for a `String` and for the stored bytes): a fast
    /// seeded 64-bit mix, since loading a million-record snapshot hashes every id.
    package static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = utf8.baseAddress else { return Int(truncatingIfNeeded: seed) }
        return Int(truncatingIfNeeded: sift_checksum(base, utf8.count, seed))
    }

    /// The hash of an id, as the table uses it (bulk inserts compute it on all cores).
    ///
    /// - Complexity: O(*n*) in the id's length.
    package static func hash(_ id: String) -> Int {
        var id = id
        return id.withUTF8 { hash($0) }
    }

    package static func hash(slot: Int32, in ids: TextColumn) -> Int { ids.withUTF8(slot) { hash($0) } }

    /// The slot holding `id`, where `ids[slot]` reads a slot's id.
    ///
    /// - Complexity: O(1) expected.
    @inlinable
    package func slot(of id: String, ids: TextColumn) -> Int32? { slot(of: id, hash: Self.hash(id), ids: ids) }

    /// The slot holding `id`, whose hash (`IDTable.hash(_:)`) is known.
    ///
    /// - Complexity: O(1) expected.
    @inlinable
    package func slot(of id: String, hash: Int, ids: TextColumn) -> Int32? {
        let size = buckets.count
        let tag = Self.tag(hash)
        var i = Self.home(hash, size)
        while true {
            let slot = buckets[i]
            if slot == -1 { return nil }
            if slot >= 0 && tags[i] == tag && ids.equals(slot, id) { return slot }
            i += 1
            if i == size { i = 0 }
        }
    }

    /// Adds a slot whose id (`ids[slot]`) is not in the table. Past `maxLoad`, the table grows by
    /// half (or is rebuilt at its size for the target load when tombstones took the room).
    ///
    /// - Complexity: O(1) amortized.
    package mutating func insert(_ slot: Int32, ids: TextColumn) {
        if count + tombstones + 1 > Self.maxEntries(buckets.count) {
            var size = Self.bucketCount(for: count + 1)
            if count + 1 > Self.maxEntries(buckets.count) { size = max(size, buckets.count + buckets.count / 2) }
            rehash(bucketCount: size, ids: ids)
        }
        let size = buckets.count
        let hash = Self.hash(slot: slot, in: ids)
        var i = Self.home(hash, size)
        while buckets[i] >= 0 {
            i += 1
            if i == size { i = 0 }
        }
        if buckets[i] == -2 { tombstones -= 1 }
        buckets[i] = slot
        tags[i] = Self.tag(hash)
        count += 1
    }

    /// Makes room for `additional` more slots without rehashing (and without growing while
    /// `insert(slots:hashes:)` adds them). When they would take the table past `maxLoad`, it is
    /// rebuilt now, sized so that it is `targetLoad` full once they are in: pass the whole load
    /// (a bulk insert does, before its first batch).
    ///
    /// - Complexity: O(1), or O(*n*) when it rebuilds; every rebuild leaves room for a tenth of
    ///   the table more, so a series of calls costs O(1) amortized per slot.
    package mutating func prepareToInsert(_ additional: Int, ids: TextColumn) {
        if count + tombstones + additional > Self.maxEntries(buckets.count) {
            rehash(bucketCount: Self.bucketCount(for: count + additional), ids: ids)
        }
    }

    /// Adds slots whose ids are not in the table (nor twice among them), given the ids' hashes,
    /// after `prepareToInsert(_:ids:)` made room for them. They are placed in home bucket order
    /// (after a counting sort by their hashes' high bits, which orders home buckets too), so that
    /// the probes walk the table sequentially instead of missing the cache once per id; no id is
    /// compared.
    ///
    /// - Complexity: O(*n*) expected, with sequential memory access.
    package mutating func insert(slots: UnsafeBufferPointer<Int32>, hashes: UnsafeBufferPointer<Int>) {
        precondition(slots.count == hashes.count && count + tombstones + slots.count <= Self.maxEntries(buckets.count))
        let n = slots.count
        guard n > 0 else { return }
        let size = buckets.count
        var groupBits = 0
        while groupBits < 24 && (1 << groupBits) < n { groupBits += 1 }
        @inline(__always) func group(_ hash: Int) -> Int {
            groupBits == 0 ? 0 : Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: hash) >> UInt64(64 - groupBits))
        }
        var starts = [Int32](repeating: 0, count: (1 << groupBits) + 1)
        for hash in hashes { starts[group(hash) + 1] += 1 }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        var ordered = [Int32](repeating: 0, count: n)
        for (entry, hash) in hashes.enumerated() {
            let g = group(hash)
            ordered[Int(starts[g])] = Int32(entry)
            starts[g] += 1
        }
        var emptied = 0
        buckets.withUnsafeMutableBufferPointer { buckets in
            tags.withUnsafeMutableBufferPointer { tags in
                for entry in ordered {
                    var i = Self.home(hashes[Int(entry)], size)
                    while buckets[i] >= 0 {
                        i += 1
                        if i == size { i = 0 }
                    }
                    if buckets[i] == -2 { emptied += 1 }
                    buckets[i] = slots[Int(entry)]
                    tags[i] = Self.tag(hashes[Int(entry)])
                }
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
    @inlinable
    package static func firstRepeat(hashes: UnsafeBufferPointer<Int>, sameID: (Int, Int) -> Bool) -> Int? {
        let n = hashes.count
        guard n > 1 else { return nil }
        var partitionBits = 0
        while partitionBits < 16 && (1 << partitionBits) * 1024 < n { partitionBits += 1 }
        @inline(__always) func partition(_ hash: Int) -> Int {
            partitionBits == 0
                ? 0 : Int(truncatingIfNeeded: UInt64(bitPattern: Int64(hash)) >> UInt64(64 - partitionBits))
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

    /// A table of slots `0..<count` (loading a snapshot), `targetLoad` full, or nil when two
    /// slots have the same id. The slots are inserted in home bucket order (after a counting sort),
    /// so that the probes walk the table sequentially instead of missing the cache once per id;
    /// the tags, walked sequentially beside the buckets, spare comparing ids except when they are
    /// equal.
    ///
    /// - Complexity: O(*n*) expected, with sequential memory access.
    package static func bulk(count: Int, ids: TextColumn) -> IDTable? {
        var table = IDTable()
        let size = bucketCount(for: count)
        table.buckets = [Int32](repeating: -1, count: size)
        table.tags = [UInt8](repeating: 0, count: size)
        var shift = 0
        while (size - 1) >> shift >= 1 << 16 { shift += 1 }
        var hashes = [Int](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: ((size - 1) >> shift) + 2)
        for slot in 0..<count {
            let hash = hash(slot: Int32(slot), in: ids)
            hashes[slot] = hash
            counts[(home(hash, size) >> shift) + 1] += 1
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var ordered = [Int32](repeating: 0, count: count)
        for slot in 0..<count {
            let group = home(hashes[slot], size) >> shift
            ordered[counts[group]] = Int32(slot)
            counts[group] += 1
        }
        counts = []
        let duplicate = table.buckets.withUnsafeMutableBufferPointer { buckets in
            table.tags.withUnsafeMutableBufferPointer { tags in
                for slot in ordered {
                    let hash = hashes[Int(slot)]
                    let tag = Self.tag(hash)
                    var i = home(hash, size)
                    while buckets[i] >= 0 {
                        if tags[i] == tag
                            && ids.withUTF8(slot, { id in ids.withUTF8(buckets[i]) { $0.elementsEqual(id) } })
                        {
                            return true
                        }
                        i += 1
                        if i == size { i = 0 }
                    }
                    buckets[i] = slot
                    tags[i] = tag
                }
                return false
            }
        }
        if duplicate { return nil }
        table.count = count
        return table
    }

    /// Removes the entry of `id`, leaving a tombstone.
    ///
    /// - Complexity: O(1) expected.
    package mutating func remove(_ id: String, ids: TextColumn) {
        let size = buckets.count
        let hash = Self.hash(id)
        let tag = Self.tag(hash)
        var i = Self.home(hash, size)
        while buckets[i] != -1 {
            let slot = buckets[i]
            if slot >= 0 && tags[i] == tag && ids.equals(slot, id) {
                buckets[i] = -2
                count -= 1
                tombstones += 1
                return
            }
            i += 1
            if i == size { i = 0 }
        }
    }

    /// Rebuilds the table with `bucketCount` buckets and no tombstones.
    ///
    /// - Complexity: O(*n*) for *n* buckets, old and new.
    private mutating func rehash(bucketCount size: Int, ids: TextColumn) {
        precondition(count <= Self.maxEntries(size))
        let old = buckets
        buckets = [Int32](repeating: -1, count: size)
        tags = [UInt8](repeating: 0, count: size)
        tombstones = 0
        for slot in old where slot >= 0 {
            let hash = Self.hash(slot: slot, in: ids)
            var i = Self.home(hash, size)
            while buckets[i] != -1 {
                i += 1
                if i == size { i = 0 }
            }
            buckets[i] = slot
            tags[i] = Self.tag(hash)
        }
    }

    /// Heap bytes of the buckets and tags: five a bucket, 7.1 an id after a bulk load.
    package var memoryFootprint: Int { 4 * buckets.capacity + tags.capacity }
}
