import SiftStorage
internal import Synchronization

/// What one `UpdateBuffering.all` subscriber has not taken yet: the newest update, standing for
/// every update published since the subscriber last took one, with change sets that lead from
/// the tables it took last to the newest ones.
///
/// The controller posts every update (`post(_:)`); the subscriber's stream takes them (`take()`),
/// waiting while none is held. However far the subscriber falls behind, the mailbox holds one
/// update and the tables of the last update taken, so a subscriber that never reads costs no
/// more than the controller's own current update.
///
/// An update taken alone (the subscriber kept up) keeps its own change sets. Several updates
/// taken as one get change sets worked out when first read
/// (`TableChangeSet.init(from:to:limit:rowsKeepTheirOrder:)`) between the last tables taken and
/// the newest: empty for a table none of them changed, `requiresReload` after a renumbering of
/// the index's slots (the handles of older tables name other records then).
final class UpdateMailbox: Sendable {
    private struct State {
        /// The newest update not taken yet.
        var newest: SearchUpdate?
        /// How many published updates `newest` stands for.
        var merged = 0
        /// Whether, since the last update taken, either table changed, the handles were
        /// renumbered, or a record moved in the original order.
        var originalChanged = false
        var resultsChanged = false
        var renumbered = false
        var movedRecord = false
        /// The tables of the last update taken; nil before the first.
        var lastTaken: SearchTables?
        /// The subscriber waiting for an update, when none is held.
        var waiter: CheckedContinuation<SearchUpdate?, Never>?
        /// The controller is gone: what is held is still taken, then the stream ends.
        var isFinished = false
        /// The subscriber is gone (its stream was dropped or its task cancelled).
        var isClosed = false

        /// Takes the held update, merged with the ones it stands for, or nil.
        mutating func takeHeld(changeLimit: Int?) -> SearchUpdate? {
            guard var update = newest else { return nil }
            if merged > 1, let lastTaken {
                let (old, new, limit) = (lastTaken, update.tables, changeLimit)
                update.originalChangeSet = changes(old.original, new.original, changed: originalChanged, limit: limit)
                update.resultsChangeSet = changes(old.results, new.results, changed: resultsChanged, limit: limit)
            }
            newest = nil
            merged = 0
            (originalChanged, resultsChanged, renumbered, movedRecord) = (false, false, false, false)
            lastTaken = update.tables
            return update
        }

        private func changes(_ old: RecordTable, _ new: RecordTable, changed: Bool, limit: Int?) -> LazyChangeSet {
            guard changed else { return LazyChangeSet() }
            guard !renumbered else { return LazyChangeSet(.reload) }
            return LazyChangeSet(from: old, to: new, limit: limit, rowsKeepTheirOrder: !movedRecord)
        }
    }

    private let state: Mutex<State>
    /// The controller's `Options.changeLimit`, for merged change sets.
    private let changeLimit: Int?

    /// A mailbox holding `first`, the update a new subscriber starts with.
    init(holding first: SearchUpdate, changeLimit: Int?) {
        var state = State()
        state.newest = first
        state.merged = 1
        self.state = Mutex(state)
        self.changeLimit = changeLimit
    }

    /// Hands `update` to the waiting subscriber, or holds it in place of the update held.
    ///
    /// - Returns: false when the subscriber is gone (the controller then forgets the mailbox).
    /// - Complexity: O(1).
    func post(_ update: SearchUpdate) -> Bool {
        typealias Outcome = (open: Bool, waiter: CheckedContinuation<SearchUpdate?, Never>?)
        let (open, waiter): Outcome = state.withSanitizerVisibleLock { state in
            if state.isClosed { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                state.lastTaken = update.tables
                return (true, waiter)
            }
            state.newest = update
            state.merged += 1
            state.originalChanged = state.originalChanged || !update.originalChangeSet.isKnownEmpty
            state.resultsChanged = state.resultsChanged || !update.resultsChangeSet.isKnownEmpty
            state.renumbered = state.renumbered || update.renumberedHandles
            state.movedRecord = state.movedRecord || update.movedRecord
            return (true, nil)
        }
        waiter?.resume(returning: update)
        return open
    }

    /// The next update: the one held, or the next one posted; nil once the controller is gone
    /// and nothing is held, or when the calling task is cancelled.
    func take() async -> SearchUpdate? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SearchUpdate?, Never>) in
                let ready: SearchUpdate?? = state.withSanitizerVisibleLock { state in
                    if state.isClosed { return .some(nil) }
                    if let update = state.takeHeld(changeLimit: changeLimit) { return .some(update) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// The controller is gone: the update held is still taken, then the stream ends.
    func finish() {
        let waiter = state.withSanitizerVisibleLock { state in
            state.isFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The subscriber is gone: drops what is held, ends a wait, and refuses later updates.
    func close() {
        let waiter = state.withSanitizerVisibleLock { state in
            state.isClosed = true
            state.newest = nil
            state.lastTaken = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// A stream that takes this mailbox's updates, and closes the mailbox when it is dropped or
    /// its reader is cancelled.
    func stream() -> AsyncStream<SearchUpdate> {
        let reader = Reader(self)
        return AsyncStream(unfolding: { await reader.mailbox.take() }, onCancel: { reader.mailbox.close() })
    }

    /// The stream's hold on the mailbox: released with the stream, which then closes the mailbox.
    private final class Reader: Sendable {
        let mailbox: UpdateMailbox
        init(_ mailbox: UpdateMailbox) { self.mailbox = mailbox }
        deinit { mailbox.close() }
    }
}
