/// ICU's own string search (`usearch`) with a collation: the slow, per-text reference that
/// `SearchIndex` is tested against, match for match.
///
/// ```swift
/// let reference = try ReferenceSearch(collation: Collation(locale: "de"))
/// try reference.matches(of: "strasse", in: "Große Straße")   // [6..<12]
/// ```
///
/// Not thread-safe: use one instance per task.
public final class ReferenceSearch {
    /// The collation the searches use.
    public let collation: Collation
    private let folder: ICUFolder

    /// Opens an ICU collator and string search for a collation.
    ///
    /// - Throws: `SiftError.unknownLocale` for a locale ICU does not know, or `SiftError.icu`
    ///   when ICU rejects the collation (custom rules that do not parse, say).
    public init(collation: Collation) throws(SiftError) {
        self.collation = collation
        folder = try ICUFolder(ICUObjectCache.collator(collation))
    }

    /// Every match of `pattern` in `text`, first to last, non-overlapping, as UTF-16 ranges.
    ///
    /// - Complexity: O(*n* · *m*) collation work for a text of length *n* and a pattern of
    ///   length *m*: ICU's linear search re-derives collation elements at every position.
    public func matches(of pattern: String, in text: String) throws(SiftError) -> [Range<Int>] {
        try folder.referenceMatches(of: pattern, in: text).map { $0.start..<($0.start + $0.length) }
    }

    /// The collation elements `text` is compared by: ICU's collation element iterator, each
    /// element masked to the strength and adjusted for `alternate: .shifted` as ICU string search
    /// processes it, ignorable ones dropped. `MatchMode.fuzzy` is defined on these.
    ///
    /// - Complexity: O(*n*) in the length of the text.
    public func collationElements(of text: String) throws(SiftError) -> [Int64] {
        try folder.referenceElements(of: text)
    }

    /// Whether `pattern` occurs in `text` (at least one match).
    ///
    /// - Complexity: as `matches(of:in:)`, stopping at the first match.
    public func contains(_ pattern: String, in text: String) throws(SiftError) -> Bool {
        try !folder.referenceMatches(of: pattern, in: text).isEmpty
    }
}
