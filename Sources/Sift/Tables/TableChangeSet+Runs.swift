/// A run of consecutive rows of one section: `rows` of `section`.
public struct TableRowRun: Hashable, Sendable, CustomStringConvertible {
    /// The section, from 0.
    public var section: Int
    /// The rows, consecutive.
    public var rows: Range<Int>

    /// The rows `rows` of `section`.
    public init(section: Int, rows: Range<Int>) {
        self.section = section
        self.rows = rows
    }

    public var description: String { "\(section):\(rows.lowerBound)..<\(rows.upperBound)" }
}

extension TableChangeSet {
    /// `deletedRows` as runs of consecutive rows, ascending: narrowing a query deletes rows in
    /// long runs, which a list view can remove range by range.
    ///
    /// ```swift
    /// for run in changes.deletedRowRuns {
    ///     collectionView.deleteItems(at: run.rows.map { IndexPath(item: $0, section: run.section) })
    /// }
    /// ```
    ///
    /// - Complexity: O(*k*) for *k* deleted rows.
    public var deletedRowRuns: [TableRowRun] { Self.runs(of: deletedRows) }

    /// `insertedRows` as runs of consecutive rows, ascending (a backspace inserts rows in runs).
    ///
    /// - Complexity: O(*k*) for *k* inserted rows.
    public var insertedRowRuns: [TableRowRun] { Self.runs(of: insertedRows) }

    /// Ascending index paths as runs of consecutive rows of one section.
    static func runs(of paths: [TableIndexPath]) -> [TableRowRun] {
        var runs: [TableRowRun] = []
        for path in paths {
            if let last = runs.last, last.section == path.section, last.rows.upperBound == path.row {
                runs[runs.count - 1].rows = last.rows.lowerBound..<(path.row + 1)
            } else {
                runs.append(TableRowRun(section: path.section, rows: path.row..<(path.row + 1)))
            }
        }
        return runs
    }
}
