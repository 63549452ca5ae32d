/// What an index searches and how: fields, collation, scopes and sorting.
public struct IndexConfiguration: Hashable, Sendable {
    /// The fields folded for searching, in display order.
    public var searchFields: [String]
    /// The index's collation (scopes may override it).
    public var collation: Collation {
        get {
            var collation = storedCollation
            collation.sortOptions = sortOptions
            return collation
        }
        set { storedCollation = newValue }
    }
    private var storedCollation: Collation
    /// Scope buttons, in order. Defaults to a single scope "All" over every search field.
    public var scopes: [Scope]
    /// Field whose collation order `ResultOrder.sorted` and the sections use; nil means the first
    /// search field.
    public var sortField: String?
    /// How the sort field compares: as text or by the numbers in it, with or without spaces and
    /// punctuation. The default compares text, spaces and punctuation included.
    public var sortOptions: SortOptions
    /// Number of (field, pattern) results kept for narrowing and instant backspace.
    public var cacheCapacity: Int
    /// The rules that order ranked results (`ResultOrder.ranked`), first rule first, before
    /// original order (see `RankingRule`). Defaults to `RankingRule.defaults`: typo, exactness,
    /// attribute, length. `SearchIndex` throws `SiftError.invalidConfiguration` for a list it
    /// cannot rank by (see `RankingRule`).
    public var rankingRules: [RankingRule]
    /// The field of the custom ranking rule (`RankingRule.custom`), nil when `rankingRules` has
    /// none. Setting it replaces that rule where it is, or adds it after the other rules; nil
    /// removes it. Any field of the records may rank numerically (records without it come last);
    /// a text rule must be the sort field (`sortField`, or the first search field).
    /// `SearchIndex` throws `SiftError.invalidConfiguration` for an empty field name or a text
    /// rule on another field.
    public var rankingTieBreak: RankingTieBreak? {
        get {
            for case .custom(let tieBreak) in rankingRules { return tieBreak }
            return nil
        }
        set {
            let at = rankingRules.firstIndex { if case .custom = $0 { return true } else { return false } }
            switch (at, newValue) {
            case (let at?, let tieBreak?): rankingRules[at] = .custom(tieBreak)
            case (let at?, nil): rankingRules.remove(at: at)
            case (nil, let tieBreak?): rankingRules.append(.custom(tieBreak))
            case (nil, nil): break
            }
        }
    }

    /// A configuration; every argument but the search fields has a default. A `rankingTieBreak`
    /// replaces the custom rule of `rankingRules`, or comes after its other rules.
    ///
    /// ```swift
    /// let byPopulation = IndexConfiguration(
    ///     searchFields: ["name"], sortField: "population",
    ///     sortOptions: SortOptions(numeric: true))     // 15114 before 136455 before 2138551
    /// ```
    public init(
        searchFields: [String],
        collation: Collation = Collation(),
        scopes: [Scope] = [Scope(name: "All")],
        sortField: String? = nil,
        sortOptions: SortOptions = SortOptions(),
        cacheCapacity: Int = 64,
        rankingTieBreak: RankingTieBreak? = nil,
        rankingRules: [RankingRule] = RankingRule.defaults
    ) {
        self.searchFields = searchFields
        self.storedCollation = collation
        self.scopes = scopes
        self.sortField = sortField
        self.sortOptions = sortOptions
        self.cacheCapacity = cacheCapacity
        self.rankingRules = rankingRules
        if let rankingTieBreak { self.rankingTieBreak = rankingTieBreak }
    }
}

/// How an index orders records by its sort field (`IndexConfiguration.sortField`): the order of
/// `ResultOrder.sorted` results, of `SearchIndex.handles(in: .sorted)` and of a sorted
/// `RecordTable`.
///
/// Records compare by the sort field under the index collation's locale at tertiary strength
/// (case and accents order equal base letters), then by record id. These options change that
/// comparison; matching is never affected. (For largest first, read the sorted order backwards.)
///
/// ```swift
/// SortOptions()                       // "136455" < "15114" < "2138551" (text)
/// SortOptions(numeric: true)          // 15114 < 136455 < 2138551
/// SortOptions(alternate: .shifted)    // "‘Abasān" as "Abasān": after "Aachen", not before it
/// ```
public struct SortOptions: Hashable, Sendable {
    /// Runs of ASCII and other decimal digits compare as whole numbers (ICU's numeric collation,
    /// `UCOL_NUMERIC_COLLATION`): `"9" < "10" < "15114" < "2138551"`, and `"Route 9"` before
    /// `"Route 10"`. Signs, decimal points and digit group separators are not part of a number:
    /// `"-5"` sorts as `"-"` then 5, `"1,500"` as 1, `","`, 500 and `"2.10"` after `"2.9"`.
    public var numeric: Bool
    /// Whether spaces and punctuation count when sorting. `.nonIgnorable` (the default) compares
    /// them as characters that sort before letters and digits, so `"‘Abasān"` comes before
    /// `"Aachen"`; `.shifted` ignores them (they only break ties between otherwise equal
    /// values), so `"‘Abasān"` sorts as `"Abasān"`, after `"Aachen"`. The collation's own
    /// `alternate` decides matching.
    ///
    /// Sections always ignore spaces and punctuation before the first letter:
    /// `"'s-Gravenzande"` is in section S either way.
    public var alternate: Collation.Alternate

    /// Sort options; the defaults compare text, spaces and punctuation included.
    public init(numeric: Bool = false, alternate: Collation.Alternate = .nonIgnorable) {
        self.numeric = numeric
        self.alternate = alternate
    }
}
