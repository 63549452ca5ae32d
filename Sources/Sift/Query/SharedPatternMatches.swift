/// The records of each pattern that several terms of one expression share (`b` in `a b | b c`),
/// kept while one evaluation still needs them: such a pattern's field results are looked up and
/// united once, not once per term (a query of hundreds of terms would otherwise push its own
/// results out of the `MatchCache` and scan them again). Patterns used once are not kept.

internal import SiftStorage

struct SharedPatternMatches {
    /// A pattern as one evaluation looks it up: codes, text (only at identical strength),
    /// anchor and edits.
    struct Key: Hashable {
        var bytes: [UInt8]
        var text: String?
        var anchor: Anchor
        var edits: Int
    }

    /// Uses still to come of each pattern used more than once.
    private var remaining: [Key: Int] = [:]
    /// The records of the shared patterns looked up so far.
    private var kept: [Key: Bitset] = [:]
    private let identical: Bool
    private let tolerance: TypoTolerance

    /// The shared patterns of `expression`'s terms (those it has patterns for).
    ///
    /// - Complexity: O(*p*) for *p* patterns.
    init(_ expression: FoldedExpression, identical: Bool, tolerance: TypoTolerance) {
        self.identical = identical
        self.tolerance = tolerance
        var uses: [Key: Int] = [:]
        for clause in expression.clauses {
            for term in clause where !term.occursNowhere {
                for pattern in term.patterns { uses[key(pattern, of: term), default: 0] += 1 }
            }
        }
        remaining = uses.filter { $0.value > 1 }
    }

    /// The key of one of a term's patterns.
    func key(_ pattern: (bytes: [UInt8], text: String), of term: FoldedExpression.Term) -> Key {
        Key(
            bytes: pattern.bytes,
            text: identical ? pattern.text : nil,
            anchor: term.anchor,
            edits: term.toleratesTypos ? SearchIndex.typoEdits(pattern.bytes, tolerance) : 0
        )
    }

    /// The records of a shared pattern looked up before (nil the first time, or for a pattern
    /// used once), counting this use: after its last use a pattern is no longer kept.
    mutating func take(_ key: Key) -> Bitset? {
        guard let left = remaining[key] else { return nil }
        if left <= 1 {
            remaining[key] = nil
            return kept.removeValue(forKey: key)
        }
        remaining[key] = left - 1
        return kept[key]
    }

    /// Keeps the records of a pattern for its later uses (nothing for a pattern used once).
    mutating func keep(_ records: Bitset, for key: Key) {
        guard let left = remaining[key], left > 0 else { return }
        kept[key] = records
    }
}
