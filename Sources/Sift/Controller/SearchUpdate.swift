internal import Synchronization

/// One state of a search display, and how its tables changed since the previous update.
///
/// Updates of a controller are numbered by `sequence` without gaps; each one's change sets turn
/// the tables of the update before it into its own `tables`. Their `generation` never decreases:
/// an update about an older keystroke is never delivered after one about a newer keystroke.
public struct SearchUpdate: Sendable {
    /// 0 for the controller's initial update, then 1, 2, 3... with no gaps.
    public var sequence: UInt64
    /// The generation of the input this update reflects: each keystroke, scope change, submit or
    /// cancel starts a new generation; edits and answers keep the current one.
    public var generation: UInt64
    /// What caused the update.
    public var reason: UpdateReason
    /// The search bar's query: its text and selected scope (with the controller's mode and order).
    public var query: Query
    /// What the display is doing.
    public var state: SearchState
    /// The scope buttons, in order, with their badges.
    public var scopes: [ScopeButton]
    /// The query whose matches the results table shows; nil when it shows no query's matches
    /// (it is empty, or shows every record below the threshold).
    public var resultsQuery: Query?
    /// The original and results tables after this update.
    public var tables: SearchTables
    /// How the original table changed since the previous update.
    public var originalChanges: TableChangeSet
    /// How the results table changed since the previous update.
    ///
    /// A new query's change set is worked out the first time it is read (by whichever reader
    /// comes first; the others share it): an app that reloads its table on a new query never
    /// pays for it. Past `SearchController.Options.changeLimit` rows it `requiresReload`.
    ///
    /// - Complexity: O(1) once worked out; the first read of a new query's change set costs
    ///   O(*m* + *m'*) in the rows of the two results tables (see `TableChangeSet.init(from:to:limit:)`).
    public var resultsChanges: TableChangeSet {
        get { resultsChangeSet.value }
        set { resultsChangeSet = LazyChangeSet(newValue) }
    }
    /// How long the answer took; only on updates with reason `.answer`.
    public var timing: SearchTiming?

    var resultsChangeSet: LazyChangeSet

    init(
        sequence: UInt64,
        generation: UInt64,
        reason: UpdateReason,
        query: Query,
        state: SearchState,
        scopes: [ScopeButton],
        resultsQuery: Query?,
        tables: SearchTables,
        originalChanges: TableChangeSet,
        resultsChanges: LazyChangeSet,
        timing: SearchTiming? = nil
    ) {
        self.sequence = sequence
        self.generation = generation
        self.reason = reason
        self.query = query
        self.state = state
        self.scopes = scopes
        self.resultsQuery = resultsQuery
        self.tables = tables
        self.originalChanges = originalChanges
        self.resultsChangeSet = resultsChanges
        self.timing = timing
    }
}

/// A change set worked out the first time it is read, then kept.
final class LazyChangeSet: Sendable {
    private enum State {
        case known(TableChangeSet)
        case between(old: RecordTable, new: RecordTable, limit: Int?)
    }

    private let state: Mutex<State>

    /// A change set known already.
    init(_ changes: TableChangeSet = TableChangeSet()) { state = Mutex(.known(changes)) }

    /// The change set from `old` to `new`, worked out when first read.
    init(from old: RecordTable, to new: RecordTable, limit: Int?) {
        state = Mutex(.between(old: old, new: new, limit: limit))
    }

    var value: TableChangeSet {
        state.withLock { state in
            switch state {
            case .known(let changes):
                return changes
            case .between(let old, let new, let limit):
                let changes = TableChangeSet(from: old, to: new, limit: limit)
                state = .known(changes)
                return changes
            }
        }
    }
}
