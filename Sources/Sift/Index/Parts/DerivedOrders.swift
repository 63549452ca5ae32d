/// The orders and groupings a `SearchIndex` derives from its records and keeps current under
/// every edit: the original order, the sorted order with its sections, the category members and
/// the ranking keys. The sorted order, categories and ranking keys are built on first use.

internal import SiftStorage

struct DerivedOrders {
    /// Live slots in original order.
    var order = SlotSequence()
    /// The folder of the sort field's collation (`Collation.sortingCollation`).
    let sortFolder: ICUFolder
    /// The sort field's position among all fields.
    let sortFieldPosition: Int
    /// Live slots in collation order of the sort field, ties by id; nil until first needed.
    var sortedStorage: SlotSequence?
    /// The locale's section labels and the section of a name.
    let alphabeticIndex: ICUAlphabeticIndex
    /// Section of each slot; valid while `sortedStorage` exists. Two bytes a slot: ICU's
    /// AlphabeticIndex has at most its maximum label count (99 by default) plus three buckets.
    var sectionOfSlot: [UInt16] = []
    /// Members per category value, by field position, built on first use and kept current by
    /// edits.
    var categoryMembers: [Int: [String: Bitset]] = [:]
    /// Per-slot keys of the ranking rules after the groups (field lengths, numeric tie-break
    /// values): nil until a ranked query first needs them, then kept current by every commit
    /// (see `SearchIndex+RankingKeys.swift`); a bulk insert drops them.
    var rankingKeysStorage: RankingKeys?
    /// The position of `IndexConfiguration.rankingTieBreak`'s field, if there is one.
    var tieBreakFieldPosition: Int? = nil
    /// How `IndexConfiguration.rankingRules` apply.
    let rankingPlan: RankingPlan
}
