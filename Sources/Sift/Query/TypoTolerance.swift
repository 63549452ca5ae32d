/// How many typos a `.words` or `.prefix` query forgives (`Query.typos`).
///
/// Edits are counted in collation elements of the index's collator at its strength, ignorable
/// elements dropped (the elements `.contains` compares): an insertion, a deletion, a substitution
/// or a swap of two adjacent elements (optimal string alignment distance) between a query word and
/// the nearest prefix of a record word. So typos respect the collation: `ñ` ≠ `n` in Spanish is an
/// edit, and `aa` = `å` in Danish is none. A query word of 5 to 8 elements may match with 1 edit,
/// one of 9 or more with 2 (Meilisearch's defaults); shorter words match exactly. Exact matches
/// always rank above typo matches (see `ResultOrder.ranked`).
public enum TypoTolerance: Hashable, Sendable, CustomStringConvertible {
    /// Only exact matches (the default).
    case off
    /// 1 edit for a query word of 5–8 collation elements, 2 for 9 or more.
    case auto
    /// The `auto` rule, with at most this many edits (0 is `off`).
    case maximum(Int)

    /// The tolerance `auto`, `off` or a number of edits names (as `sift query --typos` takes it);
    /// nil for anything else.
    public init?(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "off": self = .off
        default:
            guard let edits = Int(text), edits >= 0 else { return nil }
            self = .maximum(edits)
        }
    }

    /// `auto`, `off` or the number of edits.
    public var description: String {
        switch self {
        case .off: return "off"
        case .auto: return "auto"
        case .maximum(let edits): return String(edits)
        }
    }

    /// The edits a query word of `elements` collation elements may match with: 0 below 5 elements
    /// (and above `maximumElements`), 1 up to 8, 2 from 9, capped by `.maximum`.
    ///
    /// - Complexity: O(1).
    public func edits(forElements elements: Int) -> Int {
        let rule = elements < 5 || elements > Self.maximumElements ? 0 : elements < 9 ? 1 : 2
        switch self {
        case .off: return 0
        case .auto: return rule
        case .maximum(let edits): return max(0, min(rule, edits))
        }
    }

    /// The longest query word (in collation elements) that may match with typos; longer ones match
    /// exactly (the kernel's bound, `SIFT_TYPO_MAX_ELEMENTS`).
    public static let maximumElements = 128
}
