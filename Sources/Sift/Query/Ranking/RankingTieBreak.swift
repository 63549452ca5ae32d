/// The field that breaks ties between ranked results (`ResultOrder.ranked`) that every other
/// ranking rule leaves equal: how the query matches, in which field, with how many typos and how
/// long the deciding field is (see `IndexConfiguration.rankingTieBreak`).
///
/// ```swift
/// // Among equally good matches, the most populous city first.
/// RankingTieBreak(field: "population", numeric: true, descending: true)
/// ```
///
/// A **numeric** tie-break reads the field's text as a decimal number: optional spaces, an
/// optional sign, digits with an optional decimal point, an optional exponent (`e` or `E`), as
/// `Double` parses them; records whose value is empty, not such a number, or not finite come
/// after all others (in either direction). A **text** tie-break compares records as the index's
/// sorted order does (`ResultOrder.sorted`: the field's AlphabeticIndex section, then collation
/// order with `IndexConfiguration.sortOptions`, then id), so its field must be the index's sort
/// field; records whose value is empty come after all others. `descending` reverses the order of
/// the values, not where missing ones go.
public struct RankingTieBreak: Hashable, Sendable {
    /// The field whose value breaks ties (any field of the records, searched or not).
    public var field: String
    /// Whether the values compare as numbers (parsed from the text) rather than as text.
    public var numeric: Bool
    /// Whether larger values (or later ones, for text) rank first.
    public var descending: Bool

    /// A tie-break on `field`; by default as text (the index's sorted order), smallest first.
    public init(field: String, numeric: Bool = false, descending: Bool = false) {
        self.field = field
        self.numeric = numeric
        self.descending = descending
    }

    /// The number a numeric tie-break reads in a value, or nil when there is none (see the type's
    /// description): only ASCII digits, signs, a point, `e`/`E` and surrounding spaces, finite.
    ///
    /// - Complexity: O(*n*) in the value's length.
    static func number(in value: Substring.UTF8View) -> Double? {
        var start = value.startIndex
        var end = value.endIndex
        while start < end, value[start] == 0x20 { start = value.index(after: start) }
        while end > start, value[value.index(before: end)] == 0x20 { end = value.index(before: end) }
        guard start < end else { return nil }
        let digits = value[start..<end]
        var sawDigit = false
        for byte in digits {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: return nil
            }
        }
        guard sawDigit, let number = Double(Substring(digits)), number.isFinite else { return nil }
        return number
    }

    /// The 64-bit key of a number: unsigned order of keys is the order of the numbers (reversed
    /// when descending); `missing` (no number) is after every number's key either way.
    ///
    /// - Complexity: O(1).
    static func key(of number: Double?, descending: Bool) -> UInt64 {
        guard let number else { return missing }
        let bits = (number == 0 ? 0.0 : number).bitPattern
        let ascending = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        return descending ? ~ascending : ascending
    }

    /// The key of a record without a value: after every value's key (no finite number's key, and
    /// no order label, reaches it).
    static let missing = UInt64.max
}
