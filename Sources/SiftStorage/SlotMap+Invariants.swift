extension SlotMap {
    /// Checks the table: no buckets or a power of two of them, at most half full, `count` keys,
    /// each key non-negative and reachable from its home bucket without crossing an empty one.
    ///
    /// - Complexity: O(*b*) for *b* buckets.
    package func checkInvariants() {
        invariant(entries.count % 2 == 0, "SlotMap entries come in pairs")
        invariant(
            capacity == 0 || capacity & (capacity - 1) == 0,
            "SlotMap has \(capacity) buckets, not a power of two"
        )
        let keys = pairs
        invariant(keys.count == count, "SlotMap counts \(count) keys, holds \(keys.count)")
        invariant(count * 2 <= capacity || capacity == 0 && count == 0, "SlotMap is more than half full")
        for (key, value) in keys {
            invariant(key >= 0, "SlotMap holds a negative key \(key)")
            invariant(self[key] == value, "SlotMap key \(key) is not found from its home bucket")
        }
    }
}
