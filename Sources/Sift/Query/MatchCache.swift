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
    /// At most `capacity` entries, in no particular order: a linear scan of a few dozen keys is
    /// cheaper than hashing them, and edits update every entry in place.
    private var entries: [(key: MatchKey, match: FieldMatch, lastUse: UInt64)] = []
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// The cached result for exactly this key.
    mutating func lookup(_ key: MatchKey) -> FieldMatch? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        clock += 1
        entries[index].lastUse = clock
        return entries[index].match
    }

    /// The cached result of the longest pattern that `key.pattern` extends (same folding, field,
    /// anchor), whose candidates contain every record the key can match.
    ///
    /// - Complexity: O(*c*) for *c* cached entries.
    func narrowingBase(for key: MatchKey) -> FieldMatch? {
        var best: (length: Int, match: FieldMatch)? = nil
        for entry in entries
        where entry.key.folding == key.folding && entry.key.field == key.field && entry.key.anchor == key.anchor
            && entry.key.pattern.count < key.pattern.count && key.pattern.starts(with: entry.key.pattern)
        {
            if best == nil || entry.key.pattern.count > best!.length { best = (entry.key.pattern.count, entry.match) }
        }
        return best?.match
    }

    mutating func store(_ match: FieldMatch, for key: MatchKey) {
        clock += 1
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index] = (key, match, clock)
            return
        }
        if entries.count >= capacity, let oldest = entries.indices.min(by: { entries[$0].lastUse < entries[$1].lastUse }) {
            entries.remove(at: oldest)
        }
        entries.append((key, match, clock))
    }

    /// Re-evaluates one slot in every entry (after an insert or update of that slot).
    ///
    /// - Complexity: O(*c* · *s*) for *c* entries and a record of size *s*.
    mutating func update(slot: Int32, evaluate: (MatchKey) -> (candidate: Bool, matched: Bool)) {
        for index in entries.indices {
            let (candidate, matched) = evaluate(entries[index].key)
            entries[index].match.candidates.set(slot, to: candidate)
            entries[index].match.matched.set(slot, to: matched)
        }
    }

    /// Removes a slot from every entry (after a delete).
    mutating func remove(slot: Int32) {
        for index in entries.indices {
            entries[index].match.candidates.remove(slot)
            entries[index].match.matched.remove(slot)
        }
    }

    mutating func removeAll() { entries.removeAll() }

    /// Heap bytes held by cached bitsets.
    var memoryFootprint: Int {
        entries.reduce(0) { $0 + 8 * ($1.match.matched.words.capacity + $1.match.candidates.words.capacity) }
    }
}
