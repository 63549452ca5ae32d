internal import CSiftKernels

/// The generation of every slot: how many times the slot was given to a new record after its
/// record was removed. A `RecordHandle` carries its slot's generation, so that a handle to a
/// removed record is rejected once its slot holds another one.
///
/// Every generation is 0 until a freed slot is reused (always so after a bulk load or a snapshot
/// load): until then only the slot count is stored. The first reuse materializes the dense
/// array, which from then on costs four bytes a slot.
///
/// Generations count in the low `bits` bits of a handle's generation (wrapping around after 2^24
/// reuses of a slot); the high bits carry the index's tag (`SearchIndex.handleTag`).
package struct SlotGenerations: Equatable {
    /// The bits of a handle's generation that count reuses; the rest is the index's tag.
    package static let bits = 24
    package static let mask: UInt32 = (1 << UInt32(bits)) - 1

    /// Number of slots.
    package private(set) var count = 0
    /// One generation per slot once materialized; empty while every generation is 0.
    private var dense: [UInt32] = []
    /// Whether `dense` holds the generations.
    package private(set) var isMaterialized = false

    /// Slots `0..<count`, every generation 0.
    package init(count: Int = 0) { self.count = count }

    /// The generation of a slot in `0..<count`.
    ///
    /// - Complexity: O(1).
    @inlinable
    package subscript(slot: Int32) -> UInt32 { isMaterialized ? dense[Int(slot)] : 0 }

    /// Adds `added` slots of generation 0.
    ///
    /// - Complexity: O(1) until materialized, then O(`added`) amortized.
    @inlinable
    package mutating func append(zeros added: Int) {
        count += added
        if isMaterialized { dense.append(contentsOf: repeatElement(0, count: added)) }
    }

    /// Gives a freed slot to a new record: its generation goes up by one (wrapping around within
    /// `mask`).
    ///
    /// - Complexity: O(1); the first call materializes the generations, O(*n*) for *n* slots.
    /// Asks for the cache line of a slot's generation, once they are materialized.
    @inlinable
    package func prefetch(_ slot: Int32) {
        guard isMaterialized, slot >= 0, Int(slot) < dense.count else { return }
        dense.withUnsafeBufferPointer { sift_prefetch($0.baseAddress! + Int(slot)) }
    }

    @inlinable
    package mutating func bump(_ slot: Int32) {
        precondition(slot >= 0 && Int(slot) < count)
        if !isMaterialized {
            var materialized = [UInt32]()
            materialized.reserveCapacity(count + max(1024, count / 16))
            materialized.append(contentsOf: repeatElement(0, count: count))
            dense = materialized
            isMaterialized = true
        }
        dense[Int(slot)] = (dense[Int(slot)] &+ 1) & Self.mask
    }

    /// Calls `body` with the generations, or with nil while every one is 0 (so that a loop over
    /// many slots reads them without a check per slot).
    ///
    /// - Complexity: O(1) plus `body`.
    @inlinable
    package func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt32>?) throws -> R) rethrows -> R {
        guard isMaterialized else { return try body(nil) }
        return try dense.withUnsafeBufferPointer { try body($0) }
    }

    /// Makes room for `total` slots once materialized (nothing to reserve before).
    package mutating func reserveCapacity(_ total: Int) {
        if isMaterialized { dense.reserveCapacity(total) }
    }

    /// The generations of `slots` (ascending), the one of `slots[i]` at slot `i`: a renumbering's
    /// (see `SearchIndex.renumberSlots()`), so that a record keeps its generation in its new slot.
    ///
    /// - Complexity: O(`slots.count`) once materialized, O(1) before.
    package func renumbered(_ slots: [Int32]) -> SlotGenerations {
        var result = SlotGenerations(count: slots.count)
        guard isMaterialized else { return result }
        result.dense = slots.map { dense[Int($0)] }
        result.isMaterialized = true
        return result
    }

    /// Drops spare capacity beyond 1/16 (as `withHeadroom`), once materialized.
    ///
    /// - Complexity: O(*n*) once materialized, O(1) before.
    package mutating func trimCapacity() {
        if isMaterialized { dense = withHeadroom(dense) }
    }

    /// Whether two have the same slot count and generations (materialized or not).
    ///
    /// - Complexity: O(*n*) for *n* slots once either is materialized, O(1) before.
    package static func == (a: SlotGenerations, b: SlotGenerations) -> Bool {
        guard a.count == b.count else { return false }
        if !a.isMaterialized && !b.isMaterialized { return true }
        return (0..<a.count).allSatisfy { a[Int32($0)] == b[Int32($0)] }
    }

    /// Heap bytes: none until materialized, then four a slot (with capacity).
    package var memoryFootprint: Int { isMaterialized ? 4 * dense.capacity : 0 }
}
