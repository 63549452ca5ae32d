extension Bitset {
    /// Checks the sparse form: members ascending, distinct, non-negative and below the capacity.
    ///
    /// - Complexity: O(*k*) for *k* sparse members; O(1) for a dense set.
    package func checkInvariants() {
        guard let members = sparseMembers else { return }
        var previous: Int32 = -1
        for member in members {
            invariant(member > previous, "sparse Bitset members are not ascending and distinct at \(member)")
            previous = member
        }
        invariant(Int(previous) < capacity, "sparse Bitset member \(previous) is beyond its capacity \(capacity)")
    }
}
