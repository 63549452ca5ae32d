/// What caused an update.
public enum UpdateReason: Hashable, Sendable {
    /// The controller's first update, before any input.
    case initial
    /// A keystroke, scope change, submit or cancel.
    case input
    /// A search's progress: its debounce ended or its source reported progress.
    case progress
    /// A source answered (or failed to).
    case answer
    /// A record was inserted, deleted, moved or updated.
    case edit
}
