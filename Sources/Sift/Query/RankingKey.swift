/// Where a matching record goes in ranked results (`ResultOrder.ranked`), before original order:
/// keys compare by group, then length, then tie-break key (see `SearchIndex.rankingKey(of:for:)`).
struct RankingKey: Comparable {
    /// The ranking group (`SearchIndex.rankingGroup(of:for:)`), lower first.
    var group: Int
    /// The length of the field that decides the group, in collation elements up to 255 (0 where
    /// no field decides it), shorter first.
    var length: Int
    /// The tie-break key (`RankingTieBreak`), lower first; 0 for all without a tie-break.
    var tieBreak: UInt64

    static func < (a: RankingKey, b: RankingKey) -> Bool {
        (a.group, a.length, a.tieBreak) < (b.group, b.length, b.tieBreak)
    }
}
