internal import CSiftKernels
internal import SiftStorage

extension SearchIndex {
    // MARK: - Ordering

    /// The members of `groups` in `order`, one group after the other, as `orderedRows` lists
    /// them; kept as the groups' bitsets, to be made when read (`ResultRows`), where that order
    /// is slot order (original order while it follows the slots, not `.sorted`), no generation
    /// is counted yet, and the rows would take more memory than the bitsets; kept as positions
    /// in the order (`OrderSubsetRows`) for one group of at least an eighth of an order held in
    /// blocks and at least `orderSubsetMinimumRows`.
    ///
    /// - Complexity: O(*g*) for *g* groups when kept as bitsets; O(*n*) for *n* slots when kept
    ///   as positions; else as `orderedRows`.
    func resultRows(
        _ groups: [(bits: Bitset, count: Int)],
        order: ResultOrder,
        isCancelled: () -> Bool
    ) throws -> ResultRows {
        let total = groups.reduce(0) { $0 + $1.count }
        let bitsetWords = groups.reduce(0) { $0 + $1.bits.wordCount }
        if order != .sorted, orderFollowsSlots, !records.generations.isMaterialized, total > bitsetWords {
            return ResultRows(groups: groups, tag: records.handleTag)
        }
        // A broad answer in an order held in blocks (sorted, or an original order that edits
        // moved): its positions in that order, one bit each, where the list would be millions.
        let sequence = order == .sorted ? sorted : self.orders.order
        if groups.count == 1, !sequence.isAscending, total >= knobs.orderSubsetMinimumRows, total * 8 >= sequence.count,
            total > bitsetWords
        {
            return ResultRows(
                subsetOf: sequence.slotsInOrder,
                members: groups[0].bits,
                generations: records.generations.isMaterialized ? records.generations : nil,
                tag: records.handleTag
            )
        }
        return ResultRows(try orderedRows(groups, order: order, isCancelled: isCancelled))
    }

    /// The members of each of `groups` (with its member count) in original or sorted order, one
    /// group after the other.
    func orderedRows(
        _ groups: [(bits: Bitset, count: Int)],
        order: ResultOrder,
        isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        if order != .sorted && orderFollowsSlots { return try rowsInSlotOrder(groups, isCancelled: isCancelled) }
        return try rowsInSequenceOrder(groups, order == .sorted ? sorted : self.orders.order, isCancelled: isCancelled)
    }

    /// The members of each of `groups` in `sequence`'s order, one group after the other, written
    /// as handles into one array: a dense group in one pass over the sequence's blocks with no
    /// list of slots in between (`SlotSequence.handles(of:generations:tag:entriesPerThread:into:)`), a sparse one
    /// from its members' sorted labels.
    ///
    /// - Complexity: O(*n*) per dense group for *n* slots; O(*m* log *m*) per sparse group of *m*.
    func rowsInSequenceOrder(
        _ groups: [(bits: Bitset, count: Int)],
        _ sequence: SlotSequence,
        isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        let total = groups.reduce(0) { $0 + $1.count }
        let tag = records.handleTag
        return try records.generations.withUnsafeBufferPointer { generations in
            // One entry of room more than the rows: the kernel writes each entry it reads.
            try [RecordHandle](unsafeUninitializedCapacity: total + 1) { buffer, initialized in
                try UnsafeMutableRawPointer(buffer.baseAddress!).withMemoryRebound(to: UInt64.self, capacity: total + 1)
                {
                    out in
                    for (bits, count) in groups where count > 0 {
                        if sequence.writesHandles(ofMembers: count) {
                            let written = sequence.handles(
                                of: bits,
                                generations: generations?.baseAddress,
                                tag: tag,
                                entriesPerThread: knobs.entriesPerOrderSelectionThread,
                                into: out + initialized
                            )
                            // No more than counted (as `members(of:count:)`: members outside the
                            // order, if any, are left out).
                            precondition(written <= count, "no more members than counted")
                            initialized += written
                        } else {
                            let members = sequence.members(of: bits, count: count)
                            for (i, slot) in members.enumerated() {
                                let generation = tag | (generations.map { $0[Int(slot)] } ?? 0)
                                out[initialized + i] = UInt64(UInt32(bitPattern: slot)) | UInt64(generation) << 32
                            }
                            initialized += members.count
                        }
                        if isCancelled() { throw CancellationError() }
                    }
                }
            }
        }
    }

    /// The members of each of `groups` in slot order (the original order while it follows the
    /// slots), one group after the other: handles written straight from the bitsets' words into
    /// one array, with no list of slots in between.
    ///
    /// - Complexity: O(*n* / 64 + *m*) per group for *m* members and *n* slots.
    func rowsInSlotOrder(
        _ groups: [(bits: Bitset, count: Int)],
        isCancelled: () -> Bool
    ) throws -> [RecordHandle] {
        let total = groups.reduce(0) { $0 + $1.count }
        guard total > 0 else { return [] }  // see SnapshotReader.readArray: no empty unsafeUninitializedCapacity
        // Until a slot is reused every generation is 0: then no per-result lookup, only the tag.
        let tag = records.handleTag
        return try records.generations.withUnsafeBufferPointer { generations in
            try [RecordHandle](unsafeUninitializedCapacity: total) { buffer, initialized in
                // A handle is its slot and its generation, two 32-bit values, as the kernel writes them.
                try UnsafeMutableRawPointer(buffer.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: 2 * total)
                {
                    pairs in
                    for (bits, count) in groups where count > 0 {
                        if let members = bits.sparseMembers {
                            for (i, slot) in members.enumerated() {
                                pairs[2 * (initialized + i)] = UInt32(bitPattern: slot)
                                pairs[2 * (initialized + i) + 1] = tag | (generations.map { $0[Int(slot)] } ?? 0)
                            }
                            precondition(members.count == count, "a group's count is its bitset's")
                            initialized += members.count
                            continue
                        }
                        let written = bits.words.withUnsafeBufferPointer { words in
                            sift_bits_to_handles(
                                words.baseAddress!,
                                words.count,
                                generations?.baseAddress,
                                tag,
                                pairs + 2 * initialized
                            )
                        }
                        precondition(written == count, "a group's count is its bitset's")
                        initialized += written
                        if isCancelled() { throw CancellationError() }
                    }
                }
            }
        }
    }

    /// The records whose field is exactly the pattern: of its field-start matches, those whose
    /// field is as long as the pattern. Kept until the next edit, so that a keystroke that comes
    /// back to the pattern does not check them again.
    ///
    /// - Complexity: O(*n* / 64 + *p*) for the *p* field-start matches the first time; O(1) after.
    func wholeFieldMatches(
        _ plan: ScopePlan,
        _ field: Int,
        _ pattern: (bytes: [UInt8], text: String),
        atFieldStart: Bitset
    ) -> Bitset {
        if caches.wholeFieldRevision != revision || caches.wholeFieldMatches.count >= 64 {
            caches.wholeFieldMatches = [:]
            caches.wholeFieldRevision = revision
        }
        let key = key(plan, field, .fieldStart, pattern)
        if let whole = caches.wholeFieldMatches[key] { return whole }
        var whole = Bitset.combining(atFieldStart).bits
        // A segment equal to the pattern has its number of elements: the ranking keys' lengths
        // (one byte a slot) rule out most members 64 at a time before their segments are read.
        let elements = pattern.bytes.reduce(0) { CodeBook.isLead($1) ? $0 + 1 : $0 }
        if whole.sparseMembers == nil, elements < Int(SIFT_RANKING_LENGTH_LIMIT) {
            let lengths = rankingKeys.lengths[plan.folding][field]
            let wordCount = whole.capacity >> 6
            if !lengths.isEmpty {
                _ = whole.withUnsafeMutableWords { words in
                    lengths.withUnsafeBufferPointer { lengths in
                        sift_keep_slots_with_length(
                            words,
                            wordCount,
                            lengths.baseAddress!,
                            lengths.count,
                            UInt8(elements)
                        )
                    }
                }
            }
        }
        _ = folded.foldings[plan.folding].columns[field].keepSegments(ofLength: pattern.bytes.count, in: &whole)
        caches.wholeFieldMatches[key] = whole
        return whole
    }

    /// Field results as the two operands of one `Bitset.combining` pass, their union: the first
    /// and the second (nil for one field), any further ones united into the first beforehand.
    ///
    /// - Complexity: O(1) for up to two sets; O(*n* / 64) per further set.
    static func pairForCombining(_ sets: [Bitset]) -> (Bitset, Bitset?) {
        guard var first = sets.first else { return (Bitset(), nil) }
        guard sets.count > 1 else { return (first, nil) }
        if sets.count > 2 {
            first = Bitset.combining(first, or: sets[2]).bits
            for set in sets.dropFirst(3) { first.formUnion(set) }
        }
        return (first, sets[1])
    }
}
