/// Where in a field a pattern may start.
enum Anchor: UInt8, Hashable, Sendable {
    case anywhere
    case fieldStart
    case wordStart
}

/// A folded pattern searched in one field of one folding.
struct MatchKey: Hashable {
    var folding: Int
    var field: Int
    var anchor: Anchor
    /// The pattern's codes (see `CodeBook`).
    var pattern: [UInt8]
    /// The pattern text, only at identical strength (where matches are also checked by NFD equality).
    var identicalText: String?
}

/// The records a field pattern matches, and the provable superset used to narrow longer patterns.
struct FieldMatch {
    /// Records with an accepted match (ICU usearch's start and end checks both pass).
    var matched: Bitset
    /// Records where the pattern's elements occur at a position where a match may start. Every
    /// record matched by a pattern that extends this one (its elements start with this pattern's
    /// elements) is in here; `matched` alone would not do, since under collation a longer query
    /// can match more records (`stras` does not match `Straße` but `strass` does).
    var candidates: Bitset
}

/// A bounded, least-recently-used cache of field results, kept exact across edits.
///
/// Lookups serve backspace instantly; the longest cached prefix pattern serves as the candidate
/// set of a longer one. Entries are updated, not dropped, when records change.
struct MatchCache {
    let capacity: Int
    private var entries: [MatchKey: (match: FieldMatch, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// The cached result for exactly this key.
    mutating func lookup(_ key: MatchKey) -> FieldMatch? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.match, clock)
        return entry.match
    }

    /// The cached result of the longest pattern that `key.pattern` extends (same folding, field,
    /// anchor), whose candidates contain every record the key can match.
    ///
    /// - Complexity: O(*c*) for *c* cached entries.
    func narrowingBase(for key: MatchKey) -> FieldMatch? {
        var best: (length: Int, match: FieldMatch)? = nil
        for (other, entry) in entries
        where other.folding == key.folding && other.field == key.field && other.anchor == key.anchor
            && other.pattern.count < key.pattern.count && key.pattern.starts(with: other.pattern)
        {
            if best == nil || other.pattern.count > best!.length { best = (other.pattern.count, entry.match) }
        }
        return best?.match
    }

    mutating func store(_ match: FieldMatch, for key: MatchKey) {
        clock += 1
        entries[key] = (match, clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
    }

    /// Re-evaluates one slot in every entry (after an insert or update of that slot).
    mutating func update(slot: Int32, evaluate: (MatchKey) -> (candidate: Bool, matched: Bool)) {
        for key in Array(entries.keys) {
            let (candidate, matched) = evaluate(key)
            entries[key]!.match.candidates.set(slot, to: candidate)
            entries[key]!.match.matched.set(slot, to: matched)
        }
    }

    /// Removes a slot from every entry (after a delete).
    mutating func remove(slot: Int32) {
        for key in Array(entries.keys) {
            entries[key]!.match.candidates.remove(slot)
            entries[key]!.match.matched.remove(slot)
        }
    }

    mutating func removeAll() { entries.removeAll() }

    /// Heap bytes held by cached bitsets.
    var memoryFootprint: Int {
        entries.values.reduce(0) { $0 + 8 * ($1.match.matched.words.capacity + $1.match.candidates.words.capacity) }
    }
}
