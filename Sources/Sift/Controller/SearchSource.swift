/// Where a `SearchController` gets its answers: the local index (`LocalIndexSource`) or anything
/// slower, such as a remote service, whose answers come back late.
///
/// The controller calls `search(_:in:isolation:)` on its own actor, lending the source its index
/// for the call. A source that answers from the index does so synchronously there, polling
/// `request.isCancelled`; a remote source awaits its service (the controller keeps taking
/// keystrokes meanwhile), then turns the ids it got into handles with
/// `SearchAnswer(ids:in:scopeCounts:)`. Answers to superseded queries are dropped, however late
/// they come, and a source may be asked again for the same query only if the index changed while
/// its answer was on the way (see `SearchAnswer.revision`).
///
/// ```swift
/// struct RemoteSource: SearchSource {
///     let service: CityService   // an actor talking to a server
///
///     func search(_ request: SearchRequest, in index: SearchIndex, isolation: isolated any Actor) async throws -> SearchAnswer {
///         let reply = try await service.search(request.query.text, scope: request.query.scope)
///         try request.checkCancellation()
///         return SearchAnswer(ids: reply.ids, in: index, scopeCounts: reply.counts)
///     }
/// }
/// ```
public protocol SearchSource: Sendable {
    /// Whether the controller may edit records while this source answers its queries. Only a
    /// source whose answers follow the index (like `LocalIndexSource`) can say yes: after an
    /// edit the controller re-evaluates the edited record with the index itself. The default is
    /// false (a read-only source: edits throw).
    var supportsEditing: Bool { get }

    /// Answers a query.
    ///
    /// - Parameters:
    ///   - request: the query, its cancellation check and a progress callback.
    ///   - index: the controller's index, usable for the duration of the call.
    ///   - isolation: the controller's actor, which the call runs on.
    /// - Throws: `CancellationError` when superseded, or the source's own error (shown as
    ///   `SearchState.failed`).
    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
}

extension SearchSource {
    /// Read-only by default.
    public var supportsEditing: Bool { false }
}
