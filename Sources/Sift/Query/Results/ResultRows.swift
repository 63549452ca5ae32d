internal import CSiftKernels
internal import SiftStorage
internal import Synchronization

/// The rows of a search result: a list of handles, or groups of slots whose handles are made
/// when they are read.
///
/// A result in original order while that order follows slot numbers (a bulk load, appends) is a
/// bitset (or a few, one after the other): row *i* is a member of one of them, found by a select
/// over the bitset's words. Keeping it so spares a keystroke that matches most of
/// the records from writing a handle per match (a 788,000-row answer was half a millisecond of
/// handles, and as much again in page faults). The handles are made at once when generations
/// are counted (a slot was given to a new record: a handle then needs its slot's generation as
/// of the search), and whenever the whole list is asked for. Ranked results in that order are
/// their ranking groups, each ordered by field length when one of its rows is first read
/// (`RankedRowGroups`).
struct ResultRows: Sendable {
    private enum Storage: Sendable {
        case handles([RecordHandle])
        case groups(ResultRowGroups)
        case order(OrderRows)
        case ranked(RankedRowGroups)
        case orderSubset(OrderSubsetRows)
    }

    private var storage: Storage

    /// Rows given as handles.
    init(_ handles: [RecordHandle] = []) { storage = .handles(handles) }

    /// Rows made from `groups` when read: the members of each group, ascending, one group after
    /// the other; every handle is its slot and `tag` (no generation counted).
    init(groups: [(bits: Bitset, count: Int)], tag: UInt32) {
        storage = .groups(ResultRowGroups(groups.filter { $0.count > 0 }, tag: tag))
    }

    /// Ranked rows kept as their ranking groups, each put in order when one of its rows is first
    /// read (see `RankedRowGroups`).
    init(ranked: RankedRowGroups) { storage = .ranked(ranked) }

    /// The members of `bits` in an index's order (in blocks: its sorted order), kept as their
    /// positions in it (`SlotsInOrder.positions(of:)`): row *i* is a select over the positions.
    init(subsetOf order: SlotsInOrder, members bits: Bitset, generations: SlotGenerations?, tag: UInt32) {
        storage = .orderSubset(OrderSubsetRows(order, members: bits, generations: generations, tag: tag))
    }

    /// Every record of an index's order (its original or sorted `SlotSequence`), read from the
    /// sequence's own storage: an original table shares the index's order instead of copying it.
    /// `generations`, when the index counts them, is a snapshot of them (shared too: the index's
    /// next reuse or update of a slot copies them while these rows live).
    init(order: SlotsInOrder, generations: SlotGenerations?, tag: UInt32) {
        storage = .order(OrderRows(order, generations: generations, tag: tag))
    }

    /// Number of rows.
    ///
    /// - Complexity: O(1).
    var count: Int {
        switch storage {
        case .handles(let handles): return handles.count
        case .groups(let groups): return groups.count
        case .order(let order): return order.slots.count
        case .ranked(let ranked): return ranked.count
        case .orderSubset(let subset): return subset.count
        }
    }

    /// Whether the handles are still to be made (for tests and tools).
    var isDeferred: Bool {
        if case .handles = storage { return false }
        return true
    }

    /// Whether the rows are an index's order read in place (`init(order:tag:)`).
    var isIndexOrder: Bool {
        if case .order = storage { return true }
        return false
    }

    /// Whether `deferredRowNumber(of:)` finds a row without a map of the rows (groups of slots).
    var findsRowNumbers: Bool {
        switch storage {
        case .groups, .ranked: return true
        case .handles, .order, .orderSubset: return false
        }
    }

    /// Heap bytes these rows hold of their own: handles made, groups' bitsets (not an index's
    /// order or ranking keys, which they share with the index while it does not change).
    ///
    /// - Complexity: O(*g*) for *g* groups.
    var memoryFootprint: Int {
        switch storage {
        case .handles(let handles): return 8 * handles.capacity
        case .groups(let groups): return groups.memoryFootprint
        case .order: return 0
        case .ranked(let ranked): return ranked.memoryFootprint
        case .orderSubset(let subset): return subset.memoryFootprint
        }
    }

    /// Every row's handle, in order.
    ///
    /// - Complexity: O(1) for rows given as handles; for groups, O(*n* / 64 + *m*) the first time
    ///   (the list is then kept), for *m* rows in a universe of *n* slots.
    var handles: [RecordHandle] {
        switch storage {
        case .handles(let handles): return handles
        case .groups(let groups): return groups.handles
        case .order(let order): return order.handles
        case .ranked(let ranked): return ranked.handles
        case .orderSubset(let subset): return subset.handles
        }
    }

    /// The handle of row `number`.
    ///
    /// - Precondition: `number` is in `0..<count`.
    /// - Complexity: O(1) for handles; O(log *g* + log *n*) for *g* groups, after a first read that
    ///   makes the groups' rank directories, O(*n* / 64) per group; O(log *g*) for ranked groups,
    ///   after a first read in a group that orders it, O(*n* / 64 + *m*).
    func handle(at number: Int) -> RecordHandle {
        switch storage {
        case .handles(let handles): return handles[number]
        case .groups(let groups): return groups.handle(at: number)
        case .order(let order): return order.handle(at: number)
        case .ranked(let ranked): return ranked.handle(at: number)
        case .orderSubset(let subset): return subset.handle(at: number)
        }
    }

    /// The number of the row holding `handle`, or nil, for rows still to be made (`isDeferred`).
    ///
    /// - Precondition: `findsRowNumbers`.
    /// - Complexity: O(*g* + log *n*) for *g* groups, after a first read as `handle(at:)`.
    func deferredRowNumber(of handle: RecordHandle) -> Int? {
        switch storage {
        case .groups(let groups): return groups.rowNumber(of: handle)
        case .ranked(let ranked): return ranked.rowNumber(of: handle)
        case .handles, .order, .orderSubset: preconditionFailure("rows are not groups of slots")
        }
    }

    /// Calls `body` with the rows as a list of handles to change in place (made first if they were
    /// not).
    ///
    /// - Complexity: O(1) plus `body` for handles that are not shared; else a copy first, O(*m*).
    mutating func withHandles<R>(_ body: (inout [RecordHandle]) throws -> R) rethrows -> R {
        var handles = self.handles
        storage = .handles([])
        defer { storage = .handles(handles) }
        return try body(&handles)
    }
}

/// Groups of slots behind a `ResultRows`, with their rank directories and handle list made on
/// first use and shared by every copy.
final class ResultRowGroups: Sendable {
    private let groups: [Bitset]
    /// The row number of each group's first member, then the number of rows.
    private let starts: [Int]
    private let tag: UInt32
    /// Per group, `sift_bits_block_ranks` of its words.
    private let directories = Mutex<[[UInt32]]?>(nil)
    private let list = Mutex<[RecordHandle]?>(nil)

    init(_ groups: [(bits: Bitset, count: Int)], tag: UInt32) {
        // Rows are read from the words (a sparse group, rare this broad, becomes dense once).
        self.groups = groups.map {
            var bits = $0.bits
            bits.makeDense()
            return bits
        }
        var starts = [0]
        for group in groups { starts.append(starts.last! + group.count) }
        self.starts = starts
        self.tag = tag
    }

    var count: Int { starts.last! }

    var memoryFootprint: Int {
        groups.reduce(0) { $0 + $1.memoryFootprint } + list.withSanitizerVisibleLock { 8 * ($0?.capacity ?? 0) }
    }

    var handles: [RecordHandle] {
        list.withSanitizerVisibleLock { list in
            if let list { return list }
            let made = makeHandles()
            list = made
            return made
        }
    }

    private func makeHandles() -> [RecordHandle] {
        let total = count
        guard total > 0 else { return [] }  // no empty unsafeUninitializedCapacity (see SnapshotReader.readArray)
        return [RecordHandle](unsafeUninitializedCapacity: total) { buffer, initialized in
            // A handle is its slot and its generation, two 32-bit values, as the kernel writes them.
            UnsafeMutableRawPointer(buffer.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: 2 * total) {
                pairs in
                for group in groups {
                    initialized += group.words.withUnsafeBufferPointer { words in
                        sift_bits_to_handles(words.baseAddress!, words.count, nil, tag, pairs + 2 * initialized)
                    }
                }
            }
            precondition(initialized == total, "a group's count is its bitset's")
        }
    }

    private func withDirectories<R>(_ body: ([[UInt32]]) -> R) -> R {
        let directories = self.directories.withSanitizerVisibleLock { directories in
            if let directories { return directories }
            let made = groups.map { $0.blockRanks() }
            directories = made
            return made
        }
        return body(directories)
    }

    func handle(at number: Int) -> RecordHandle {
        precondition(number >= 0 && number < count, "row \(number) of \(count)")
        let group = groupIndex(ofRow: number, starts: starts)
        let slot = withDirectories { groups[group].select(number - starts[group], ranks: $0[group]) }
        return RecordHandle(slot: Int32(slot), generation: tag)
    }

    func rowNumber(of handle: RecordHandle) -> Int? {
        guard handle.generation == tag,
            let group = groups.firstIndex(where: { $0.contains(handle.slot) })
        else { return nil }
        return withDirectories { directories in
            groups[group].words.withUnsafeBufferPointer { words in
                directories[group].withUnsafeBufferPointer { ranks in
                    starts[group]
                        + sift_bits_rank(words.baseAddress!, words.count, ranks.baseAddress!, Int(handle.slot))
                }
            }
        }
    }
}

/// An index's order behind a `ResultRows`, with the handle list made on first use and shared by
/// every copy.
final class OrderRows: Sendable {
    let slots: SlotsInOrder
    private let generations: SlotGenerations?
    private let tag: UInt32
    private let list = Mutex<[RecordHandle]?>(nil)

    init(_ slots: SlotsInOrder, generations: SlotGenerations?, tag: UInt32) {
        self.slots = slots
        self.generations = generations
        self.tag = tag
    }

    func handle(at position: Int) -> RecordHandle {
        let slot = slots[position]
        return RecordHandle(slot: slot, generation: tag | (generations?[slot] ?? 0))
    }

    var handles: [RecordHandle] {
        list.withSanitizerVisibleLock { list in
            if let list { return list }
            let (tag, generations) = (self.tag, self.generations)
            let made = slots.slots.map { RecordHandle(slot: $0, generation: tag | (generations?[$0] ?? 0)) }
            list = made
            return made
        }
    }
}

/// The members of a set in an index's order behind a `ResultRows`, kept as their positions in
/// that order: a sorted answer that matches millions is one pass over the order writing a bit
/// per entry, not a list of millions of handles before a table shows its first screen. The rank
/// directory and the handle list are made on first use and shared by every copy.
final class OrderSubsetRows: Sendable {
    private let order: SlotsInOrder
    private let members: Bitset
    private let positions: Bitset
    let count: Int
    private let generations: SlotGenerations?
    private let tag: UInt32
    private let ranks = Mutex<[UInt32]?>(nil)
    private let list = Mutex<[RecordHandle]?>(nil)

    /// - Complexity: O(*n*) for *n* slots in the order (`SlotsInOrder.positions(of:)`).
    init(_ order: SlotsInOrder, members: Bitset, generations: SlotGenerations?, tag: UInt32) {
        self.order = order
        var members = members
        members.makeDense()
        self.members = members
        (positions, count) = order.positions(of: members)
        self.generations = generations
        self.tag = tag
    }

    var memoryFootprint: Int {
        members.memoryFootprint + positions.memoryFootprint + 4 * (ranks.withSanitizerVisibleLock { $0?.capacity ?? 0 })
            + 8 * (list.withSanitizerVisibleLock { $0?.capacity ?? 0 })
    }

    /// - Complexity: O(log *b*) for *b* blocks of the order, after a first read that makes the
    ///   rank directory, O(*n* / 64).
    func handle(at number: Int) -> RecordHandle {
        precondition(number >= 0 && number < count, "row \(number) of \(count)")
        let position = ranks.withSanitizerVisibleLock { ranks in
            if ranks == nil { ranks = positions.blockRanks() }
            return positions.select(number, ranks: ranks!)
        }
        let slot = order[position]
        return RecordHandle(slot: slot, generation: tag | (generations?[slot] ?? 0))
    }

    /// - Complexity: O(*n*) the first time for *n* slots in the order; O(1) after.
    var handles: [RecordHandle] {
        list.withSanitizerVisibleLock { list in
            if let list { return list }
            let (tag, generations) = (self.tag, self.generations)
            let made = order.members(of: members, count: count).map {
                RecordHandle(slot: $0, generation: tag | (generations?[$0] ?? 0))
            }
            list = made
            return made
        }
    }
}

/// The group holding row `number`, for groups whose first rows are `starts` (ascending, then the
/// row count).
///
/// - Complexity: O(log *g*) for *g* groups.
func groupIndex(ofRow number: Int, starts: [Int]) -> Int {
    var low = 0
    var high = starts.count - 2
    while low < high {
        let middle = (low + high + 1) / 2
        if starts[middle] <= number { low = middle } else { high = middle - 1 }
    }
    return low
}

extension Bitset {
    /// The words' rank directory (`sift_bits_block_ranks`), which `select(_:ranks:)` reads.
    ///
    /// - Complexity: O(*n* / 64).
    func blockRanks() -> [UInt32] {
        words.withUnsafeBufferPointer { words in
            [UInt32](unsafeUninitializedCapacity: (words.count + 7) / 8 + 1) { out, initialized in
                if let base = words.baseAddress {
                    sift_bits_block_ranks(base, words.count, out.baseAddress!)
                } else {
                    out[0] = 0
                }
                initialized = (words.count + 7) / 8 + 1
            }
        }
    }

    /// The member numbered `k` (from 0, ascending), given the rank directory `blockRanks()`.
    ///
    /// - Complexity: O(log *n*).
    func select(_ k: Int, ranks: [UInt32]) -> Int {
        words.withUnsafeBufferPointer { words in
            ranks.withUnsafeBufferPointer { ranks in
                sift_bits_select(words.baseAddress!, words.count, ranks.baseAddress!, k)
            }
        }
    }
}
