/// How long an answer took, measured with the controller's clock.
public struct SearchTiming: Hashable, Sendable {
    /// From the input (keystroke, scope change, submit) to the start of the query: the debounce
    /// interval, plus any wait for the controller.
    public var waited: Duration
    /// The source's time to answer.
    public var searched: Duration
    /// From the input to the update, tables and change sets included.
    public var total: Duration

    /// A timing from its parts.
    public init(waited: Duration, searched: Duration, total: Duration) {
        self.waited = waited
        self.searched = searched
        self.total = total
    }
}
