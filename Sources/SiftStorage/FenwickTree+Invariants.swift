extension FenwickTree {
    /// Checks that every bucket's count (the difference of two prefix sums) is not negative.
    ///
    /// - Complexity: O(*b* log *b*) for *b* buckets.
    package func checkInvariants() {
        for bucket in 0..<count {
            invariant(prefix(bucket + 1) >= prefix(bucket), "FenwickTree bucket \(bucket) counts below zero")
        }
    }

    /// The count of one bucket.
    ///
    /// - Complexity: O(log *b*).
    package func bucketCount(_ bucket: Int) -> Int { prefix(bucket + 1) - prefix(bucket) }
}
