/// The search bar as the user left it, with the generation of the latest input.
///
/// Inputs arrive on the caller's thread and are recorded here at once, under a lock, so each gets
/// its generation immediately, even while the controller's actor is busy with a scan (which then
/// sees the newer generation and stops). The actor later processes only the latest state: inputs
/// that arrive faster than it can take them are coalesced.
struct InputState: Sendable {
    /// The kind of the latest input.
    enum Change: Sendable {
        case none, text, scope, options, submit, cancel
    }

    /// Incremented by every input.
    var generation: UInt64 = 0
    var isActive = false
    var text = ""
    var scope: String
    var lastChange = Change.none
    /// Whether the current text was submitted (cleared by the next text change).
    var isSubmitted = false
    /// How the query matches and orders its results (`SearchController.setQueryOptions`).
    var mode: MatchMode
    var typos: TypoTolerance
    var order: ResultOrder

    init(scope: String, mode: MatchMode, typos: TypoTolerance, order: ResultOrder) {
        self.scope = scope
        self.mode = mode
        self.typos = typos
        self.order = order
    }

    mutating func record(_ change: Change) -> UInt64 {
        generation += 1
        lastChange = change
        return generation
    }
}
