internal import CSiftKernels
internal import Dispatch
internal import SiftStorage

/// The exact results of every one-element pattern in one folded column: for each element with a
/// one- or two-byte code (`CodeBook`: the 2,175 most common elements of the data, Latin, Greek
/// and Cyrillic letters among them), the records a scan of that element alone would match and
/// the ones it would give as candidates, at each exact anchor.
///
/// Built by one pass over the column (`sift_slot_elements`: the scan kernels' own rules for
/// where a match may start and end, so a set here is what `sift_sweep_segments` would give), and
/// kept exact by re-reading each edited slot the same way. A set holds its members as a list of
/// two bytes each (`PostingList`) while that is smaller than bits, so a rare element costs what
/// its records cost.
struct ColumnPostings: Sendable {
    /// Six sets per element held: per anchor (anywhere, word start, field start), the records
    /// matched, then the candidates that are not matched (usually none: only text whose
    /// collation elements can end a match nowhere, such as a lone combining mark, has any).
    private var sets: [PostingSet] = []
    /// The element code of each group of six sets.
    private var codes: [UInt16] = []
    /// The group of each code (`SIFT_POSTING_CODES` entries), or -1.
    private var groupOfCode = [Int32](repeating: -1, count: Int(SIFT_POSTING_CODES))
    /// The capacity new sets get (the index's slot capacity when built).
    private let capacity: Int
    /// The last edit this reflects (`ElementPostings.version`).
    var version: Int
    /// Per slot edited since `version`, the elements it held before (`captureElements`): with
    /// the elements it holds now, the only groups whose sets can have changed for it.
    private var formerElements: [Int32: [UInt16]] = [:]

    /// Postings of no records yet, to be filled by `build`.
    private init(capacity: Int, version: Int) {
        self.capacity = capacity
        self.version = version
    }

    /// The postings of `columns` as they are now, built on up to `workers` threads: a pass over
    /// each column (split by slots among the workers) counts every set's members, then, with
    /// each set allocated at its final size (bits, or a list of exactly its members), a second
    /// pass writes them.
    ///
    /// - Complexity: O(*n*) in the folded size of the columns, divided among the workers.
    static func build(_ columns: [FoldedColumn], capacity: Int, version: Int, workers: Int) -> [ColumnPostings] {
        let setCount = 6 * Int(SIFT_POSTING_CODES)
        let wordCount = (capacity + 63) >> 6
        var tasks: [(column: Int, slots: Range<Int>)] = []
        for (number, column) in columns.enumerated() {
            let slotCount = min(column.slotCount, capacity)
            let parts = max(1, min(workers, slotCount / 65_536))
            let step = ((slotCount + parts - 1) / parts + 63) & ~63
            var start = 0
            while start < slotCount {
                tasks.append((number, start..<min(slotCount, start + step)))
                start += step
            }
        }
        let counts = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, tasks.count * setCount))
        counts.initialize(repeating: 0, count: tasks.count * setCount)
        defer { counts.deallocate() }
        let counting = UncheckedWork { task in
            columns[tasks[task].column].withKernelView { view in
                var view = view
                let slots = tasks[task].slots
                sift_count_postings(&view, slots.lowerBound, slots.upperBound, counts + task * setCount)
            }
        }
        DispatchQueue.concurrentPerform(iterations: tasks.count) { counting.run($0) }

        // Each set at its final size; each task's list cursors start after the earlier tasks' members.
        let targets = UnsafeMutablePointer<sift_posting_target>.allocate(capacity: columns.count * setCount)
        targets.initialize(repeating: sift_posting_target(words: nil, members: nil), count: columns.count * setCount)
        var totals = [Int](repeating: 0, count: columns.count * setCount)
        for (task, (column, _)) in tasks.enumerated() {
            for set in 0..<setCount {
                let count = Int(counts[task * setCount + set])
                counts[task * setCount + set] = UInt32(totals[column * setCount + set])  // now the cursor
                totals[column * setCount + set] += count
            }
        }
        for entry in totals.indices where totals[entry] > 0 {
            if PostingSet.isDense(totals[entry], capacity: capacity) {
                let words = UnsafeMutablePointer<UInt64>.allocate(capacity: wordCount)
                words.initialize(repeating: 0, count: wordCount)
                targets[entry].words = words
            } else {
                targets[entry].members = .allocate(capacity: totals[entry])
            }
        }
        let filling = UncheckedWork { task in
            columns[tasks[task].column].withKernelView { view in
                var view = view
                let slots = tasks[task].slots
                sift_fill_postings(
                    &view,
                    slots.lowerBound,
                    slots.upperBound,
                    targets + tasks[task].column * setCount,
                    counts + task * setCount
                )
            }
        }
        DispatchQueue.concurrentPerform(iterations: tasks.count) { filling.run($0) }

        var built: [ColumnPostings] = []
        for number in columns.indices {
            var postings = ColumnPostings(capacity: capacity, version: version)
            for code in 1..<Int(SIFT_POSTING_CODES) {
                let first = number * setCount + 6 * code
                guard totals[first..<(first + 6)].contains(where: { $0 > 0 }) else { continue }
                let group = postings.group(of: UInt16(code))
                for part in 0..<6 {
                    let target = targets[first + part]
                    if let words = target.words {
                        let bits = Bitset(words: Array(UnsafeBufferPointer(start: words, count: wordCount)))
                        postings.sets[6 * group + part] = .bits(bits)
                        words.deallocate()
                    } else if let members = target.members {
                        let list = PostingList(UnsafeBufferPointer(start: members, count: totals[first + part]))
                        postings.sets[6 * group + part] = .list(list)
                        members.deallocate()
                    }
                }
            }
            built.append(postings)
        }
        targets.deallocate()
        return built
    }

    /// The group of sets of an element code, added (empty) if the column had none.
    private mutating func group(of code: UInt16) -> Int {
        let group = groupOfCode[Int(code)]
        if group >= 0 { return Int(group) }
        groupOfCode[Int(code)] = Int32(codes.count)
        codes.append(code)
        sets.append(contentsOf: repeatElement(PostingSet.empty, count: 6))
        return codes.count - 1
    }

    /// Calls `body` with the buffers `sift_slot_elements` needs.
    private static func withBuffers<R>(
        _ body: (UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> R
    ) -> R {
        let count = Int(SIFT_POSTING_CODES)
        let ids = UnsafeMutablePointer<UInt16>.allocate(capacity: count)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * count)
        bytes.initialize(repeating: 0, count: 2 * count)
        defer {
            ids.deallocate()
            bytes.deallocate()
        }
        return body(ids, bytes, bytes + count)
    }

    /// Notes the elements `slot` holds in `column` now, before an edit changes them (see
    /// `formerElements`).
    ///
    /// - Complexity: O(*s*) in the size of the slot's segment.
    mutating func captureElements(of slot: Int32, in column: FoldedColumn) {
        guard slot >= 0, Int(slot) < column.slotCount else { return }
        column.withKernelView { view in
            var view = view
            Self.withBuffers { ids, kinds, scratch in
                let count = sift_slot_elements(&view, Int(slot), ids, kinds, scratch)
                guard count > 0 else { return }
                formerElements[slot, default: []].append(contentsOf: UnsafeBufferPointer(start: ids, count: count))
            }
        }
    }

    /// Brings the sets of `slots` (edited since `version`, in any order, repeats allowed) up to
    /// date with the column as it is now: for each, the groups of the elements it held before
    /// (`captureElements`) and holds now are set as a scan of the slot finds them.
    ///
    /// - Complexity: O(*s* + *g*) per slot of size *s* whose former and present elements have *g*
    ///   groups.
    mutating func update(slots: ArraySlice<Int32>, in column: FoldedColumn) {
        guard !slots.isEmpty else { return }
        column.withKernelView { view in
            var view = view
            Self.withBuffers { ids, kinds, scratch in
                var kindOfGroup: [Int: UInt8] = [:]
                for slot in slots {
                    kindOfGroup.removeAll(keepingCapacity: true)
                    for code in formerElements.removeValue(forKey: slot) ?? [] where groupOfCode[Int(code)] >= 0 {
                        kindOfGroup[Int(groupOfCode[Int(code)])] = 0
                    }
                    let count =
                        slot >= 0 && Int(slot) < column.slotCount
                        ? sift_slot_elements(&view, Int(slot), ids, kinds, scratch) : 0
                    for i in 0..<count { kindOfGroup[group(of: ids[i])] = kinds[i] }
                    for (group, kind) in kindOfGroup {
                        for anchor in 0..<3 {
                            let bits = (kind >> UInt8(2 * anchor)) & 3
                            sets[6 * group + 2 * anchor].set(slot, to: bits == 3, capacity: capacity)
                            sets[6 * group + 2 * anchor + 1].set(slot, to: bits == 1, capacity: capacity)
                        }
                    }
                }
            }
        }
        formerElements.removeAll()
    }

    /// What a scan of the one element `code` at `anchor` (not `.fuzzy`) finds in the column; sets
    /// of at most `sparseLimit` members come as lists (as `SearchIndex.store` keeps results).
    ///
    /// - Complexity: O(1), plus O(*n* / 64) when some record is a candidate without a match.
    func match(code: Int, anchor: Anchor, sparseLimit: Int) -> FieldMatch {
        let group = code < groupOfCode.count ? Int(groupOfCode[code]) : -1
        guard group >= 0, let position = Self.position(of: anchor) else {
            let none = Bitset(sparse: [], capacity: capacity)
            return FieldMatch(matched: none, candidates: none)
        }
        let matched = sets[6 * group + 2 * position].bitset(capacity: capacity, sparseLimit: sparseLimit)
        let unmatched = sets[6 * group + 2 * position + 1]
        guard unmatched.count > 0 else { return FieldMatch(matched: matched, candidates: matched) }
        var candidates = matched
        candidates.formUnion(unmatched.bitset(capacity: capacity, sparseLimit: sparseLimit))
        return FieldMatch(matched: matched, candidates: candidates)
    }

    /// An exact anchor's place among each element's sets.
    private static func position(of anchor: Anchor) -> Int? {
        switch anchor {
        case .anywhere: 0
        case .wordStart: 1
        case .fieldStart: 2
        case .fuzzy: nil
        }
    }

    /// The element code of a pattern of one element with a one- or two-byte code, else nil.
    static func code(ofPattern pattern: [UInt8]) -> Int? {
        switch pattern.count {
        case 1 where pattern[0] < 0x80 && pattern[0] != 0: Int(pattern[0])
        case 2 where pattern[0] & 0xE0 == 0xC0 && pattern[1] & 0xC0 == 0x80:
            0x80 + (Int(pattern[0] & 0x1F) << 6 | Int(pattern[1] & 0x3F))
        default: nil
        }
    }

    /// Heap bytes held.
    var memoryFootprint: Int {
        let tables = MemoryLayout<PostingSet>.stride * sets.capacity + 2 * codes.capacity + 4 * groupOfCode.capacity
        return sets.reduce(tables) { $0 + $1.memoryFootprint }
    }
}
