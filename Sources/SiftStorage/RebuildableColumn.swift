/// A column compacted by copying it, a bounded piece at a time, while readers keep reading it
/// (see `SearchIndex.advanceCompaction()`).
package protocol RebuildableColumn {
    /// Bytes of records that are gone or were replaced.
    var deadBytes: Int { get }
    /// Whether a rebuild has started and not finished.
    var isRebuilding: Bool { get }
    /// Starts a rebuild (a fresh copy, filled by `continueRebuild`).
    mutating func startRebuild()
    /// Copies about `budget` bytes more into the rebuild; when it is complete, the copy replaces
    /// the column and this returns true.
    mutating func continueRebuild(budget: Int) -> Bool
}

extension RebuildableColumn {
    /// Rebuilds the column at once (`startRebuild` and `continueRebuild` to the end).
    ///
    /// - Complexity: O(*n*) in the size of the column.
    package mutating func rebuildNow() {
        guard deadBytes > 0 || isRebuilding else { return }
        startRebuild()
        while !continueRebuild(budget: .max) {}
    }
}
