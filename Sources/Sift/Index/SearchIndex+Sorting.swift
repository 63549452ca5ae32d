internal import CSiftKernels
internal import Dispatch
internal import SiftStorage

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

extension SearchIndex {
    /// The live slots in the order `sorted` keeps (section, then sort key of the sort field, ties
    /// by id), and the section of every slot.
    ///
    /// The collation work, an ICU sort key and an AlphabeticIndex section per record, read from
    /// the column's UTF-8 in place, is divided among the cores, each worker with its own clone of
    /// the collator (a folder is not shared between threads) and all with the index's alphabetic
    /// index (ICU's `ImmutableIndex`, thread-safe). A radix sort then orders the
    /// records by section and the first six bytes of their key, packed in one integer, and only
    /// records that tie on those are compared by whole key (memcmp) and id.
    ///
    /// - Complexity: O(*n*) radix passes plus O(*t* log *t*) comparisons within runs of *t* tied
    ///   records, after O(*s*) collation work in the size of the sort field, divided among the
    ///   cores.
    func sortedOrder() -> (slots: [Int32], sections: [UInt16]) {
        var slots: [Int32] = []
        slots.reserveCapacity(orders.order.count)
        records.live.forEachMember { slots.append($0) }
        let n = slots.count
        let cores = ParallelWork.cores
        let workers = n >= 16_384 ? cores : 1
        // Worker 0 uses the index's own folder; the others clone theirs from its collator, and one
        // that cannot is done after the others, with the index's.
        let alphabetic = orders.alphabeticIndex
        let folders: [ICUFolder?] = (0..<workers).map { worker in
            worker == 0 ? orders.sortFolder : try? ICUFolder(orders.sortFolder.collator)
        }
        let chunk = (n + workers - 1) / workers
        let results = WorkerResults<SortKeys>(count: workers)
        let column =
            orders.sortFieldPosition < records.values.count ? records.values[orders.sortFieldPosition] : TextColumn()
        let work = UncheckedWork { worker in
            let folder = folders[worker] ?? self.orders.sortFolder
            let range = min(n, worker * chunk)..<min(n, (worker + 1) * chunk)
            let keys = SortKeys(expected: range.count)
            for position in range {
                let slot = slots[position]
                let id = self.records.ids.withUTF8(slot) { SortKeys.bigEndianPrefix($0) }
                column.withUTF8(slot) { utf8 in
                    keys.append(
                        position: Int32(position),
                        section: UInt16(clamping: alphabetic.bucket(utf8: utf8)),
                        id: id
                    ) { folder.sortKey(utf8: utf8, into: $0, capacity: $1) }
                }
            }
            results.set(worker, keys)
        }
        let parallel = (1..<workers).filter { folders[$0] != nil }
        if parallel.isEmpty {
            work.run(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: parallel.count + 1) { i in
                work.run(i == 0 ? 0 : parallel[i - 1])
            }
        }
        for worker in 1..<workers where folders[worker] == nil { work.run(worker) }

        // One flat copy of the workers' keys and records, for a comparator on plain buffers.
        let parts = results.values.compactMap { $0 }
        var keyBytes: [UInt8] = []
        keyBytes.reserveCapacity(parts.reduce(0) { $0 + $1.byteCount })
        var keyStarts: [Int] = []
        keyStarts.reserveCapacity(n + 1)
        var records: [(slot: Int32, section: UInt16, id: (prefix: UInt64, length: Int))] = []
        records.reserveCapacity(n)
        for part in parts {
            let base = keyBytes.count
            keyBytes.append(contentsOf: UnsafeBufferPointer(start: part.bytes, count: part.byteCount))
            for entry in 0..<part.count {
                keyStarts.append(base + part.starts[entry])
                records.append((slots[Int(part.positions[entry])], part.sections[entry], part.ids[entry]))
            }
        }
        keyStarts.append(keyBytes.count)

        // Radix sort by (section, first six key bytes); then the rest of the key and the id
        // where those tie.
        var packed = [UInt64](repeating: 0, count: n)
        var order = [Int32](repeating: 0, count: n)
        keyBytes.withUnsafeBufferPointer { keys in
            for i in 0..<n {
                let key = UnsafeBufferPointer(rebasing: keys[keyStarts[i]..<keyStarts[i + 1]])
                packed[i] = UInt64(records[i].section) << 48 | SortKeys.bigEndianPrefix(key).prefix >> 16
                order[i] = Int32(i)
            }
        }
        var keyScratch = [UInt64](repeating: 0, count: n)
        var valueScratch = [Int32](repeating: 0, count: n)
        sift_sort_by_key(&packed, &order, &keyScratch, &valueScratch, n)
        keyBytes.withUnsafeBufferPointer { keys in
            keyStarts.withUnsafeBufferPointer { starts in
                records.withUnsafeBufferPointer { records in
                    let base = keys.baseAddress!
                    func precedes(_ a: Int32, _ b: Int32) -> Bool {
                        let i = Int(a)
                        let j = Int(b)
                        let lengthA = starts[i + 1] - starts[i]
                        let lengthB = starts[j + 1] - starts[j]
                        let common = min(lengthA, lengthB)
                        if common > 6 {  // the first six bytes tie
                            let order = memcmp(base + starts[i] + 6, base + starts[j] + 6, common - 6)
                            if order != 0 { return order < 0 }
                        }
                        if lengthA != lengthB { return lengthA < lengthB }
                        let idA = records[i].id
                        let idB = records[j].id
                        if idA.prefix != idB.prefix { return idA.prefix < idB.prefix }
                        if idA.length <= 8 && idB.length <= 8 { return idA.length < idB.length }
                        return self.idPrecedes(records[i].slot, records[j].slot)
                    }
                    var start = 0
                    while start < n {
                        var end = start + 1
                        while end < n && packed[end] == packed[start] { end += 1 }
                        if end - start > 1 { order[start..<end].sort(by: precedes) }
                        start = end
                    }
                }
            }
        }
        var sections = [UInt16](repeating: 0, count: self.records.generations.count)
        var sortedSlots = [Int32](repeating: 0, count: n)
        for (rank, i) in order.enumerated() {
            let record = records[Int(i)]
            sortedSlots[rank] = record.slot
            sections[Int(record.slot)] = record.section
        }
        return (sortedSlots, sections)
    }
}

/// One worker's sort keys, back to back in one growing buffer, with each record's position in
/// the list being sorted and its section.
private final class SortKeys: @unchecked Sendable {
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var used = 0
    private(set) var starts: [Int] = []
    private(set) var positions: [Int32] = []
    private(set) var sections: [UInt16] = []
    /// Each record's id: its first eight bytes (see `bigEndianPrefix`) and its length.
    private(set) var ids: [(prefix: UInt64, length: Int)] = []

    init(expected: Int) {
        capacity = max(1024, expected * 24)
        bytes = .allocate(capacity: capacity)
        starts.reserveCapacity(expected + 1)
        positions.reserveCapacity(expected)
        sections.reserveCapacity(expected)
        ids.reserveCapacity(expected)
        starts.append(0)
    }

    deinit { bytes.deallocate() }

    var count: Int { positions.count }
    var byteCount: Int { used }

    /// Appends one record's key, written by `write(pointer, room)`, which returns the key's
    /// length (more than `room` when it did not fit).
    func append(
        position: Int32,
        section: UInt16,
        id: (prefix: UInt64, length: Int),
        write: (UnsafeMutablePointer<UInt8>, Int) -> Int
    ) {
        var length = write(bytes + used, capacity - used)
        if length > capacity - used {
            grow(toHold: length)
            length = write(bytes + used, capacity - used)
        }
        used += length
        starts.append(used)
        positions.append(position)
        sections.append(section)
        ids.append(id)
    }

    private func grow(toHold length: Int) {
        let newCapacity = max(capacity * 2, used + length + 1024)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: bytes, count: used)
        bytes.deallocate()
        bytes = grown
        capacity = newCapacity
    }

    /// The first eight bytes of `bytes` as a big-endian integer (zeros past its end), so that
    /// comparing two of them compares the bytes; and the length.
    static func bigEndianPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> (prefix: UInt64, length: Int) {
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
        return (value, bytes.count)
    }
}
