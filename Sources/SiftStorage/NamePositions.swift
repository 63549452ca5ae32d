/// A hash table from the names of a list to their positions, holding 4 bytes a bucket and
/// reading the names from the list itself: about 8–16 bytes a name, where a `[String: Int]`
/// takes about 50 at a million names (wide headers, issue 27).
///
/// The list is not stored: every call takes it, and it must be the list the table was built
/// from, with names only ever appended (`append(positionOf:in:)`). A repeated name keeps its
/// first position.
package struct NamePositions: Sendable {
    /// Open addressing with linear probing: a position, or -1 for an empty bucket. The count is a
    /// power of two at least twice the number of names placed.
    private var buckets: [Int32]
    /// Number of names placed, repeats included.
    private var placed = 0

    /// The positions of `names` (the first of each repeated name).
    ///
    /// - Complexity: O(*n*) expected.
    package init(_ names: [String]) {
        var size = 8
        while size < 2 * names.count { size *= 2 }
        buckets = [Int32](repeating: -1, count: size)
        for position in names.indices { place(position, in: names) }
    }

    /// The first position of `name` in `names`, or nil.
    ///
    /// - Complexity: O(1) expected.
    package func position(of name: String, in names: [String]) -> Int? {
        let mask = buckets.count - 1
        var bucket = name.hashValue & mask
        while true {
            let position = buckets[bucket]
            if position < 0 { return nil }
            if names[Int(position)] == name { return Int(position) }
            bucket = (bucket + 1) & mask
        }
    }

    /// Places the name just appended at the end of `names` (a repeat keeps its first position).
    ///
    /// - Complexity: O(1) amortized.
    package mutating func append(positionOf position: Int, in names: [String]) {
        if 2 * (placed + 1) > buckets.count {
            buckets = [Int32](repeating: -1, count: 2 * buckets.count)
            let count = placed
            placed = 0
            for earlier in 0..<count { place(earlier, in: names) }
        }
        place(position, in: names)
    }

    /// Heap bytes held.
    package var memoryFootprint: Int { 4 * buckets.capacity }

    private mutating func place(_ position: Int, in names: [String]) {
        placed += 1
        let mask = buckets.count - 1
        let name = names[position]
        var bucket = name.hashValue & mask
        while true {
            let other = buckets[bucket]
            if other < 0 { break }
            if names[Int(other)] == name { return }  // a repeat: the first position stays
            bucket = (bucket + 1) & mask
        }
        buckets[bucket] = Int32(position)
    }
}
