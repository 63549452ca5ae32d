/// How a field pattern is matched: the strategy a `MatchKey` selects. Each strategy is one file,
/// `SearchIndex+<Strategy>Matching.swift` in this folder, with the same five parts: `evaluate`
/// (one slot), `fullScan` (a whole column), `narrowedScan` (the candidates of a shorter cached
/// pattern), `narrowsFrom` (whether narrowing beats a full scan) and the highlight ranges.
/// `SearchIndex+Matching.swift` dispatches to them; these switches are the only places that
/// choose by mode, so a new strategy is a case here, its file, and the compiler's list of the
/// switches to extend.
enum MatchStrategy: Hashable, Sendable {
    /// The pattern's elements contiguous, at the anchor (`.contains`, `.prefix`, `.words`).
    case exact
    /// The pattern's elements in order, not necessarily adjacent (`.fuzzy`).
    case fuzzy
    /// A record word's prefix within the key's edit budget of the pattern (`Query.typos`).
    case typo
}

extension MatchKey {
    /// The strategy that matches this key.
    var strategy: MatchStrategy {
        if typos > 0 { return .typo }
        return anchor == .fuzzy ? .fuzzy : .exact
    }
}
