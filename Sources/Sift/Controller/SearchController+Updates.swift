extension SearchController {
    /// A stream of the controller's updates, starting with the latest one.
    ///
    /// The first element is the current state: show its tables as they are. Each later
    /// element's change sets turn the tables of the element before it (the one the consumer
    /// received last) into its own:
    ///
    /// - With `.all` (the default), a consumer that keeps up receives every update. One that
    ///   falls behind receives, when it next reads, only the newest update, standing for those it
    ///   missed: its `sequence` skips theirs, and its change sets lead from the tables the
    ///   consumer received last to the newest (worked out when first read, O(*n* + *m*) in the
    ///   two tables' rows; `requiresReload` past `Options.changeLimit`, or after the index
    ///   renumbered its slots). The stream holds at most that one update and the tables last
    ///   received, however many updates go by unread: a slow or idle consumer costs O(1)
    ///   updates, not a copy of the tables per edit.
    /// - With `.newest(count)`, updates beyond the newest `count` are dropped unmerged: after a
    ///   gap in `sequence`, show the tables of the update received instead of animating its
    ///   change sets.
    ///
    /// Generations never decrease along the stream. It finishes when the controller is
    /// deinitialized (after the update it holds), or when the consuming task is cancelled.
    ///
    /// - Parameter buffering: what to hold while the consumer is busy; by default the newest
    ///   update, merged (see `UpdateBuffering`).
    /// - Complexity: O(1).
    public func updates(buffering: UpdateBuffering = .all) -> AsyncStream<SearchUpdate> {
        let stream: AsyncStream<SearchUpdate>
        switch buffering {
        case .all:
            let mailbox = UpdateMailbox(holding: latestUpdate, changeLimit: options.changeLimit)
            stream = mailbox.stream()
            subscribers[nextSubscriber] = .mailbox(mailbox)
        case .newest(let count):
            let (newest, continuation) = AsyncStream.makeStream(
                of: SearchUpdate.self,
                bufferingPolicy: .bufferingNewest(max(1, count))
            )
            continuation.yield(latestUpdate)
            stream = newest
            subscribers[nextSubscriber] = .stream(continuation)
        }
        nextSubscriber += 1
        return stream
    }

    /// Calls `handler` with every update, in order, on `actor`, starting with the latest one. A
    /// handler that falls behind gets the newest update with change sets from the one it
    /// handled last (see `updates(buffering:)`).
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
    /// one: the callback for UI code. A handler that falls behind gets the newest update with
    /// change sets from the one it handled last (see `updates(buffering:)`).
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
        let renumbered = tablesRenumbered
        if renumbered {
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
            originalChanges: LazyChangeSet(original),
            resultsChanges: results,
            timing: timing,
            renumberedHandles: renumbered,
            movedRecord: recordMoved
        )
        recordMoved = false
        latestUpdate = update
        for (id, subscriber) in subscribers where !subscriber.send(update) { subscribers[id] = nil }
        if update.state.isSettled { resumeSettleWaiters(with: update) }
    }
}
