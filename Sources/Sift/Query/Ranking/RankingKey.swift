/// Where a matching record goes in ranked results (`ResultOrder.ranked`), before original order:
/// keys compare by group, then length and tie-break key in the order of the ranking rules (see
/// `SearchIndex.rankingKey(of:for:)`).
struct RankingKey: Comparable {
    /// The ranking group (`SearchIndex.rankingGroup(of:for:)`), lower first.
    var group: Int
    /// The length of the field that decides the group, in collation elements up to 255 (0 where
    /// the length rule does not apply), shorter first.
    var length: Int
    /// The tie-break key (`RankingTieBreak`), lower first; 0 for all without a custom rule.
    var tieBreak: UInt64
    /// Whether the tie-break key compares before the length (the custom rule before the length
    /// rule).
    var customFirst = false

    static func < (a: RankingKey, b: RankingKey) -> Bool {
        if a.group != b.group { return a.group < b.group }
        if a.customFirst { return (a.tieBreak, a.length) < (b.tieBreak, b.length) }
        return (a.length, a.tieBreak) < (b.length, b.tieBreak)
    }
}
