/// Where an index's memory goes, in bytes (allocated capacity, estimated for strings).
///
/// The parts are disjoint: `total` is their sum.

internal import SiftStorage

public struct IndexMemoryUsage: Hashable, Sendable, CustomStringConvertible {
    /// Folded codes of every search field, for every collation.
    public var foldedCodes = 0
    /// Flags (two bits per code byte of the segments that need them), word starts and the
    /// per-segment bits (dead, flagged, checked by the sweep) kept beside the codes.
    public var foldedAuxiliary = 0
    /// Per-segment tables of the folded columns: segment starts (two levels), where flagged
    /// segments' flags start, and the maps of records whose segment is not numbered like their
    /// slot (empty after a bulk load, a snapshot load or a compaction).
    public var segmentTables = 0
    /// Per-slot tables of the index: the id table, the original order, the live set and the free
    /// slots; generations once a freed slot was reused; once sorting was used, the sorted order
    /// and the sections too; the ranking keys (a byte per search field and slot, and eight more
    /// with a numeric tie-break); the maps of former numberings (a little over a bit per
    /// slot a renumbering replaced, see `SearchIndex.renumberSlots()`).
    public var slotTables = 0
    /// UTF-8 of ids and field values (with the bytes that delimit them, and dead bytes not yet
    /// compacted).
    public var recordText = 0
    /// Where each group of eight ids or field values starts in `recordText`, and its slack.
    public var recordTextTables = 0
    /// Cached field results (for narrowing and backspace), kept ranked answers and category sets.
    public var caches = 0
    /// The exact results of one-element patterns (first letters) kept per column: bits for the
    /// common elements, lists for the rare ones.
    public var postings = 0

    /// Every per-record table: `segmentTables` + `slotTables`.
    public var recordTables: Int { segmentTables + slotTables }

    /// Every part: the bytes the index holds in all.
    public var total: Int {
        foldedCodes + foldedAuxiliary + segmentTables + slotTables + recordText + recordTextTables + caches + postings
    }

    /// Every part in megabytes (10^6 bytes), on one line: `total 94.7 MB: folded codes …`.
    public var description: String {
        func mb(_ bytes: Int) -> String {
            let tenths = (bytes + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) MB"
        }
        return "total \(mb(total)): folded codes \(mb(foldedCodes)), auxiliary \(mb(foldedAuxiliary)), "
            + "record tables \(mb(recordTables)) (segments \(mb(segmentTables)), slots \(mb(slotTables))), "
            + "record text \(mb(recordText + recordTextTables)) (UTF-8 \(mb(recordText)), group starts \(mb(recordTextTables))), "
            + "caches \(mb(caches)), postings \(mb(postings))"
    }
}

extension SearchIndex {
    /// The memory the index holds, by part (allocated capacities).
    ///
    /// - Complexity: O(*f* + *b* + *c*) for *f* fields, *b* blocks of the original and sorted
    ///   orders and *c* category values.
    public var memoryUsage: IndexMemoryUsage {
        var usage = IndexMemoryUsage()
        for folding in folded.foldings where !folding.columns.isPooled {
            usage.segmentTables += folding.columns.ownFootprint
            for column in folding.columns.storedColumns {
                let parts = column.memoryParts
                usage.foldedCodes += parts.codes
                usage.foldedAuxiliary += parts.auxiliary
                usage.segmentTables += parts.tables
            }
        }
        usage.slotTables +=
            records.generations.memoryFootprint + records.live.capacity / 8 + orders.order.memoryFootprint
            + records.slotOfID.memoryFootprint + 4 * records.freeSlots.capacity
            + records.formerNumberings.reduce(0) { $0 + $1.memoryFootprint }
        usage.recordTextTables += records.fieldPositions.memoryFootprint
        for folding in folded.foldings where folding.columns.isPooled {
            usage.foldedCodes += folding.columns.ownFootprint
        }
        usage.recordTextTables += records.values.ownFootprint
        for column in [records.ids] + (records.values.isPooled ? [] : records.values.storedColumns) {
            let parts = column.memoryParts
            usage.recordText += parts.text
            usage.recordTextTables += parts.tables
        }
        if let keys = orders.rankingKeysStorage {
            usage.slotTables += keys.lengths.joined().reduce(0) { $0 + $1.capacity } + 8 * keys.numbers.capacity
        }
        let lazy = lazyMemoryParts
        usage.slotTables += lazy.tables
        usage.caches += caches.matches.memoryFootprint + lazy.caches
        usage.caches += caches.keptRows.reduce(0) { $0 + $1.memoryFootprint }
        usage.caches += caches.keptFuzzyScores.reduce(0) { $0 + $1.memoryFootprint }
        usage.postings = folded.postings.memoryFootprint
        return usage
    }
}

extension SearchIndex {
    /// An estimate, from above, of the memory an index of `records` under `configuration` takes
    /// while it is built: what ``memoryUsage`` then counts, and the building's own buffers.
    /// `SearchIndex(configuration:records:)` asks the ``MemoryBudget`` for it first, and a bulk
    /// ``insert(contentsOf:)`` for its records' share, so that an index that cannot fit is refused
    /// before it allocates.
    ///
    /// - Complexity: O(*n* · *f*) for *n* records of *f* fields (their sizes are read, not their text).
    public static func estimatedMemory(of records: [Record], configuration: IndexConfiguration) -> Int {
        // A few names compare faster than they hash (short strings compare by their bits).
        let searchedNames = configuration.searchFields
        let searched = searchedNames.count > 8 ? Set(searchedNames) : []
        let foldings =
            1 + Set(configuration.scopes.compactMap(\.collation)).subtracting([configuration.collation]).count
        var text = 0
        var searchedText = 0
        var values = 0
        for record in records {
            text += record.id.utf8.count
            for (name, value) in record.fields {
                let size = value.utf8.count
                text += size
                values += 1
                if searched.isEmpty ? searchedNames.contains(name) : searched.contains(name) { searchedText += size }
            }
        }
        // Per record and search field: segment tables, flags, ranking keys; per record: the id
        // table, orders, generations (measured: 30 bytes a record and 4 a field at 500,000 records
        // of 7 search fields). Text and folded codes are kept in columns grown by an eighth, and
        // the bulk workers hold a batch's codes once more (measured: a byte of codes and flags
        // per byte of searched text).
        let perRecord = 24 + 8 * configuration.searchFields.count * foldings
        let folded = 3 * searchedText * foldings / 2
        // After a bulk load each column's dozen buffers keep up to 1,024 spare elements.
        let headroom = min(records.count, 1024) * 96 * configuration.searchFields.count * foldings
        // Postings, from 16,384 records (`postingsMinimumRecords`): measured 0.7 bytes a byte of
        // searched text (bits for common elements, two bytes a record for rare ones).
        let postings = records.count >= 1 << 14 ? searchedText * foldings : 0
        return records.count * perRecord + 5 * text / 4 + values + folded + headroom + postings
    }
}
