/// Where the controller sends one subscriber's updates: a stream's own buffer
/// (`UpdateBuffering.newest(_:)`), or a mailbox that merges what the subscriber has not taken
/// (`UpdateBuffering.all`).
enum UpdateSubscriber: Sendable {
    case stream(AsyncStream<SearchUpdate>.Continuation)
    case mailbox(UpdateMailbox)

    /// Sends `update`; false when the subscriber is gone.
    ///
    /// - Complexity: O(1).
    func send(_ update: SearchUpdate) -> Bool {
        switch self {
        case .stream(let continuation):
            if case .terminated = continuation.yield(update) { return false }
            return true
        case .mailbox(let mailbox):
            return mailbox.post(update)
        }
    }

    /// Ends the subscriber's stream once it has taken what is held.
    func finish() {
        switch self {
        case .stream(let continuation): continuation.finish()
        case .mailbox(let mailbox): mailbox.finish()
        }
    }
}
