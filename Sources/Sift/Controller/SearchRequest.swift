/// A query the controller asks its source to answer, with the means to stop early and to report
/// progress.
///
/// A request lives on the controller's actor: a source uses it inside its
/// `SearchSource.search(_:in:isolation:)`, which runs there.
public struct SearchRequest {
    /// What to search for: text, scope, mode and order.
    public let query: Query
    /// The generation of the input that asked for this query.
    public let generation: UInt64
    /// True once a newer input (keystroke, scope change, submit, cancel) has superseded this
    /// query, or its task was cancelled. It can turn true while the query runs synchronously on
    /// the controller's actor, since inputs register without waiting for the actor; poll it in
    /// long loops. It is `@Sendable`, so work running elsewhere may poll it too.
    public let isCancelled: @Sendable () -> Bool
    private let progressHandler: (Double) -> Void

    init(
        query: Query,
        generation: UInt64,
        isCancelled: @escaping @Sendable () -> Bool,
        progressHandler: @escaping (Double) -> Void
    ) {
        self.query = query
        self.generation = generation
        self.isCancelled = isCancelled
        self.progressHandler = progressHandler
    }

    /// Throws `CancellationError` once the query is superseded.
    public func checkCancellation() throws {
        if isCancelled() { throw CancellationError() }
    }

    /// Reports the fraction of the work done (0...1): the controller publishes it as
    /// `SearchState.searching` progress, unless the query is superseded. Call it on the
    /// controller's actor (from within `search(_:in:isolation:)`).
    public func reportProgress(_ fractionCompleted: Double) {
        progressHandler(min(1, max(0, fractionCompleted)))
    }
}
