/// Why a record ranks where it does among ranked results (`ResultOrder.ranked`): each ranking
/// rule's value for it, in the order the rules apply (`SearchIndex.rankingExplanation(of:for:)`).
///
/// ```swift
/// // zur in the bundled cities, ranked by typo, exactness, attribute, population, length:
/// // typo 0 · exactness field start · attribute name · population 415367 · length 6
/// ```
public struct RankingExplanation: Hashable, Sendable, CustomStringConvertible {
    /// One rule's value for the record.
    public struct Value: Hashable, Sendable {
        /// The rule; nil for the fuzzy score, which comes before every rule in `.fuzzy` mode.
        public var rule: RankingRule?
        /// The value as a person reads it: a number of typos, a way of matching (`whole field`,
        /// `field start`, `word start`, `inside a word`, `other clause`), a field name, a length
        /// in collation elements, or the custom field's text (`none` without a value).
        public var value: String
    }

    /// The values, first rule first.
    public var values: [Value]

    /// `rule value` pairs joined with ` · `.
    public var description: String {
        values.map { "\($0.rule?.ruleLabel ?? "score") \($0.value)" }.joined(separator: " · ")
    }
}

extension RankingRule {
    /// How an explanation names the rule: its name, a custom rule's field.
    var ruleLabel: String {
        if case .custom(let tieBreak) = self { return tieBreak.field }
        return name
    }
}
