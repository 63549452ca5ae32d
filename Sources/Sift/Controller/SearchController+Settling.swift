extension SearchController {
    /// A caller of `settledUpdate(for:)`, waiting for a settled update of its generation or a
    /// newer one.
    struct SettleWaiter {
        let generation: UInt64
        let continuation: CheckedContinuation<SearchUpdate, any Error>
    }

    /// Waits until the display has settled after input `generation`, and returns that update.
    ///
    /// The answer is the first update, from now on, whose generation is `generation` or newer and
    /// whose state is settled (`SearchState.isSettled`: no query scheduled or running). That is
    /// the answer to the input (or its "too short", "awaiting submit" or failed state); if a newer
    /// input superseded it before it settled, it is the settled update of the newer input, since
    /// an older generation's answer is never published after a newer input. An input whose
    /// generation has not been issued yet is waited for too.
    ///
    /// ```swift
    /// let update = try await controller.settledUpdate(for: controller.setText("sao"))
    /// print(update.tables.results.rowCount)
    /// ```
    ///
    /// Use it in place of polling `currentUpdate`: it suspends without spinning, and resumes from
    /// the controller's actor right after the update is sent to the `updates(buffering:)` streams.
    ///
    /// - Parameter generation: what `setText(_:)`, `selectScope(_:)`, `submit()` or `cancel()`
    ///   returned.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    /// - Complexity: O(1) to register; each later settled update resumes its waiters in O(*w*) for
    ///   *w* waiting callers.
    public func settledUpdate(for generation: UInt64) async throws -> SearchUpdate {
        if latestUpdate.generation >= generation && latestUpdate.state.isSettled { return latestUpdate }
        try Task.checkCancellation()
        let ticket = nextSettleTicket
        nextSettleTicket += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                settleWaiters[ticket] = SettleWaiter(generation: generation, continuation: continuation)
            }
        } onCancel: {
            Task { await self.cancelSettleWaiter(ticket) }
        }
    }

    /// Resumes every caller of `settledUpdate(for:)` that `update` answers.
    func resumeSettleWaiters(with update: SearchUpdate) {
        guard !settleWaiters.isEmpty else { return }
        for (ticket, waiter) in settleWaiters where waiter.generation <= update.generation {
            settleWaiters[ticket] = nil
            waiter.continuation.resume(returning: update)
        }
    }

    private func cancelSettleWaiter(_ ticket: Int) {
        settleWaiters.removeValue(forKey: ticket)?.continuation.resume(throwing: CancellationError())
    }
}
