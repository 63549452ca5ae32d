/// Counts per bucket (members per block of a bitset, entries per block of a sequence) as a
/// Fenwick tree (binary indexed tree): prefix sums, updates and the search for the bucket holding
/// the *n*-th counted item all in O(log *b*) for *b* buckets, where an array of running starts
/// would rewrite every later start on each update.
///
/// Node *i* (1-based) holds the counts of buckets *i* − lowbit(*i*) ..< *i*.
package struct FenwickTree {
    package private(set) var nodes: [Int32] = []

    package init() {}

    /// A tree over `counts`, one per bucket.
    ///
    /// - Complexity: O(*b*).
    package init(counts: [Int32]) {
        nodes = counts
        // Each node adds its sum to its parent: the linear-time construction.
        for node in stride(from: 1, through: nodes.count, by: 1) {
            let parent = node + (node & -node)
            if parent <= nodes.count { nodes[parent - 1] += nodes[node - 1] }
        }
    }

    /// Number of buckets.
    package var count: Int { nodes.count }

    /// The sum of the counts of the buckets before `bucket`.
    ///
    /// - Complexity: O(log *b*).
    @inline(__always)
    @inlinable
    package func prefix(_ bucket: Int) -> Int {
        var node = bucket
        var sum = 0
        while node > 0 {
            sum += Int(nodes[node - 1])
            node &= node - 1
        }
        return sum
    }

    /// Adds `delta` to a bucket's count.
    ///
    /// - Complexity: O(log *b*).
    @inline(__always)
    @inlinable
    package mutating func add(_ delta: Int32, to bucket: Int) {
        var node = bucket + 1
        while node <= nodes.count {
            nodes[node - 1] += delta
            node += node & -node
        }
    }

    /// Appends a bucket with `count`.
    ///
    /// - Complexity: O(log *b*).
    package mutating func append(_ count: Int) {
        // The new node covers the new bucket and the buckets just before it.
        let node = nodes.count + 1
        nodes.append(Int32(count + prefix(node - 1) - prefix(node - (node & -node))))
    }

    /// The bucket holding the counted item at `position` (0-based, below the total), and the
    /// position within that bucket: a descent of the tree.
    ///
    /// - Complexity: O(log *b*).
    package func locate(_ position: Int) -> (bucket: Int, offset: Int) {
        var bucket = 0
        var remaining = position
        var step = nodes.isEmpty ? 0 : 1 << (Int.bitWidth - 1 - nodes.count.leadingZeroBitCount)
        while step > 0 {
            let next = bucket + step
            if next <= nodes.count && Int(nodes[next - 1]) <= remaining {
                bucket = next
                remaining -= Int(nodes[next - 1])
            }
            step >>= 1
        }
        return (bucket, remaining)
    }

    /// Drops spare capacity, keeping a little headroom.
    package mutating func trimCapacity() { nodes = withHeadroom(nodes) }

    /// Heap bytes used.
    package var memoryFootprint: Int { 4 * nodes.capacity }
}
