/// The most one query may ask of an index: its length, the terms it searches for, and the words
/// that tolerate typos. A query past a limit is refused at once with
/// `SiftError.queryTooLarge`, before any folding or scanning, by every API that reads a query
/// (`SearchIndex.search(_:isCancelled:)`, `matches(_:_:)`, `matchRanges(of:for:)`,
/// `highlights(of:for:)`, `snippets(of:for:length:)`), so that a tool, a controller and a server
/// all get the same bound.
///
/// A query's cost grows with its terms: each distinct term is one scan (or cache lookup) per
/// searched field, one pass over a bitset of every record, and, for each row shown, one walk of
/// its fields; each word that tolerates typos adds an edit-distance sweep per field. The defaults
/// keep the worst query a person can type or paste within a keystroke's budget on a large index:
///
/// - `maximumLength`, 4,096 UTF-8 bytes: a pasted paragraph (some 600 words of English) is well
///   within it; longer text is a document, not a query, and only costs folding.
/// - `maximumTerms`, 256: the distinct words and phrases the query is evaluated as, after folding
///   (a repeated term counts once: `a | a | a` is one term; words are told apart by their
///   collation elements, whatever the index holds). A long pasted sentence has a few
///   dozen words; 256 term scans of a 100,000-record field take tens of milliseconds.
/// - `maximumTypoWords`, 32: the distinct query words long enough for an edit (see
///   `TypoTolerance`) in a query with typo tolerance; each adds a typo sweep per field, several
///   times the cost of an exact scan.
///
/// ```swift
/// index.queryLimits = QueryLimits(maximumTerms: 1_000)   // a tool that builds long OR queries
/// index.queryLimits = .unlimited                          // trusted input only
/// ```
public struct QueryLimits: Hashable, Sendable {
    /// The longest query text, in UTF-8 bytes. 4,096 by default.
    public var maximumLength: Int
    /// The most distinct terms (words and phrases, after folding; repeats count once) a query may
    /// search for. In `.contains`, `.prefix` and `.fuzzy` modes a query is one term. 256 by default.
    public var maximumTerms: Int
    /// The most distinct words that may tolerate typos (those long enough for an edit under the
    /// query's `TypoTolerance`). 32 by default.
    public var maximumTypoWords: Int

    /// Limits; each argument has its default.
    public init(maximumLength: Int = 4_096, maximumTerms: Int = 256, maximumTypoWords: Int = 32) {
        self.maximumLength = maximumLength
        self.maximumTerms = maximumTerms
        self.maximumTypoWords = maximumTypoWords
    }

    /// No limit at all: for trusted queries only.
    public static let unlimited = QueryLimits(maximumLength: .max, maximumTerms: .max, maximumTypoWords: .max)

    /// The limit names `SiftError.queryTooLarge` reports.
    package static let lengthName = "maximumLength"
    package static let termsName = "maximumTerms"
    package static let typoWordsName = "maximumTypoWords"
}
