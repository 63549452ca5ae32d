internal import CSiftKernels
internal import Dispatch
internal import SiftStorage
internal import Synchronization

/// Ranked rows behind a `ResultRows`, kept as their ranking groups and put in order only where
/// they are read.
///
/// Without a tie-break field and while the original order follows the slots, ranked order is:
/// the groups (best first), within each the group's deciding field shorter first, ties in slot
/// order. A keystroke that matches millions would write every one of them in that order before a
/// table showed its first screen (a quarter of a ranked `a` over 10M records). Here a group is
/// ordered the first time one of its rows is read (a count of its members per length, then one
/// pass that writes each where its length's rows start, on several threads for millions): a table
/// view reading its first screen orders the first, small groups (whole-field and field-start
/// matches) and leaves the large ones (matches inside words) as bitsets. The ordered groups are
/// shared by every copy.
///
/// The lengths and generations are the index's as of the search (arrays shared copy-on-write: an
/// edit while the rows live copies them once), so the order is the search's whatever happens
/// later.
final class RankedRowGroups: Sendable {
    /// One ranking group: its members and the lengths of its deciding field, by slot.
    struct Group: Sendable {
        var bits: Bitset
        var count: Int
        var lengths: [UInt8]
    }

    /// A group put in order: its handles (unless the whole list holds them) and where each
    /// length's rows start in it.
    private struct Ordered: Sendable {
        var handles: [RecordHandle]?
        /// `starts[l]..<starts[l + 1]` are the group's rows whose field has `l` elements.
        var starts: [Int]
    }

    private struct State: Sendable {
        var ordered: [Ordered?]
        /// Every row, once asked for; the groups' own handle lists are then dropped.
        var list: [RecordHandle]?
    }

    private let groups: [Group]
    /// The row number of each group's first member, then the number of rows.
    private let starts: [Int]
    private let generations: SlotGenerations?
    private let tag: UInt32
    /// A group of this many members or more per thread is ordered on several threads.
    private let membersPerThread: Int
    private let state: Mutex<State>

    /// Rows of `groups` (best first; empty ones are dropped) whose handles carry `tag` and, when
    /// given, each slot's generation.
    ///
    /// - Complexity: O(*g*) for *g* groups: nothing is ordered yet.
    init(_ groups: [Group], generations: SlotGenerations?, tag: UInt32, membersPerThread: Int) {
        self.groups = groups.filter { $0.count > 0 }
        var starts = [0]
        for group in self.groups { starts.append(starts.last! + group.count) }
        self.starts = starts
        self.generations = generations
        self.tag = tag
        self.membersPerThread = max(1, membersPerThread)
        state = Mutex(State(ordered: [Ordered?](repeating: nil, count: self.groups.count), list: nil))
    }

    /// Number of rows.
    var count: Int { starts.last! }

    /// Heap bytes of the groups' bitsets and the handles made (not the lengths, shared with the
    /// index while it does not change).
    var memoryFootprint: Int {
        groups.reduce(0) { $0 + $1.bits.memoryFootprint }
            + state.withSanitizerVisibleLock { state in
                state.ordered.reduce(8 * (state.list?.capacity ?? 0)) {
                    $0 + 8 * ($1?.handles?.capacity ?? 0) + 8 * ($1?.starts.capacity ?? 0)
                }
            }
    }

    /// Every row's handle, in order.
    ///
    /// - Complexity: O(*n* / 64 + *m*) per group not ordered yet, two passes (on several threads
    ///   for millions), for *m* members and *n* slots; O(*m*) copied for the groups already
    ///   ordered; O(1) after the first call.
    var handles: [RecordHandle] {
        state.withSanitizerVisibleLock { state in
            if let list = state.list { return list }
            let total = count
            guard total > 0 else { return [] }  // no empty unsafeUninitializedCapacity (see SnapshotReader.readArray)
            let list = [RecordHandle](unsafeUninitializedCapacity: total) { buffer, initialized in
                for (g, group) in groups.enumerated() {
                    let out = buffer.baseAddress! + starts[g]
                    if let handles = state.ordered[g]?.handles {
                        _ = UnsafeMutableBufferPointer(start: out, count: group.count).initialize(from: handles)
                        state.ordered[g]!.handles = nil  // the list holds them now
                    } else {
                        state.ordered[g] = Ordered(handles: nil, starts: order(g, into: out))
                    }
                }
                initialized = total
            }
            state.list = list
            return list
        }
    }

    /// The handle of row `number`.
    ///
    /// - Precondition: `number` is in `0..<count`.
    /// - Complexity: O(log *g*), after the row's group is ordered (see `handles`) the first time.
    func handle(at number: Int) -> RecordHandle {
        precondition(number >= 0 && number < count, "row \(number) of \(count)")
        let g = groupIndex(ofRow: number, starts: starts)
        return withOrdered(g) { handles, _ in handles[number - starts[g]] }
    }

    /// The number of the row holding `handle`, or nil.
    ///
    /// - Complexity: O(*g* + log *m*), after the group holding it is ordered the first time.
    func rowNumber(of handle: RecordHandle) -> Int? {
        let slot = handle.slot
        guard slot >= 0, let g = groups.firstIndex(where: { $0.bits.contains(slot) }),
            handle.generation == tag | (generations?[slot] ?? 0)
        else { return nil }
        let length = Int(groups[g].lengths[Int(slot)])
        return withOrdered(g) { handles, lengthStarts in
            // Within a length, rows are in slot order.
            var low = lengthStarts[length]
            var high = lengthStarts[length + 1]
            while low < high {
                let middle = (low + high) / 2
                if handles[middle].slot < slot { low = middle + 1 } else { high = middle }
            }
            precondition(
                low < lengthStarts[length + 1] && handles[low].slot == slot,
                "a member is in its length's rows"
            )
            return starts[g] + low
        }
    }

    /// Calls `body` with group `g`'s rows in order and where each length's rows start, ordering
    /// the group first if no read did yet.
    private func withOrdered<R: Sendable>(_ g: Int, _ body: (UnsafeBufferPointer<RecordHandle>, [Int]) -> R) -> R {
        state.withSanitizerVisibleLock { state in
            if let list = state.list, let ordered = state.ordered[g] {
                return list.withUnsafeBufferPointer { list in
                    body(UnsafeBufferPointer(rebasing: list[starts[g]..<starts[g + 1]]), ordered.starts)
                }
            }
            if state.ordered[g] == nil {
                var lengthStarts: [Int] = []
                let handles = [RecordHandle](unsafeUninitializedCapacity: groups[g].count) { buffer, initialized in
                    lengthStarts = order(g, into: buffer.baseAddress!)
                    initialized = groups[g].count
                }
                state.ordered[g] = Ordered(handles: handles, starts: lengthStarts)
            }
            let ordered = state.ordered[g]!
            return ordered.handles!.withUnsafeBufferPointer { body($0, ordered.starts) }
        }
    }

    /// Writes group `g`'s members in order to `out` (room for its count) and returns where each
    /// length's rows start (257 entries, the last the count).
    private func order(_ g: Int, into out: UnsafeMutablePointer<RecordHandle>) -> [Int] {
        let group = groups[g]
        if let members = group.bits.sparseMembers {
            return Self.scatterByLength(members, lengths: group.lengths, generations: generations, tag: tag, into: out)
        }
        return group.lengths.withUnsafeBufferPointer { lengths in
            group.bits.words.withUnsafeBufferPointer { words in
                (generations ?? SlotGenerations()).withUnsafeBufferPointer { generations in
                    // A handle is its slot and its generation, two 32-bit values: one 64-bit word.
                    UnsafeMutableRawPointer(out).withMemoryRebound(to: UInt64.self, capacity: group.count) { out in
                        Self.scatterByLength(
                            words,
                            count: group.count,
                            parts: max(1, min(ParallelWork.cores, group.count / membersPerThread, words.count)),
                            lengths: lengths.baseAddress!,
                            generations: generations?.baseAddress,
                            tag: tag,
                            into: out
                        )
                    }
                }
            }
        }
    }

    /// Writes `members` (ascending) to `out` as handles ordered by `lengths`, ties ascending;
    /// returns where each length's rows start (257 entries, the last the count): a counting sort
    /// of the list, for a group kept sparse.
    ///
    /// - Complexity: O(*m*) for *m* members.
    static func scatterByLength(
        _ members: [Int32],
        lengths: [UInt8],
        generations: SlotGenerations?,
        tag: UInt32,
        into out: UnsafeMutablePointer<RecordHandle>
    ) -> [Int] {
        var lengthStarts = [Int](repeating: 0, count: 257)
        for slot in members { lengthStarts[Int(lengths[Int(slot)]) + 1] += 1 }
        for length in 0..<256 { lengthStarts[length + 1] += lengthStarts[length] }
        var next = lengthStarts
        for slot in members {
            let length = Int(lengths[Int(slot)])
            out[next[length]] = RecordHandle(slot: slot, generation: tag | (generations?[slot] ?? 0))
            next[length] += 1
        }
        return lengthStarts
    }

    /// Writes the `count` members of `words` to `out` ordered by `lengths`, ties ascending, on
    /// `parts` threads, each over its share of the words; returns where each length's rows start
    /// (257 entries, the last `count`).
    ///
    /// - Complexity: O(*w* + *m*) for *w* words and *m* members, two passes divided among `parts`.
    static func scatterByLength(
        _ words: UnsafeBufferPointer<UInt64>,
        count: Int,
        parts: Int,
        lengths: UnsafePointer<UInt8>,
        generations: UnsafePointer<UInt32>?,
        tag: UInt32,
        into out: UnsafeMutablePointer<UInt64>
    ) -> [Int] {
        func bounds(_ part: Int) -> (from: Int, to: Int) {
            (words.count * part / parts, words.count * (part + 1) / parts)
        }
        var lengthStarts = [Int](repeating: 0, count: 257)
        guard count > 0 else { return lengthStarts }
        // Per part 256 counts, then made into the offsets where the part's rows of each length go.
        var counts = [Int](repeating: 0, count: 256 * parts)
        counts.withUnsafeMutableBufferPointer { counts in
            let table = counts.baseAddress!
            let counting = UncheckedWork { part in
                let (from, to) = bounds(part)
                sift_bits_count_by_length(words.baseAddress!, from, to, lengths, table + 256 * part)
            }
            if parts == 1 {
                counting.run(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: parts) { counting.run($0) }
            }
            var offset = 0
            for length in 0..<256 {
                lengthStarts[length] = offset
                for part in 0..<parts {
                    let members = counts[256 * part + length]
                    counts[256 * part + length] = offset
                    offset += members
                }
            }
            precondition(offset == count, "a group's count is its bitset's")
            lengthStarts[256] = offset
            let scattering = UncheckedWork { part in
                let (from, to) = bounds(part)
                sift_bits_scatter_by_length(
                    words.baseAddress!,
                    from,
                    to,
                    lengths,
                    generations,
                    tag,
                    table + 256 * part,
                    out
                )
            }
            if parts == 1 {
                scattering.run(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: parts) { scattering.run($0) }
            }
        }
        return lengthStarts
    }
}
