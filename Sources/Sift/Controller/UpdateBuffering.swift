/// How many updates a subscriber's stream holds while the subscriber is busy. The newest update is
/// never dropped.
public enum UpdateBuffering: Hashable, Sendable {
    /// Every update, in order: each one's change sets apply to the previous one's tables.
    case all
    /// Only the newest `count` updates (at least one). A subscriber that sees a gap in
    /// `SearchUpdate.sequence` must show the tables of the update it got instead of animating its
    /// change sets.
    case newest(Int)

    var policy: AsyncStream<SearchUpdate>.Continuation.BufferingPolicy {
        switch self {
        case .all: return .unbounded
        case .newest(let count): return .bufferingNewest(max(1, count))
        }
    }
}
