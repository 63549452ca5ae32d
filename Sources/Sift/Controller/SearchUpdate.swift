import SiftStorage
internal import Synchronization

/// One state of a search display, and how its tables changed since the previous update.
///
/// Updates of a controller are numbered by `sequence` without gaps; each one's change sets turn
/// the tables of the update before it into its own `tables`. Their `generation` never decreases:
/// an update about an older keystroke is never delivered after one about a newer keystroke.
///
/// A subscriber that falls behind receives the newest update in place of the ones it missed
/// (`UpdateBuffering.all`): its `sequence` skips theirs, and its change sets turn the tables of
/// the update the subscriber received last into its own.
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
    /// How the original table changed since the previous update (since the previous update
    /// received, for a subscriber that fell behind).
    ///
    /// - Complexity: O(1) once worked out; an update standing for several (see
    ///   `UpdateBuffering.all`) works it out on first read, O(*n* + *n'*) in the rows of the two
    ///   original tables.
    public var originalChanges: TableChangeSet {
        get { originalChangeSet.value }
        set { originalChangeSet = LazyChangeSet(newValue) }
    }
    /// How the results table changed since the previous update (since the previous update
    /// received, for a subscriber that fell behind).
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

    var originalChangeSet: LazyChangeSet
    var resultsChangeSet: LazyChangeSet
    /// Whether the index renumbered its slots for this update: the previous update's handles name
    /// other records now, so no change set can be worked out from its tables.
    var renumberedHandles: Bool
    /// Whether a record moved in the original order for this update: rows kept from the previous
    /// update's tables may be in another relative order.
    var movedRecord: Bool

    init(
        sequence: UInt64,
        generation: UInt64,
        reason: UpdateReason,
        query: Query,
        state: SearchState,
        scopes: [ScopeButton],
        resultsQuery: Query?,
        tables: SearchTables,
        originalChanges: LazyChangeSet,
        resultsChanges: LazyChangeSet,
        timing: SearchTiming? = nil,
        renumberedHandles: Bool = false,
        movedRecord: Bool = false
    ) {
        self.sequence = sequence
        self.generation = generation
        self.reason = reason
        self.query = query
        self.state = state
        self.scopes = scopes
        self.resultsQuery = resultsQuery
        self.tables = tables
        self.originalChangeSet = originalChanges
        self.resultsChangeSet = resultsChanges
        self.timing = timing
        self.renumberedHandles = renumberedHandles
        self.movedRecord = movedRecord
    }
}

/// A change set worked out the first time it is read, then kept.
final class LazyChangeSet: Sendable {
    private enum State {
        case known(TableChangeSet)
        case between(old: RecordTable, new: RecordTable, limit: Int?, rowsKeepTheirOrder: Bool)
    }

    private let state: Mutex<State>

    /// A change set known already.
    init(_ changes: TableChangeSet = TableChangeSet()) { state = Mutex(.known(changes)) }

    /// The change set from `old` to `new`, worked out when first read (see
    /// `TableChangeSet.init(from:to:limit:rowsKeepTheirOrder:)`).
    init(from old: RecordTable, to new: RecordTable, limit: Int?, rowsKeepTheirOrder: Bool = true) {
        state = Mutex(.between(old: old, new: new, limit: limit, rowsKeepTheirOrder: rowsKeepTheirOrder))
    }

    /// Whether the change set is known to be empty without working it out.
    var isKnownEmpty: Bool {
        state.withSanitizerVisibleLock { state in
            if case .known(let changes) = state { return changes.isEmpty }
            return false
        }
    }

    var value: TableChangeSet {
        state.withSanitizerVisibleLock { state in
            switch state {
            case .known(let changes):
                return changes
            case .between(let old, let new, let limit, let rowsKeepTheirOrder):
                let changes = TableChangeSet(from: old, to: new, limit: limit, rowsKeepTheirOrder: rowsKeepTheirOrder)
                state = .known(changes)
                return changes
            }
        }
    }
}
