/// Where a server's records live when they live elsewhere (a PostgreSQL table), and where its
/// edits go.
///
/// Give one to ``SearchServer/init(shared:fieldOrder:shownFields:configuration:options:store:)``
/// together with the `SharedSearchIndex` that a follower keeps up to date with the
/// store. `POST`, `PUT` and `DELETE /records` then check the request (the admin key, the body's
/// JSON, the limits, no id twice in one batch) and hand the edit to ``submit(_:)``; the store,
/// not the server, decides whether it applies (an id to insert that exists, an id to delete that
/// does not): the server does not check the edit against its index, which may not show the
/// latest changes yet. The server writes no edit log of its own then, even with a data
/// directory.
///
/// ```swift
/// let shared = SharedSearchIndex(index)
/// let store = MyStore(shared: shared)   // starts following the database into `shared`
/// let server = try await SearchServer(shared: shared, fieldOrder: fields, configuration: configuration, store: store)
/// ```
public protocol ServerRecordStore: Sendable {
    /// Makes the edit durable in the store, all of it or none of it, then waits (a bounded
    /// time) until the shared index shows it.
    ///
    /// - Returns: the edit's sequence, how many records it changed, and whether the shared index
    ///   showed it when the wait ended.
    /// - Throws: ``ServerEditError`` when the store refuses the edit (nothing of it is applied)
    ///   or cannot take it now.
    func submit(_ edit: ServerEdit) async throws(ServerEditError) -> ServerEditReceipt

    /// What `/stats` shows under `"source"`; `/health` and `/stats` also read the applied
    /// sequence from it. Called on every such request: answer from what the follower knows,
    /// without a round trip to the store.
    func statistics() async -> ServerSourceStatistics

    /// Stops following and lets go of the store's connections; the server calls it once, when
    /// it closes. Edits after it are refused.
    func close() async
}
