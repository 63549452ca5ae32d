/// A map between record numbers (segment → owning slot, slot → segment) for the few records whose
/// folded segment is not numbered like their slot.
///
/// After a bulk load, a snapshot load or a compaction, segment *s* of every folded column belongs
/// to slot *s*, so these maps are empty and cost nothing. An update appends the record's new
/// segment at the end of the column, away from its slot number: only such records get an entry.
/// Open addressing with linear probing over interleaved key/value pairs, at most half full, so
/// that the C kernels probe it the same way (`sift_map_lookup` in CSiftKernels).
package struct SlotMap: Equatable {
    /// An empty map.
    package init() {}

    /// Key and value of each bucket, interleaved; a key of -1 marks an empty bucket. Empty, or a
    /// power of two buckets.
    package private(set) var entries: [Int32] = []
    /// Number of keys.
    package private(set) var count = 0

    /// Number of buckets.
    package var capacity: Int { entries.count / 2 }

    /// Heap bytes used.
    package var memoryFootprint: Int { 4 * entries.capacity }

    /// The home bucket of a key; the kernels compute the same.
    @inline(__always)  // arithmetic only
    private static func home(_ key: Int32, mask: Int) -> Int {
        Int(UInt32(bitPattern: key) &* 0x9E37_79B1) & mask
    }

    /// The value of `key`, or nil.
    ///
    /// - Complexity: O(1) expected.
    package subscript(key: Int32) -> Int32? {
        guard count > 0 else { return nil }
        let mask = capacity - 1
        var i = Self.home(key, mask: mask)
        while true {
            let stored = entries[2 * i]
            if stored == key { return entries[2 * i + 1] }
            if stored == -1 { return nil }
            i = (i + 1) & mask
        }
    }

    /// Sets the value of a key (≥ 0).
    ///
    /// - Complexity: O(1) amortized.
    package mutating func set(_ key: Int32, to value: Int32) {
        precondition(key >= 0)
        if (count + 1) * 2 > capacity { grow() }
        let mask = capacity - 1
        var i = Self.home(key, mask: mask)
        while entries[2 * i] != -1 && entries[2 * i] != key { i = (i + 1) & mask }
        if entries[2 * i] == -1 { count += 1 }
        entries[2 * i] = key
        entries[2 * i + 1] = value
    }

    /// Removes a key, if present (backward-shift deletion: no tombstones).
    ///
    /// - Complexity: O(1) expected.
    package mutating func remove(_ key: Int32) {
        guard count > 0 else { return }
        let mask = capacity - 1
        var hole = Self.home(key, mask: mask)
        while entries[2 * hole] != key {
            if entries[2 * hole] == -1 { return }
            hole = (hole + 1) & mask
        }
        count -= 1
        if count == 0 && capacity > 1024 {
            entries = []
            return
        }
        entries[2 * hole] = -1
        var next = hole
        while true {
            next = (next + 1) & mask
            let moved = entries[2 * next]
            if moved == -1 { return }
            let home = Self.home(moved, mask: mask)
            // The entry may fill the hole unless its home lies cyclically in (hole, next].
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if staysPut { continue }
            entries[2 * hole] = moved
            entries[2 * hole + 1] = entries[2 * next + 1]
            entries[2 * next] = -1
            hole = next
        }
    }

    /// Every key and value, in no particular order.
    package var pairs: [(key: Int32, value: Int32)] {
        stride(from: 0, to: entries.count, by: 2).compactMap {
            entries[$0] == -1 ? nil : (entries[$0], entries[$0 + 1])
        }
    }

    private mutating func grow() {
        let old = pairs
        entries = [Int32](repeating: -1, count: 2 * max(16, capacity * 2))
        count = 0
        for (key, value) in old { set(key, to: value) }
    }

    package static func == (a: SlotMap, b: SlotMap) -> Bool {
        a.count == b.count && a.pairs.allSatisfy { b[$0.key] == $0.value }
    }
}

extension SlotMap {
    /// Writes the map (see `PackedBytesWriter`).
    package func pack(into writer: inout PackedBytesWriter) {
        writer.write(count)
        writer.write(entries)
    }

    /// The map `pack(into:)` wrote.
    package init(unpacking reader: inout PackedBytesReader) {
        count = reader.readInt()
        entries = reader.readArray()
    }
}
