/// How far a search has come, for a spinner or a progress bar.
public struct SearchProgress: Hashable, Sendable {
    /// What the search is waiting for.
    public enum Stage: Hashable, Sendable {
        /// The debounce interval after the last keystroke has not elapsed yet.
        case debouncing
        /// The source is answering.
        case running
    }

    /// What the search is waiting for.
    public var stage: Stage
    /// The fraction done, 0...1, when the source reports it (see `SearchRequest.reportProgress`).
    public var fractionCompleted: Double?

    /// A progress report.
    public init(stage: Stage, fractionCompleted: Double? = nil) {
        self.stage = stage
        self.fractionCompleted = fractionCompleted
    }
}
