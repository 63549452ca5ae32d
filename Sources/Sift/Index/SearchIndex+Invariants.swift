internal import SiftStorage

extension SearchIndex {
    /// Checks every part of the index and how the parts agree (see `InternalChecks`): the
    /// original order holds exactly the live slots; every slot is live or free, once; the id
    /// table finds every live record by its id; every live record has a segment in every folded
    /// column; the sorted order, once built, holds the same records; the field table's names are
    /// unique and start with the search fields. Traps on the first broken rule.
    ///
    /// - Complexity: O(*n*) in the size of the index.
    package func checkInvariants() {
        let slots = records.generations.count
        invariant(records.fieldPositions.hasUniqueNames, "field names repeat")
        invariant(
            fieldNames.prefix(configuration.searchFields.count).elementsEqual(configuration.searchFields),
            "the field names do not start with the search fields"
        )
        orders.order.checkInvariants()
        invariant(
            orders.order.count == records.live.count,
            "the original order holds \(orders.order.count) slots, \(records.live.count) are live"
        )
        let members = orders.order.array
        for slot in members { invariant(records.live.contains(slot), "slot \(slot) is in the order but not live") }
        var free = Bitset(capacity: slots)
        for slot in records.freeSlots {
            invariant(slot >= 0 && Int(slot) < slots, "free slot \(slot) is out of range")
            invariant(!records.live.contains(slot), "slot \(slot) is both live and free")
            invariant(!free.contains(slot), "slot \(slot) is free twice")
            free.insert(slot)
        }
        invariant(
            records.live.count + records.freeSlots.count == slots,
            "\(records.live.count) live and \(records.freeSlots.count) free of \(slots) slots"
        )

        records.ids.checkInvariants()
        records.slotOfID.checkInvariants(ids: records.ids)
        invariant(
            records.slotOfID.count == records.live.count,
            "the id table holds \(records.slotOfID.count) ids, \(records.live.count) records are live"
        )
        for column in records.values { column.checkInvariants() }

        for folding in folded.foldings {
            for column in folding.columns.storedColumns { column.checkInvariants() }
            guard !members.isEmpty else { continue }
            invariant(folding.columns.isStored, "records without folded columns")
            for column in folding.columns.storedColumns {
                for slot in members { invariant(column.segment(ofSlot: slot) != nil, "slot \(slot) has no segment") }
            }
        }
        if let sortedStorage = orders.sortedStorage {
            sortedStorage.checkInvariants()
            invariant(
                sortedStorage.count == orders.order.count,
                "the sorted order holds \(sortedStorage.count) of \(orders.order.count)"
            )
        }
    }

    /// `checkInvariants()` in a build with `SIFT_INTERNAL_CHECKS`; nothing otherwise. Called after
    /// every edit, bulk insert, snapshot load and compaction. The check is O(*n*), so past
    /// `InternalChecks.everyMutationUpTo` records it runs after one mutation in
    /// *n* / that many (by the index's revision): amortized O(that many) an edit, so that the
    /// suites of long edit sequences over thousands of records still finish.
    @inline(__always)
    func checkAfterMutation() {
        guard InternalChecks.afterEveryMutation else { return }
        let period = UInt64(max(1, count / InternalChecks.everyMutationUpTo))
        if period == 1 || revision % period == 0 { checkInvariants() }
    }
}
