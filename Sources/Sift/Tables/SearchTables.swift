/// The two tables of a search display: the original table of every record and the results table
/// of the current matches, with O(1) maps between them.
///
/// ```swift
/// let tables = update.tables
/// let tapped = TableIndexPath(section: 0, row: 3)
/// let inOriginal = tables.originalIndexPath(ofResultsRowAt: tapped)   // where it is in the full list
/// let isMatch = tables.resultsIndexPath(ofOriginalRowAt: inOriginal!) != nil
/// ```
public struct SearchTables: Hashable, Sendable {
    /// Every record, in the original table's layout.
    public internal(set) var original: RecordTable
    /// The current matches, in result order (see `SearchController` for what it shows when no
    /// query is answered).
    public internal(set) var results: RecordTable

    /// The table of one kind.
    ///
    /// - Complexity: O(1).
    public internal(set) subscript(kind: TableKind) -> RecordTable {
        get {
            switch kind {
            case .original: return original
            case .results: return results
            }
        }
        set {
            switch kind {
            case .original: original = newValue
            case .results: results = newValue
            }
        }
    }

    /// Where the record shown at a row of the results table is in the original table.
    ///
    /// - Returns: nil when the path is not in the results table.
    /// - Complexity: O(1).
    public func originalIndexPath(ofResultsRowAt path: TableIndexPath) -> TableIndexPath? {
        results.row(at: path).flatMap { original.indexPath(of: $0.handle) }
    }

    /// Where the record shown at a row of the original table is in the results table.
    ///
    /// - Returns: nil when the record is not among the results (or the path is not in the
    ///   original table).
    /// - Complexity: O(1).
    public func resultsIndexPath(ofOriginalRowAt path: TableIndexPath) -> TableIndexPath? {
        original.row(at: path).flatMap { results.indexPath(of: $0.handle) }
    }

    /// Whether the record shown at a row of the original table is among the results.
    ///
    /// - Complexity: O(1).
    public func isInResults(originalRowAt path: TableIndexPath) -> Bool {
        resultsIndexPath(ofOriginalRowAt: path) != nil
    }
}
