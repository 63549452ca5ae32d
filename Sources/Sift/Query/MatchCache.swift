/// Where in a field a pattern may start.

internal import SiftStorage

enum Anchor: UInt8, Hashable, Sendable {
    case anywhere
    case fieldStart
    case wordStart
    /// The pattern's elements in order, not necessarily adjacent (`MatchMode.fuzzy`).
    case fuzzy
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
    /// 0: the anchor's exact rule. Otherwise a typo key (`.wordStart` or `.fieldStart` anchor): the
    /// records with a record word (`.fieldStart`: the field from its start) a prefix of which is
    /// within this many edits of the pattern (see `TypoTolerance`); its candidates are its matches.
    var typos = 0
}

/// The records a field pattern matches, and the provable superset used to narrow longer patterns.
struct FieldMatch {
    /// Records with an accepted match (ICU usearch's start and end checks both pass).
    var matched: Bitset
    /// Records where the pattern's elements occur at a position where a match may start (for a
    /// `.fuzzy` key, the same as `matched`: a subsequence of a longer pattern is one of this). Every
    /// record matched by a pattern that extends this one (its elements start with this pattern's
    /// elements) is in here; `matched` alone would not do, since under collation a longer query
    /// can match more records (`stras` does not match `Straße` but `strass` does).
    var candidates: Bitset
}

/// A bounded, least-recently-used cache of field results, kept exact across edits.
///
/// Lookups serve backspace instantly; the longest cached prefix pattern serves as the candidate
/// set of a longer one. Entries are updated, not dropped, when records change — lazily: an edit
/// only notes the slot it changed (O(1)), and an entry re-checks the slots edited since it was
/// last brought up to date when it is next read, so every answer it gives is exact while an
/// edit costs the same with 1 or 64 cached entries (updating 64 result bitsets at once meant up
/// to 128 cache misses per edit). An entry that falls too far behind is dropped instead.
struct MatchCache {
    /// How one slot stands for one key now: candidate, matched.
    typealias Evaluate = (MatchKey, Int32) -> (candidate: Bool, matched: Bool)

    let capacity: Int
    /// At most `capacity` entries, in no particular order: a linear scan of a few dozen keys is
    /// cheaper than hashing them. `version` is the last edit the entry reflects.
    private var entries: [(key: MatchKey, match: FieldMatch, version: Int)] = []
    /// Each entry's last use (`clock` then), beside `entries`: the search for the least recently
    /// used reads this array only (reading the entries copied each key and result).
    private var lastUses: [UInt64] = []
    private var clock: UInt64 = 0
    /// Number of edits noted so far.
    private var version = 0
    /// The slots of edits `editBase + 1 ... version`, in order (only while some entry needs them).
    private var editedSlots: [Int32] = []
    private var editBase = 0
    /// How many entries each folding's field has (see `fieldID`): a query over more fields than
    /// the cache holds (a wide file searches a million) finds at once that most have none,
    /// instead of scanning every entry for each field.
    private var entriesOfField: [Int: Int] = [:]
    /// Edits kept before entries that lag by half as many are dropped.
    static let maximumPendingEdits = 512

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// The cached result for exactly this key, brought up to date.
    ///
    /// - Complexity: O(*c* + *p* · *s*) for *c* entries and *p* edits since the entry was last
    ///   read, each re-checking a record of size *s*.
    mutating func lookup(_ key: MatchKey, evaluate: Evaluate) -> FieldMatch? {
        guard entriesOfField[Self.fieldID(key)] != nil, let index = entries.firstIndex(where: { $0.key == key }) else {
            return nil
        }
        catchUp(index, evaluate)
        clock += 1
        lastUses[index] = clock
        return entries[index].match
    }

    /// The cached result whose candidates provably contain every record the key can match, and
    /// are fewest by construction, brought up to date: same folding and field, the longest
    /// pattern that `key.pattern` extends or equals, with the same anchor or `.anywhere` (the same
    /// anchor first among patterns of one length). A record matched at a field or word start is
    /// matched anywhere, so a ranked query's anchored scans of a pattern narrow from that
    /// pattern's own matches anywhere. A `.fuzzy` key narrows only from a `.fuzzy` entry (a
    /// subsequence match implies no contiguous one), and no other key narrows from one. A typo key
    /// narrows only from a typo entry (see `narrows(_:_:)`).
    ///
    /// - Complexity: O(*c* + *p* · *s*), as `lookup`.
    mutating func narrowingBase(for key: MatchKey, evaluate: Evaluate) -> FieldMatch? {
        guard entriesOfField[Self.fieldID(key)] != nil else { return nil }
        var best: (length: Int, sameAnchor: Bool, index: Int)? = nil
        // Entries of other fields are passed over on their folding and field alone, read in
        // place (iterating the entries copied each one, its key and result retained and released).
        entries.withUnsafeBufferPointer { entries in
            for index in entries.indices
            where entries[index].key.folding == key.folding && entries[index].key.field == key.field {
                let entry = entries[index].key
                guard Self.narrows(entry, key), entry.pattern.count <= key.pattern.count,
                    key.pattern.starts(with: entry.pattern), entry != key
                else { continue }
                let length = entry.pattern.count
                let sameAnchor = entry.anchor == key.anchor && entry.typos == key.typos
                if let current = best, current.length > length || (current.length == length && current.sameAnchor) {
                    continue
                }
                best = (length, sameAnchor, index)
            }
        }
        guard let best else { return nil }
        catchUp(best.index, evaluate)
        return entries[best.index].match
    }

    /// Whether an entry's kind (anchor and edits) may narrow a key's, patterns aside: the same
    /// anchor, or `.anywhere` for an exact non-fuzzy key; a typo key only from a typo entry of the
    /// same anchor with at least as many edits. Proof for typo keys: let D(i, j) be the optimal
    /// string alignment distance between the pattern's first i elements and a record word's first
    /// j. Every entry of row i is at least some entry of row i − 1: D(i, j) comes from D(i − 1, j)
    /// + 1 or D(i − 1, j − 1) + 0 or 1 (row i − 1), from D(i, j − 1) + 1 (row i, by induction on
    /// j), or, by a swap of the last two elements, from D(i − 2, j − 2) + 1 ≥ D(i − 1, j − 2)
    /// (delete the pattern's element i − 1). So the prefix distance of a pattern, the minimum of
    /// its last row, never exceeds that of a pattern it is a prefix of, at the same word starts:
    /// whatever a longer pattern matches within k edits, a shorter one matches within k (and
    /// within any k' ≥ k). Exact results (flag-checked, possibly across words) prove nothing of
    /// the kind, so they never narrow a typo key, and typo results never narrow an exact key.
    static func narrows(_ entry: MatchKey, _ key: MatchKey) -> Bool {
        switch key.strategy {
        case .typo: entry.typos >= key.typos && entry.anchor == key.anchor
        case .fuzzy: entry.strategy == .fuzzy
        case .exact: entry.strategy == .exact && (entry.anchor == key.anchor || entry.anchor == .anywhere)
        }
    }

    /// Stores a result computed from the index as it is now.
    mutating func store(_ match: FieldMatch, for key: MatchKey) {
        clock += 1
        let field = Self.fieldID(key)
        if entriesOfField[field] != nil, let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index] = (key, match, version)
            lastUses[index] = clock
            return
        }
        entriesOfField[field, default: 0] += 1
        guard entries.count >= capacity, !entries.isEmpty else {
            entries.append((key, match, version))
            lastUses.append(clock)
            return
        }
        // The least recently used entry gives its place (entries are in no particular order).
        var oldest = 0
        for index in lastUses.indices where lastUses[index] < lastUses[oldest] { oldest = index }
        let evicted = Self.fieldID(entries[oldest].key)
        entriesOfField[evicted]! -= 1
        if entriesOfField[evicted] == 0 { entriesOfField[evicted] = nil }
        entries[oldest] = (key, match, version)
        lastUses[oldest] = clock
    }

    /// A folding's field as one number, for `entriesOfField`.
    private static func fieldID(_ key: MatchKey) -> Int { key.folding &<< 32 | key.field }

    /// Notes that a slot changed (inserted, updated or freed): every entry re-checks it when it
    /// is next read.
    ///
    /// - Complexity: O(1) amortized (O(*c* + `maximumPendingEdits`) once every
    ///   `maximumPendingEdits` / 2 edits or more).
    mutating func noteEdit(slot: Int32) {
        version += 1
        guard !entries.isEmpty else {
            editedSlots.removeAll(keepingCapacity: true)
            editBase = version
            return
        }
        editedSlots.append(slot)
        if editedSlots.count >= Self.maximumPendingEdits { dropLaggingEntries() }
    }

    /// Drops the entries that lag by half the maximum or more, and the edits no entry needs.
    private mutating func dropLaggingEntries() {
        let threshold = version - Self.maximumPendingEdits / 2
        var kept = 0
        for index in entries.indices where entries[index].version > threshold {
            entries.swapAt(kept, index)
            lastUses.swapAt(kept, index)
            kept += 1
        }
        entries.removeSubrange(kept...)
        lastUses.removeSubrange(kept...)
        entriesOfField.removeAll(keepingCapacity: true)
        for entry in entries { entriesOfField[Self.fieldID(entry.key), default: 0] += 1 }
        let oldest = entries.map(\.version).min() ?? version
        editedSlots.removeFirst(oldest - editBase)
        editBase = oldest
    }

    /// Re-checks, in one entry, the slots edited since it was last brought up to date.
    private mutating func catchUp(_ index: Int, _ evaluate: Evaluate) {
        let behind = entries[index].version
        guard behind < version else { return }
        let key = entries[index].key
        for position in (behind - editBase)..<editedSlots.count {
            let slot = editedSlots[position]
            let (candidate, matched) = evaluate(key, slot)
            entries[index].match.candidates.set(slot, to: candidate)
            entries[index].match.matched.set(slot, to: matched)
        }
        entries[index].version = version
    }

    mutating func removeAll() {
        entries.removeAll()
        lastUses.removeAll()
        entriesOfField.removeAll()
        editedSlots.removeAll()
        editBase = version
    }

    /// Heap bytes held by cached bitsets and the edits not yet applied to them.
    var memoryFootprint: Int {
        entries.reduce(0) { $0 + $1.match.matched.memoryFootprint + $1.match.candidates.memoryFootprint }
            + 4 * editedSlots.capacity
    }
}
