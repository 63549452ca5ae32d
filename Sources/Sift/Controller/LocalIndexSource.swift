/// The controller's own index as its source: exact answers, computed on the controller's actor,
/// cancelled within one polling interval of the index's scan when a newer input arrives.
public struct LocalIndexSource: SearchSource {
    /// The source; the index comes with each call.
    public init() {}

    /// Edits are supported: answers follow the index.
    public var supportsEditing: Bool { true }

    /// Runs `SearchIndex.search(_:isCancelled:)` with the request's cancellation check.
    ///
    /// - Complexity: that of `SearchIndex.search(_:isCancelled:)`.
    public func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        SearchAnswer(try index.search(request.query, isCancelled: request.isCancelled))
    }
}
