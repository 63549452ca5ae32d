/// What a subscriber's stream holds while the subscriber is busy (see
/// `SearchController.updates(buffering:)`). The newest update is never dropped, and along a
/// stream generations never decrease.
public enum UpdateBuffering: Hashable, Sendable {
    /// Every change, in order, in O(1) memory: a subscriber that keeps up receives every update;
    /// one that falls behind receives the newest update in place of those it missed, with change
    /// sets that turn the tables it received last into the newest (or `requiresReload`, see
    /// `SearchController.updates(buffering:)`). Its `sequence` then skips the ones missed.
    ///
    /// The stream holds at most one update and the tables received last, however many updates
    /// go by unread; a subscriber that never reads costs no more than the controller's own
    /// current update.
    case all
    /// Only the newest `count` updates (at least one), each as published. A subscriber that sees
    /// a gap in `SearchUpdate.sequence` must show the tables of the update it got instead of
    /// animating its change sets.
    ///
    /// Each update held keeps its own tables, and an edit that follows copies what it changes
    /// of the index's columns for them: up to `count` copies of the tables' data (O(*n*) each).
    case newest(Int)
}
