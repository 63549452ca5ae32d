extension IDTable {
    /// Checks the table against the ids it indexes: `count` slots and `tombstones` tombstones in
    /// the buckets, under the maximum load; each slot once, its tag its id's, and found by its id.
    ///
    /// - Complexity: O(*b*) for *b* buckets, plus the ids' lengths.
    package func checkInvariants(ids: TextColumn) {
        invariant(buckets.count == tags.count, "IDTable has \(buckets.count) buckets, \(tags.count) tags")
        var entries = 0
        var dead = 0
        var seen = Set<Int32>()
        for (bucket, slot) in buckets.enumerated() {
            if slot == -2 { dead += 1 }
            guard slot >= 0 else { continue }
            entries += 1
            invariant(seen.insert(slot).inserted, "IDTable holds slot \(slot) twice")
            let hash = Self.hash(slot: slot, in: ids)
            invariant(tags[bucket] == Self.tag(hash), "IDTable bucket \(bucket)'s tag is not its id's")
            invariant(self.slot(of: ids.string(slot), ids: ids) == slot, "IDTable does not find slot \(slot) by its id")
        }
        invariant(entries == count, "IDTable counts \(count) ids, holds \(entries)")
        invariant(dead == tombstones, "IDTable counts \(tombstones) tombstones, holds \(dead)")
        invariant(
            (entries + dead) * Self.maxLoad.denominator <= buckets.count * Self.maxLoad.numerator
                + Self.maxLoad.denominator,
            "IDTable is over its maximum load"
        )
    }
}
