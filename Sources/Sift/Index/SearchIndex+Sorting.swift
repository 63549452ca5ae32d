internal import Dispatch

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

extension SearchIndex {
    /// One record's place in the sort: its section, the first eight bytes of its sort key (big
    /// endian, so that comparing them compares the bytes), and where its whole key is.
    private struct SortEntry {
        var prefix: UInt64
        var keyStart: Int
        var keyLength: Int32
        var slot: Int32
        var section: UInt16
    }

    /// The live slots in the order `sorted` keeps (section, then sort key of the sort field, ties
    /// by id), and the section of every slot.
    ///
    /// The collation work, an ICU sort key and an AlphabeticIndex section per record, is divided
    /// among the cores, each worker with its own collator and alphabetic index (ICU's are not
    /// shared between threads); the sort then compares sections and eight-byte key prefixes as
    /// integers, and whole keys only where those tie.
    ///
    /// - Complexity: O(*n* log *n*) comparisons for *n* live records, after O(*s*) collation work
    ///   in the size of their sort field, divided among the cores.
    func sortedOrder() -> (slots: [Int32], sections: [UInt16]) {
        var slots: [Int32] = []
        slots.reserveCapacity(order.count)
        live.forEach { slots.append($0) }
        let n = slots.count
        let cores = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let workers = n >= 16_384 ? cores : 1
        // Worker 0 uses the index's own collator and alphabetic index; the others open theirs.
        let tools: [(ICUFolder, ICUAlphabeticIndex)?] = (0..<workers).map { worker in
            if worker == 0 { return (sortFolder, alphabeticIndex) }
            guard let folder = try? ICUFolder(ICUCollator(configuration.collation.sortingCollation)),
                let alphabetic = try? ICUAlphabeticIndex(locale: configuration.collation.locale)
            else { return nil }
            return (folder, alphabetic)
        }
        let chunk = (n + workers - 1) / max(1, workers)
        let results = WorkerResults<(keys: [UInt8], entries: [SortEntry])>(count: workers)
        let work = UncheckedWork { (worker: Int) in
            let (folder, alphabetic) = tools[worker] ?? (self.sortFolder, self.alphabeticIndex)
            let range = min(n, worker * chunk)..<min(n, (worker + 1) * chunk)
            var keys: [UInt8] = []
            keys.reserveCapacity(range.count * 24)
            var entries: [SortEntry] = []
            entries.reserveCapacity(range.count)
            for slot in slots[range] {
                let text = self.value(at: self.sortFieldPosition, slot: slot)
                let start = keys.count
                let length = folder.appendSortKey(text, to: &keys)
                var prefix: UInt64 = 0
                for i in 0..<8 { prefix = prefix << 8 | UInt64(i < length ? keys[start + i] : 0) }
                entries.append(
                    SortEntry(
                        prefix: prefix, keyStart: start, keyLength: Int32(length), slot: slot,
                        section: UInt16(clamping: alphabetic.bucket(of: text))))
            }
            results.set(worker, (keys, entries))
        }
        // Worker 0's tools are the index's: only one thread may use them, and with a worker
        // that failed to open its own, that worker's records wait for the serial pass below.
        let parallel = (1..<workers).filter { tools[$0] != nil }
        if parallel.isEmpty {
            work.run(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: parallel.count + 1) { i in work.run(i == 0 ? 0 : parallel[i - 1]) }
        }
        for worker in 1..<workers where tools[worker] == nil { work.run(worker) }

        var keys: [UInt8] = []
        var entries: [SortEntry] = []
        entries.reserveCapacity(n)
        for result in results.values {
            guard let result else { continue }
            let base = keys.count
            keys += result.keys
            entries += result.entries.map { entry in
                var entry = entry
                entry.keyStart += base
                return entry
            }
        }
        keys.withUnsafeBufferPointer { keys in
            let base = keys.baseAddress!
            entries.sort { a, b in
                if a.section != b.section { return a.section < b.section }
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let common = Int(min(a.keyLength, b.keyLength))
                if common > 8 {
                    let order = memcmp(base + a.keyStart + 8, base + b.keyStart + 8, common - 8)
                    if order != 0 { return order < 0 }
                }
                if a.keyLength != b.keyLength { return a.keyLength < b.keyLength }
                return self.idPrecedes(a.slot, b.slot)
            }
        }
        var sections = [UInt16](repeating: 0, count: generations.count)
        for entry in entries { sections[Int(entry.slot)] = entry.section }
        return (entries.map(\.slot), sections)
    }
}

/// One result per worker of a `concurrentPerform`, each slot written by its worker only, read
/// after every worker has returned.
private final class WorkerResults<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Called by worker `index` only, once.
    func set(_ index: Int, _ value: Value) { slots[index] = value }

    var values: [Value?] { Array(slots) }
}

/// A worker's job for `concurrentPerform`: it reads the index, which no one changes meanwhile
/// (the caller waits), and writes only its own `WorkerResults` slot.
private struct UncheckedWork: @unchecked Sendable {
    let run: (Int) -> Void
    init(_ run: @escaping (Int) -> Void) { self.run = run }
}
