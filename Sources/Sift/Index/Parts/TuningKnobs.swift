/// The sizes at which a `SearchIndex` changes strategy: scan chunks, parallel splits, list or
/// bitset, batch sizes. The defaults suit every index; tests set small values (through
/// `package` access) so that small indexes take every path.

internal import SiftStorage

package struct TuningKnobs: Sendable {
    /// Records from which a fuzzy keystroke whose narrowing base holds more than a quarter of them
    /// sweeps the column instead (`narrowingCandidates`). Tests set it to 0 so that small
    /// indexes take that path too.
    package var fuzzySweepMinimumRecords = 4096

    /// Bytes of a column a full scan covers between two cancellation checks. Tests set it small
    /// so that scans cross many chunk boundaries.
    package var scanChunkBytes = 1 << 20

    /// Bytes of a column one edit copies into a column's rebuild (see `advanceCompaction()`).
    /// Tests set it small so that rebuilds span many edits and queries.
    package var rebuildStepBytes = 2048

    /// Segments a column needs before a full scan splits it among the machine's cores (each
    /// worker takes at least this many). Tests set it small so that small indexes scan in
    /// parallel.
    package var parallelScanSegments = 1 << 16

    /// Members up to which a field result is kept as a list (a sparse `Bitset`), and candidates up
    /// to which a narrowed scan reads them as one: a 256th of the slots (about 3,900 at a million
    /// records, a list of an eighth of a bitset's bytes at most) unless set. Past that, passes
    /// over bitsets' words (SIMD, sequential) beat member-by-member work on lists. Tests set
    /// `Int.max` and 0 to check both ways.
    package var sparseSlotLimitOverride: Int? = nil

    /// Members of a ranking group per thread that orders it by field length
    /// (`RankedRowGroups`): below about a million, starting a thread costs more than it
    /// saves. Tests set a few, so that small groups split too.
    package var membersPerLengthOrderingThread = 1 << 20

    /// Rows from which a broad answer in an order held in blocks is kept as its positions in
    /// that order (`OrderSubsetRows`) instead of a list of handles. Both cost a pass over the
    /// order; below about a million rows the list is about a millisecond and reads faster (a
    /// select per row read otherwise). Tests set 0, so that small answers take it too.
    package var orderSubsetMinimumRows = 1 << 20

    /// Slots of an order in blocks from which a dense answer's pass over it (writing its rows in
    /// sorted or moved order) runs on two threads (`SlotSequence.handles(of:...)`). Tests set a
    /// few, so that small orders split too.
    package var entriesPerOrderSelectionThread = 1 << 18

    /// Workers a full scan may use: the machine's cores (at most 8). Tests set more, so that
    /// scans run split even on one core.
    package var scanWorkers = ParallelWork.cores

    /// Records per batch of a bulk insert (`insert(contentsOf:)` with 8,192 records or more).
    /// Tests set it small so that a bulk insert crosses many batches.
    package var bulkBatchSize = 65_536

    /// Records a column needs before it keeps postings (`ElementPostings`): below, a scan of a
    /// first letter takes a few microseconds anyway. Tests set 0 so that every index has them.
    package var postingsMinimumRecords = 1 << 14

    /// Fields from which an index keeps its columns pooled while they are small
    /// (`PooledColumns`). Tests set a few, so that small indexes pool, or `Int.max`, so that none
    /// does.
    package var poolColumnsFromFields = FoldedColumns.defaultPoolingMinimum

    /// Slots from which a renumbering may run (below, slot tables are a few kilobytes); tests set
    /// a few.
    package var minimumSlotsToRenumber = 256
}
