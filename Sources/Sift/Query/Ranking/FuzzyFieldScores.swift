/// The fuzzy scores of one field pattern's matches, as of one revision of the index: one score
/// per member of the field's matches, in slot order (`SearchIndex.fuzzyFieldScores`).
///
/// A ranked fuzzy answer combines its fields' scores; kept, they spare the next ranked answer over
/// the same field results (a backspace, another scope, a letter typed again) a pass over every
/// result's bytes. An edit changes the revision, after which they are computed again.
struct FuzzyFieldScores {
    var key: MatchKey
    var revision: UInt64
    /// min(score, `SIFT_FUZZY_SCORE_LIMIT`) of each member of the field's matches, in slot order.
    var scores: [UInt16]

    /// Heap bytes of the scores.
    var memoryFootprint: Int { 2 * scores.capacity + key.pattern.capacity }
}
