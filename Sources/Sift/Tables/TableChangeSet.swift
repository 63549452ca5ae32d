/// How one table changed between two updates, in the coordinates a table view's batch update
/// needs to animate it.
///
/// The semantics are UIKit's `performBatchUpdates`: deleted sections and rows, reloaded rows and
/// the sources of moves are index paths in the *old* table; inserted sections and rows and the
/// destinations of moves are in the *new* table. Rows of a deleted section are not listed as
/// deleted, nor rows of an inserted section as inserted. A row is never both moved and reloaded;
/// a row that moves *and* changes is a delete plus an insert. Sections are inserted or deleted,
/// never moved or reloaded (a section's title is fixed by its AlphabeticIndex bucket).
///
/// ```swift
/// tableView.performBatchUpdates {
///     tableView.deleteSections(IndexSet(changes.deletedSections), with: .fade)
///     tableView.insertSections(IndexSet(changes.insertedSections), with: .fade)
///     tableView.deleteRows(at: changes.deletedRows.map(\.indexPath), with: .fade)
///     tableView.insertRows(at: changes.insertedRows.map(\.indexPath), with: .fade)
///     tableView.reloadRows(at: changes.reloadedRows.map(\.indexPath), with: .none)
///     for move in changes.movedRows { tableView.moveRow(at: move.from.indexPath, to: move.to.indexPath) }
/// }
/// ```
///
/// `apply(to:dataSource:)` replays a change set on a table the way a table view does, which is
/// how the tests prove that every change set turns the previous table into exactly the new one.
public struct TableChangeSet: Hashable, Sendable {
    /// A row moving from a path of the old table to a path of the new table.
    public struct Move: Hashable, Sendable {
        /// The row's path in the old table.
        public var from: TableIndexPath
        /// The row's path in the new table.
        public var to: TableIndexPath

        /// A move from an old path to a new one.
        public init(from: TableIndexPath, to: TableIndexPath) {
            self.from = from
            self.to = to
        }
    }

    /// Sections of the old table that are gone, ascending.
    public var deletedSections: [Int]
    /// Sections of the new table that are new, ascending.
    public var insertedSections: [Int]
    /// Rows of the old table that are gone (outside deleted sections), ascending.
    public var deletedRows: [TableIndexPath]
    /// Rows of the new table that are new (outside inserted sections), ascending.
    public var insertedRows: [TableIndexPath]
    /// Rows that moved, from old to new paths.
    public var movedRows: [Move]
    /// Rows of the old table whose content changed in place (an updated record), ascending.
    public var reloadedRows: [TableIndexPath]
    /// Whether the table changed in more rows than the change set was asked to list: show the
    /// new table whole (`reloadData()`), without animating; the lists are then empty. See
    /// `init(from:to:limit:)` and `SearchController.Options.changeLimit`.
    public var requiresReload = false

    /// The change set of a table to reload whole.
    public static let reload: TableChangeSet = {
        var changes = TableChangeSet()
        changes.requiresReload = true
        return changes
    }()

    /// A change set; the default is no change.
    public init(
        deletedSections: [Int] = [],
        insertedSections: [Int] = [],
        deletedRows: [TableIndexPath] = [],
        insertedRows: [TableIndexPath] = [],
        movedRows: [Move] = [],
        reloadedRows: [TableIndexPath] = []
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.deletedRows = deletedRows
        self.insertedRows = insertedRows
        self.movedRows = movedRows
        self.reloadedRows = reloadedRows
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        !requiresReload && deletedSections.isEmpty && insertedSections.isEmpty && deletedRows.isEmpty
            && insertedRows.isEmpty
            && movedRows.isEmpty && reloadedRows.isEmpty
    }
}
