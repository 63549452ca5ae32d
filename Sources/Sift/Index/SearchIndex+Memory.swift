/// Where an index's memory goes, in bytes (allocated capacity, estimated for strings).
public struct IndexMemoryUsage: Hashable, Sendable, CustomStringConvertible {
    /// Folded codes of every search field, for every collation.
    public var foldedCodes = 0
    /// Flags, word starts and UTF-16 offsets kept beside the codes.
    public var foldedAuxiliary = 0
    /// Per-record tables: segment tables, slot maps, the original order, generations.
    public var recordTables = 0
    /// Ids and field values (UTF-8 plus 8 bytes per value).
    public var recordText = 0
    /// Cached field results (for narrowing and backspace) and category sets.
    public var caches = 0

    public var total: Int { foldedCodes + foldedAuxiliary + recordTables + recordText + caches }

    public var description: String {
        func mb(_ bytes: Int) -> String {
            let tenths = (bytes + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) MB"
        }
        return "total \(mb(total)): folded codes \(mb(foldedCodes)), auxiliary \(mb(foldedAuxiliary)), "
            + "record tables \(mb(recordTables)), record text \(mb(recordText)), caches \(mb(caches))"
    }
}

extension SearchIndex {
    /// The memory the index holds, by part (allocated capacities).
    ///
    /// - Complexity: O(*f* + *b*) for *f* fields and *b* blocks of the original order.
    public var memoryUsage: IndexMemoryUsage {
        var usage = IndexMemoryUsage()
        for folding in foldings {
            for column in folding.columns {
                let parts = column.memoryParts
                usage.foldedCodes += parts.codes
                usage.foldedAuxiliary += parts.auxiliary
                usage.recordTables += parts.tables
            }
        }
        usage.recordTables += 4 * generations.capacity + live.capacity / 8 + order.memoryFootprint
            + slotOfID.memoryFootprint + 4 * freeSlots.capacity
        usage.recordText += ids.memoryFootprint + values.reduce(0) { $0 + $1.memoryFootprint }
        usage.caches += cache.memoryFootprint
        return usage
    }
}
