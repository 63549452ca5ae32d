/// The search fields folded for matching, one `Folding` per distinct collation, with how each
/// scope reads them and the upkeep in progress (word starts still to add, a column being
/// rebuilt).
package struct FoldedFields {
    /// One folding per distinct collation; `foldings[0]` uses the index's collation.
    package var foldings: [Folding]
    /// Per scope: its folding and the positions (in `searchFields`) of its fields.
    var scopePlans: [ScopePlan] = []
    /// Slots whose folded texts still lack the word starts of dictionary-segmented text (left
    /// out by single-record edits, see `ICUFolder.foldDeferringDictionaryWords`); every read of
    /// the columns calls `addDeferredWordStarts()` first.
    var slotsAwaitingWordStarts: [Int32] = []
    /// The column whose rebuild edits are advancing, if any (see `advanceCompaction()`).
    var rebuilding: SearchIndex.RebuildingColumn?
    /// Rebuilds finished so far (tests read it).
    var rebuildsFinished = 0
    /// Texts folded a piece at a time straight into their columns so far (`writePending`): how
    /// tests see that a long text took that road.
    var streamedTextCount = 0
    /// The exact results of every one-element pattern, by column (see `ElementPostings`).
    var postings = ElementPostings()
}
