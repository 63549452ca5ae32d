internal import CSiftKernels
internal import SiftStorage

extension SearchIndex {
    /// The per-slot ranking keys, built on first use (one pass over every folded column, and one
    /// parse of every record's tie-break value when it is numeric), then kept current by every
    /// commit (`updateRankingKeys(_:)`). An index built from records or loaded from a snapshot
    /// builds them at once; after a later bulk insert, the next ranked query does.
    ///
    /// - Complexity: O(*n*) in the folded size of the search fields the first time; O(1) after.
    var rankingKeys: RankingKeys {
        if let keys = orders.rankingKeysStorage { return keys }
        let capacity = slotCapacity
        let lengthCapacity = rankingLengthCapacity
        var keys = RankingKeys(lengths: [], numbers: [])
        for folding in folded.foldings {
            // Unstored columns (no record yet) share one table of zeros until a record arrives.
            let zeros = [UInt8](repeating: 0, count: lengthCapacity)
            // Pooled columns (a wide index of a few records): equal tables are one table, shared
            // until an edit writes it (a table of its own takes about 48 bytes a field).
            var shared: [[UInt8]: [UInt8]] = [:]
            let sharesTables = folding.columns.isPooled
            keys.lengths.append(
                folding.columns.isStored
                    ? folding.columns.map { column in
                        var lengths = zeros
                        column.elementCounts(into: &lengths)
                        guard sharesTables else { return lengths }
                        if let table = shared[lengths] { return table }
                        shared[lengths] = lengths
                        return lengths
                    }
                    : [[UInt8]](repeating: zeros, count: folding.columns.count)
            )
        }
        if let tieBreak = configuration.rankingTieBreak, tieBreak.numeric, let field = orders.tieBreakFieldPosition {
            keys.numbers = [UInt64](repeating: RankingTieBreak.missing, count: capacity)
            records.live.forEachMember { slot in
                keys.numbers[Int(slot)] = numericTieBreakKey(slot, field: field, tieBreak)
            }
        } else if configuration.rankingTieBreak != nil, let field = orders.tieBreakFieldPosition {
            keys.emptyTieBreak = [UInt64](repeating: 0, count: capacity / 64 + 1)
            records.live.forEachMember { slot in
                if field >= records.values.count || records.values[field].withUTF8(slot, { $0.isEmpty }) {
                    keys.emptyTieBreak[Int(slot) >> 6] |= 1 << UInt64(slot & 63)
                }
            }
        }
        orders.rankingKeysStorage = keys
        return keys
    }

    /// Brings the ranking keys of a slot whose record was just committed up to date, when they
    /// have been built.
    ///
    /// - Complexity: O(*s*) in the size of the record's search fields (amortized O(1) growth).
    func updateRankingKeys(_ slot: Int32) {
        guard var keys = orders.rankingKeysStorage else { return }
        orders.rankingKeysStorage = nil  // the arrays below are then uniquely referenced: no copy
        let index = Int(slot)
        let capacity = slotCapacity
        let lengthCapacity = rankingLengthCapacity
        for (f, folding) in folded.foldings.enumerated() {
            for (position, column) in folding.columns.enumerated() {
                if index >= keys.lengths[f][position].count {
                    keys.lengths[f][position].append(
                        contentsOf: repeatElement(0, count: lengthCapacity - keys.lengths[f][position].count)
                    )
                }
                keys.lengths[f][position][index] = column.elementCount(ofSlot: slot)
            }
        }
        if let tieBreak = configuration.rankingTieBreak, tieBreak.numeric, let field = orders.tieBreakFieldPosition {
            if index >= keys.numbers.count {
                keys.numbers.append(
                    contentsOf: repeatElement(RankingTieBreak.missing, count: capacity - keys.numbers.count)
                )
            }
            keys.numbers[index] = numericTieBreakKey(slot, field: field, tieBreak)
        } else if configuration.rankingTieBreak != nil, let field = orders.tieBreakFieldPosition {
            if index >> 6 >= keys.emptyTieBreak.count {
                keys.emptyTieBreak.append(
                    contentsOf: repeatElement(0, count: capacity / 64 + 1 - keys.emptyTieBreak.count)
                )
            }
            let bit: UInt64 = 1 << UInt64(index & 63)
            if field >= records.values.count || records.values[field].withUTF8(slot, { $0.isEmpty }) {
                keys.emptyTieBreak[index >> 6] |= bit
            } else {
                keys.emptyTieBreak[index >> 6] &= ~bit
            }
        }
        orders.rankingKeysStorage = keys
    }

    /// The numeric tie-break key of a slot's value.
    private func numericTieBreakKey(_ slot: Int32, field: Int, _ tieBreak: RankingTieBreak) -> UInt64 {
        guard field < records.values.count else { return RankingTieBreak.missing }
        let number = records.values[field].withUTF8(slot) { bytes in
            RankingTieBreak.number(in: Substring(decoding: bytes, as: UTF8.self).utf8)
        }
        return RankingTieBreak.key(of: number, descending: tieBreak.descending)
    }

    /// The tie-break key of a slot (0 for every slot without a tie-break): its numeric key, or
    /// its place in `sequence` (the sorted order) for a text tie-break, reversed when descending;
    /// `RankingTieBreak.missing` without a value.
    ///
    /// - Complexity: O(1).
    private func tieBreakKey(_ slot: Int32, keys: RankingKeys, sequence: SlotSequence?) -> UInt64 {
        guard let tieBreak = configuration.rankingTieBreak, let field = orders.tieBreakFieldPosition else { return 0 }
        if tieBreak.numeric { return keys.numbers[Int(slot)] }
        guard let sequence, field < records.values.count, !records.values[field].withUTF8(slot, { $0.isEmpty }) else {
            return RankingTieBreak.missing
        }
        let key = sequence.orderKey(of: slot)
        return tieBreak.descending ? ~key : key
    }

    /// Orders each run of ranked rows (one ranking group, rows in original order) by the rules
    /// after the groups: the run's deciding field shorter first (when the run has one; `field` is
    /// a search field position), then the tie-break field (`IndexConfiguration.rankingTieBreak`),
    /// ties keeping their order. A run whose lengths and keys are all equal stays as it is.
    ///
    /// - Complexity: O(*m*) for *m* rows (a counting pass, and a radix pass per byte the keys do
    ///   not all share); O(1) per run of one row. The first call may build the ranking keys
    ///   (`rankingKeys`), and the sorted order for a text tie-break.
    func breakRankingTies(
        _ rows: inout [RecordHandle],
        runs: [(count: Int, field: Int?)],
        folding: Int,
        customFirst: Bool = false
    ) {
        let tieBreaks = configuration.rankingTieBreak != nil
        guard runs.contains(where: { $0.count > 1 && ($0.field != nil || tieBreaks) }) else { return }
        let keys = rankingKeys
        let sequence = tieBreaks && configuration.rankingTieBreak?.numeric == false ? sorted : nil
        // Scratch for the largest run, uninitialized (the kernel writes before it reads).
        let largest = runs.reduce(0) { $1.count > 1 && ($1.field != nil || tieBreaks) ? max($0, $1.count) : $0 }
        func scratch(_ count: Int) -> [UInt64] {
            guard count > 0 else { return [] }  // see SnapshotReader.readArray: no empty unsafeUninitializedCapacity
            return [UInt64](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }
        var rowScratch = scratch(largest)
        var tieKeys = scratch(tieBreaks ? largest : 0)
        var keyScratch = scratch(tieBreaks ? largest : 0)
        var start = 0
        for run in runs {
            defer { start += run.count }
            guard run.count > 1, run.field != nil || tieBreaks else { continue }
            // A run without a deciding field passes no lengths (a retain, not a copy, otherwise).
            let lengths = run.field.map { keys.lengths[folding][$0] } ?? []
            // One stable radix sort by the length (most significant) and the key, or, with the
            // custom rule first, one by the length and then one by the key.
            func sortRun(useKeys: Bool, useLengths: Bool) {
                lengths.withUnsafeBufferPointer { lengths in
                    rows.withUnsafeMutableBufferPointer { rows in
                        UnsafeMutableRawPointer(rows.baseAddress! + start).withMemoryRebound(
                            to: UInt64.self,
                            capacity: run.count
                        ) { pairs in
                            rowScratch.withUnsafeMutableBufferPointer { rowScratch in
                                tieKeys.withUnsafeMutableBufferPointer { tieKeys in
                                    keyScratch.withUnsafeMutableBufferPointer { keyScratch in
                                        sift_sort_rows_by_rank(
                                            pairs,
                                            useKeys ? tieKeys.baseAddress : nil,
                                            useLengths ? lengths.baseAddress : nil,
                                            run.count,
                                            rowScratch.baseAddress!,
                                            useKeys ? keyScratch.baseAddress : nil
                                        )
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if customFirst, run.field != nil, tieBreaks {
                sortRun(useKeys: false, useLengths: true)
            }
            if let tieBreak = configuration.rankingTieBreak {
                // Numeric: the stored keys; text: the sorted order's labels, empty values last.
                rows.withUnsafeBufferPointer { rows in
                    UnsafeRawPointer(rows.baseAddress! + start).withMemoryRebound(to: UInt64.self, capacity: run.count)
                    {
                        pairs in
                        tieKeys.withUnsafeMutableBufferPointer { tieKeys in
                            if tieBreak.numeric {
                                keys.numbers.withUnsafeBufferPointer { numbers in
                                    sift_gather_tie_keys(
                                        pairs,
                                        run.count,
                                        numbers.baseAddress,
                                        nil,
                                        0,
                                        tieKeys.baseAddress!
                                    )
                                }
                            } else {
                                keys.emptyTieBreak.withUnsafeBufferPointer { empty in
                                    sequence!.withOrderKeys { labels in
                                        sift_gather_tie_keys(
                                            pairs,
                                            run.count,
                                            labels,
                                            empty.baseAddress,
                                            tieBreak.descending ? 1 : 0,
                                            tieKeys.baseAddress!
                                        )
                                    }
                                }
                            }
                        }
                    }
                }
            }
            sortRun(useKeys: tieBreaks, useLengths: run.field != nil && !(customFirst && tieBreaks))
        }
    }

    /// The key ranked results are ordered by, for one matching record, before original order
    /// (see `ResultOrder.ranked`): its ranking group (`rankingGroup(of:for:)`), the length of the
    /// field that decides the group (when the length rule applies), and its tie-break key (the
    /// custom rule's), compared in the rules' order. Nil where the query does not rank.
    ///
    /// - Complexity: O(*s*) in the size of the record's searched fields (the first call may
    ///   build the ranking keys, and the sorted order for a text tie-break).
    func rankingKey(of handle: RecordHandle, for query: Query) throws -> RankingKey? {
        guard let buckets = try rankingBuckets(of: handle, for: query) else { return nil }
        let slot = try resolve(handle)
        let plan = try scopePlan(of: query)
        let keys = rankingKeys
        let fieldCount = plan.fields.count
        var length = 0
        if query.mode == .fuzzy {
            length = Int(keys.lengths[plan.folding][plan.fields[buckets.group % fieldCount]][Int(slot)])
        } else if let values = buckets.values, orders.rankingPlan.sortsByLength {
            length = Int(keys.lengths[plan.folding][plan.fields[values.field]][Int(slot)])
        }
        let sequence = configuration.rankingTieBreak?.numeric == false ? sorted : nil
        return RankingKey(
            group: buckets.group,
            length: length,
            tieBreak: tieBreakKey(slot, keys: keys, sequence: sequence),
            customFirst: query.mode != .fuzzy && orders.rankingPlan.customBeforeLength
        )
    }
}
