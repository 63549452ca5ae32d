extension SearchIndex {
    /// Checks every part of the index and how the parts agree (see `InternalChecks`): the
    /// original order holds exactly the live slots; every slot is live or free, once; the id
    /// table finds every live record by its id; every live record has a segment in every folded
    /// column; the sorted order, once built, holds the same records; the field table's names are
    /// unique and start with the search fields. Traps on the first broken rule.
    ///
    /// - Complexity: O(*n*) in the size of the index.
    package func checkInvariants() {
        let slots = generations.count
        invariant(fieldPositions.hasUniqueNames, "field names repeat")
        invariant(
            fieldNames.prefix(configuration.searchFields.count).elementsEqual(configuration.searchFields),
            "the field names do not start with the search fields"
        )
        order.checkInvariants()
        invariant(order.count == live.count, "the original order holds \(order.count) slots, \(live.count) are live")
        let members = order.array
        for slot in members { invariant(live.contains(slot), "slot \(slot) is in the order but not live") }
        var free = Bitset(capacity: slots)
        for slot in freeSlots {
            invariant(slot >= 0 && Int(slot) < slots, "free slot \(slot) is out of range")
            invariant(!live.contains(slot), "slot \(slot) is both live and free")
            invariant(!free.contains(slot), "slot \(slot) is free twice")
            free.insert(slot)
        }
        invariant(
            live.count + freeSlots.count == slots,
            "\(live.count) live and \(freeSlots.count) free of \(slots) slots"
        )

        ids.checkInvariants()
        slotOfID.checkInvariants(ids: ids)
        invariant(
            slotOfID.count == live.count,
            "the id table holds \(slotOfID.count) ids, \(live.count) records are live"
        )
        for column in values { column.checkInvariants() }

        for folding in foldings {
            for column in folding.columns.storedColumns { column.checkInvariants() }
            guard !members.isEmpty else { continue }
            invariant(folding.columns.isStored, "records without folded columns")
            for column in folding.columns.storedColumns {
                for slot in members { invariant(column.segment(ofSlot: slot) != nil, "slot \(slot) has no segment") }
            }
        }
        if let sortedStorage {
            sortedStorage.checkInvariants()
            invariant(
                sortedStorage.count == order.count,
                "the sorted order holds \(sortedStorage.count) of \(order.count)"
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
