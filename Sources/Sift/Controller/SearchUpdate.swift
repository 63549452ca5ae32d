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
    public var resultsChanges: TableChangeSet
    /// How long the answer took; only on updates with reason `.answer`.
    public var timing: SearchTiming?
}
