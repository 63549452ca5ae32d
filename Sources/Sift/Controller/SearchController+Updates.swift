extension SearchController {
    /// A stream of the controller's updates, starting with the latest one.
    ///
    /// The first element is the current state (`currentUpdate`): show its tables as they are.
    /// Each later element's change sets turn the previous element's tables into its own, as long
    /// as no update was dropped (see `UpdateBuffering`). The stream finishes when the controller
    /// is deinitialized.
    ///
    /// - Parameter buffering: how many updates to hold while the consumer is busy; by default all.
    /// - Complexity: O(1).
    public func updates(buffering: UpdateBuffering = .all) -> AsyncStream<SearchUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: SearchUpdate.self, bufferingPolicy: buffering.policy)
        continuation.yield(latestUpdate)
        subscribers[nextSubscriber] = continuation
        nextSubscriber += 1
        return stream
    }

    /// Calls `handler` with every update, in order, on `actor`, starting with the latest one.
    ///
    /// ```swift
    /// controller.deliverUpdates(to: model) { model, update in model.apply(update) }
    /// ```
    ///
    /// - Returns: the delivering task; cancel it to stop the deliveries.
    @discardableResult
    public func deliverUpdates<A: Actor>(
        to actor: A,
        buffering: UpdateBuffering = .all,
        _ handler: @escaping @Sendable (isolated A, SearchUpdate) -> Void
    ) -> Task<Void, Never> {
        let stream = updates(buffering: buffering)
        return Task.detached {
            for await update in stream { await Self.deliver(update, on: actor, handler) }
        }
    }

    /// Calls `handler` with every update, in order, on the main actor, starting with the latest
    /// one: the callback for UI code.
    ///
    /// ```swift
    /// await controller.deliverUpdatesOnMainActor { update in
    ///     self.tables = update.tables
    ///     self.tableView.apply(update.resultsChanges)
    /// }
    /// ```
    ///
    /// - Returns: the delivering task; cancel it to stop the deliveries.
    @discardableResult
    public func deliverUpdatesOnMainActor(
        buffering: UpdateBuffering = .all,
        _ handler: @escaping @MainActor @Sendable (SearchUpdate) -> Void
    ) -> Task<Void, Never> {
        let stream = updates(buffering: buffering)
        return Task { @MainActor in
            for await update in stream { handler(update) }
        }
    }

    private static func deliver<A: Actor>(
        _ update: SearchUpdate,
        on actor: isolated A,
        _ handler: @Sendable (isolated A, SearchUpdate) -> Void
    ) {
        handler(actor, update)
    }

    /// Sends the current state, with the given change sets, to every subscriber, as an update of
    /// the latest processed generation.
    ///
    /// Every change of the tables is followed by exactly one `publish`, so each update's change
    /// sets lead from the previous update's tables to its own. Generations never decrease here:
    /// updates carry `processedGeneration`, which only grows, and answers reach this point only
    /// while their generation is current (`isCurrent(_:)`), all on the actor.
    func publish(
        _ reason: UpdateReason,
        original: TableChangeSet = TableChangeSet(),
        results: TableChangeSet = TableChangeSet(),
        timing: SearchTiming? = nil
    ) {
        publish(reason, original: original, results: LazyChangeSet(results), timing: timing)
    }

    /// `publish(_:original:results:timing:)` with a results change set that may be worked out later.
    ///
    /// After a renumbering of the index's slots (`tablesRenumbered`), every row has a new handle:
    /// both change sets then say `requiresReload`.
    func publish(_ reason: UpdateReason, original: TableChangeSet, results: LazyChangeSet, timing: SearchTiming?) {
        var original = original
        var results = results
        if tablesRenumbered {
            original = .reload
            results = LazyChangeSet(.reload)
            tablesRenumbered = false
        }
        let update = SearchUpdate(
            sequence: latestUpdate.sequence + 1,
            generation: processedGeneration,
            reason: reason,
            query: query,
            state: state,
            scopes: scopes.enumerated().map { i, scope in
                ScopeButton(name: scope.name, minimumLength: scope.minimumLength, count: scopeCounts[i])
            },
            resultsQuery: content.query,
            tables: tables,
            originalChanges: original,
            resultsChanges: results,
            timing: timing
        )
        latestUpdate = update
        for (id, continuation) in subscribers {
            if case .terminated = continuation.yield(update) { subscribers[id] = nil }
        }
        if update.state.isSettled { resumeSettleWaiters(with: update) }
    }
}
