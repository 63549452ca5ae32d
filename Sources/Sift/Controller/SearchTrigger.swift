/// When the controller runs a query.
public enum SearchTrigger: Hashable, Sendable {
    /// On every keystroke (after the debounce interval, if any) and scope change.
    case asYouType
    /// Only when the user submits (the keyboard's Search button), and on a scope change once the
    /// current text has been submitted: for sources too expensive to query per keystroke. Typing
    /// then shows `SearchState.awaitingSubmit` and leaves the results table as it was.
    case onSubmit
}
