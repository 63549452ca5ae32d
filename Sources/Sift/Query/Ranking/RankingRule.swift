/// One rule of ranked order (`ResultOrder.ranked`): a way to tell two matching records apart.
/// An index ranks by its configuration's rules (`IndexConfiguration.rankingRules`), in their
/// order: the first rule that tells two records apart decides which comes first; records that
/// every rule leaves tied keep their original order.
///
/// ```swift
/// // The defaults, then the most populous city among equally good matches of equal length.
/// [.typo, .exactness, .attribute, .length, .custom(RankingTieBreak(field: "population", numeric: true, descending: true))]
/// // Popularity before length: `zur` puts Zürich (415k people) before Zuru (24k), while a city
/// // named exactly `San` still comes before every name that only starts with it.
/// [.typo, .exactness, .attribute, .custom(RankingTieBreak(field: "population", numeric: true, descending: true)), .length]
/// ```
///
/// The rules read the query's first word (`.words` mode) or the whole query (`.contains`,
/// `.prefix`); for an operator query, the first clause's positive alternatives, each record by its
/// best one (`vim | emacs` ranks the package `emacs` as `emacs` alone would).
///
/// The **bucket rules** (`typo`, `exactness`, `attribute`) split the matches into groups; the
/// **order rules** (`length`, `custom`) order the records of a group. A list names the bucket
/// rules it uses first, then the order rules: `SearchIndex` throws
/// `SiftError.invalidConfiguration` for an order rule before a bucket rule, a rule listed twice,
/// or two custom rules. A bucket rule the list leaves out still applies, after those it names (in
/// the order typo, exactness, attribute); an order rule it leaves out does not apply.
///
/// In `.fuzzy` mode the score decides first, then the field reaching it, then that field's length
/// and the custom rule, in that order whatever the list says.
public enum RankingRule: Hashable, Sendable {
    /// Fewer typos first (`Query.typos`): exact matches, then those with one typo, and so on.
    case typo
    /// How the query matches its best field: the whole field (a one-word query equal to the field),
    /// then at the field's start, then at a word start (`.contains` mode; in `.words` mode every
    /// match starts a word), then inside a word. A typo match counts where its word starts.
    case exactness
    /// The earlier search field (`IndexConfiguration.searchFields` order) where the query matches
    /// best first: a name before a summary.
    case attribute
    /// The shorter deciding field first (the field the `attribute` rule names), in collation
    /// elements as the index stores it folded, counted up to 255 (longer fields tie).
    case length
    /// A field's value (`RankingTieBreak`): numeric or text, ascending or descending, records
    /// without a value last. A popularity rule: population descending.
    case custom(RankingTieBreak)

    /// The default rules: `[.typo, .exactness, .attribute, .length]`.
    public static let defaults: [RankingRule] = [.typo, .exactness, .attribute, .length]

    /// The rule's name as a description file writes it (`typo`, `exactness`, `attribute`,
    /// `length`), or, for a custom rule, its field with `:numeric` and `,desc` as they apply.
    public var name: String {
        switch self {
        case .typo: return "typo"
        case .exactness: return "exactness"
        case .attribute: return "attribute"
        case .length: return "length"
        case .custom(let tieBreak):
            return tieBreak.field + (tieBreak.numeric ? ":numeric" : "") + (tieBreak.descending ? ",desc" : "")
        }
    }

    /// Checks that an index can rank by `rules` (see the type's description): what `SearchIndex`
    /// checks of `IndexConfiguration.rankingRules`.
    ///
    /// - Throws: `SiftError.invalidConfiguration`, saying what is wrong.
    /// - Complexity: O(*r*) for *r* rules.
    public static func validate(_ rules: [RankingRule]) throws(SiftError) {
        _ = try RankingPlan.validated(rules).get()
    }

    /// Whether the rule splits matches into groups (typo, exactness, attribute) rather than
    /// ordering a group's records (length, custom).
    var isBucketRule: Bool {
        switch self {
        case .typo, .exactness, .attribute: return true
        case .length, .custom: return false
        }
    }
}

/// How a configuration's ranking rules apply (`IndexConfiguration.rankingRules`, checked by
/// `validated(_:)`).
struct RankingPlan: Hashable, Sendable {
    /// The bucket rules, all three: those listed, then the others.
    var buckets: [RankingRule]
    /// Whether the length rule applies.
    var sortsByLength: Bool
    /// Whether the custom rule comes before the length rule (when both apply).
    var customBeforeLength: Bool

    /// The plan of `rules`, or the reason they cannot rank.
    ///
    /// - Complexity: O(*r*) for *r* rules.
    static func validated(_ rules: [RankingRule]) -> Result<RankingPlan, SiftError> {
        var buckets: [RankingRule] = []
        var seenOrderRule = false
        var sortsByLength = false
        var custom = false
        var customBeforeLength = false
        for rule in rules {
            switch rule {
            case .typo, .exactness, .attribute:
                guard !buckets.contains(rule) else {
                    return .failure(.invalidConfiguration("the ranking rule '\(rule.name)' is listed twice"))
                }
                guard !seenOrderRule else {
                    return .failure(
                        .invalidConfiguration(
                            "the ranking rule '\(rule.name)' comes after an order rule: list typo, exactness and attribute before length and custom rules"
                        )
                    )
                }
                buckets.append(rule)
            case .length:
                guard !sortsByLength else {
                    return .failure(.invalidConfiguration("the ranking rule 'length' is listed twice"))
                }
                seenOrderRule = true
                sortsByLength = true
            case .custom:
                guard !custom else { return .failure(.invalidConfiguration("only one custom ranking rule can apply")) }
                seenOrderRule = true
                custom = true
                customBeforeLength = !sortsByLength
            }
        }
        for rule in [RankingRule.typo, .exactness, .attribute] where !buckets.contains(rule) { buckets.append(rule) }
        return .success(
            RankingPlan(
                buckets: buckets,
                sortsByLength: sortsByLength,
                customBeforeLength: custom && customBeforeLength
            )
        )
    }

    /// The plan of the default rules.
    static let defaults = RankingPlan(
        buckets: [.typo, .exactness, .attribute],
        sortsByLength: true,
        customBeforeLength: false
    )

    /// A group's place among the groups: its typo count, way (0 whole field … 4 none) and field
    /// position, in the order of the bucket rules.
    ///
    /// - Complexity: O(1).
    func groupKey(typos: Int, way: Int, field: Int) -> Int {
        var key = 0
        for rule in buckets {
            switch rule {
            case .typo: key = key << 20 | min(typos, (1 << 20) - 1)
            case .exactness: key = key << 3 | way
            default: key = key << 16 | min(field, (1 << 16) - 1)
            }
        }
        return key
    }
}
