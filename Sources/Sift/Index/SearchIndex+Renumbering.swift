internal import Dispatch
internal import SiftStorage

extension SearchIndex {
    /// Renumberings whose maps an index keeps: a handle made before the last this many is
    /// refused (`SiftError.foreignHandle`), as it cannot be told from another index's.
    static let keptNumberings = 32

    /// Renumbers the slots (see `renumberSlots()`) when at most half of them hold records and
    /// there are at least `minimumSlotsToRenumber`: every public edit that inserts, removes or
    /// updates calls it first, and so does `SearchController` before its edits.
    ///
    /// - Returns: whether it renumbered.
    /// - Complexity: O(1) when it does not; else that of `renumberSlots()`, which the at least
    ///   *n*/2 deletions since the last renumbering (or build) of *n* slots pay for: O(1)
    ///   amortized a deletion.
    @discardableResult
    func renumberSlotsIfWorthwhile() -> Bool {
        let slots = records.generations.count
        guard slots >= knobs.minimumSlotsToRenumber, orders.order.count * 2 <= slots else { return false }
        renumberSlots()
        return true
    }

    /// Gives the records the slots 0..<*n*, in ascending order of their present slots, so that
    /// everything sized by slot (generations, the original and sorted orders, the id table, the
    /// per-segment tables, a placeholder per freed slot in every column) is sized by record again,
    /// as a fresh build of them is: what mass deletion needs to give memory back.
    ///
    /// Handles made before stay valid: the old numbering is kept as a `FormerNumbering` (a little
    /// over a bit per old slot) under the index's old handle tag, and the index takes a new tag.
    /// A handle with an old tag is translated through the renumberings since (O(log *n*) each),
    /// then checked as any handle is: a record keeps its generation in its new slot, so a handle
    /// is refused exactly when its record was deleted or updated. The index keeps the last
    /// `keptNumberings` numberings; a handle older than them is refused.
    ///
    /// Cached results, kept answers and category sets are dropped, and `revision` moves on (an
    /// answer computed before holds old handles: valid, but no longer this numbering's).
    ///
    /// - Complexity: O(*s* + *b*) for *s* slots and *b* bytes of live records' text and folded
    ///   codes, once: every column is copied without its dead parts.
    func renumberSlots() {
        if let rebuilding = folded.rebuilding {
            switch rebuilding {
            case .folded(let folding, let field): folded.foldings[folding].columns[field].abandonRebuild()
            case .values(let position): records.values[position].abandonRebuild()
            case .ids: records.ids.abandonRebuild()
            }
            self.folded.rebuilding = nil
        }
        let survivorBits = records.live.words
        let survivors = records.live.members
        let count = survivors.count
        var newSlot = [Int32](repeating: -1, count: records.generations.count)
        for (new, old) in survivors.enumerated() { newSlot[Int(old)] = Int32(new) }

        // Every column and order is copied on its own: the copies run on all cores (the index's
        // parts are read, not changed, until they are all done).
        let fieldCount = configuration.searchFields.count
        let foldedColumns = folded.foldings.map(\.columns)
        let textColumns = records.values + [records.ids]
        let orders = [orders.order] + (orders.sortedStorage.map { [$0] } ?? [])
        let newFolded = WorkerResults<FoldedColumn>(count: foldedColumns.count * fieldCount)
        let newTexts = WorkerResults<TextColumn>(count: textColumns.count)
        let newOrders = WorkerResults<SlotSequence>(count: orders.count)
        let mapping = newSlot
        let work = UncheckedWork { task in
            var task = task
            if task < foldedColumns.count * fieldCount {
                newFolded.set(task, foldedColumns[task / fieldCount][task % fieldCount].renumbered(survivors))
                return
            }
            task -= foldedColumns.count * fieldCount
            if task < textColumns.count {
                var copy = textColumns[task].renumbered(survivors)
                copy.byteLimit = textColumns[task].byteLimit
                newTexts.set(task, copy)
                return
            }
            task -= textColumns.count
            let sequence = orders[task]
            newOrders.set(task, SlotSequence(sequence.array.map { mapping[Int($0)] }, labelLimit: sequence.labelLimit))
        }
        DispatchQueue.concurrentPerform(
            iterations: foldedColumns.count * fieldCount + textColumns.count + orders.count
        ) { work.run($0) }
        for (number, folding) in folded.foldings.enumerated() {
            for field in 0..<fieldCount { folding.columns[field] = newFolded.values[number * fieldCount + field]! }
        }
        let texts = newTexts.values.map { $0! }
        records.values = TextColumns(texts.dropLast(), poolingMinimum: knobs.poolColumnsFromFields)
        records.ids = texts.last!
        folded.slotsAwaitingWordStarts = folded.slotsAwaitingWordStarts.compactMap {
            newSlot[Int($0)] >= 0 ? newSlot[Int($0)] : nil
        }
        let sequences = newOrders.values.map { $0! }
        self.orders.order = sequences[0]
        if self.orders.sortedStorage != nil {
            self.orders.sortedStorage = sequences[1]
            self.orders.sectionOfSlot = survivors.map { self.orders.sectionOfSlot[Int($0)] }
        }
        let keys = self.orders.rankingKeysStorage
        records.generations = records.generations.renumbered(survivors)
        records.live = Bitset.all(count)
        records.freeSlots = []
        guard let table = IDTable.bulk(count: count, ids: records.ids) else {
            preconditionFailure("the ids of live records are distinct")
        }
        records.slotOfID = table
        self.orders.rankingKeysStorage = keys?.renumbered(
            survivors,
            capacity: slotCapacity,
            lengthCapacity: rankingLengthCapacity
        )
        self.orders.categoryMembers = [:]
        discardCachedResults()
        folded.postings.removeAll()

        records.formerNumberings.append(
            FormerNumbering(tag: records.handleTag, survivors: RankedBitset(words: survivorBits))
        )
        if records.formerNumberings.count > Self.keptNumberings { records.formerNumberings.removeFirst() }
        var tag = Self.nextHandleTag()
        while tag == records.handleTag || records.formerNumberings.contains(where: { $0.tag == tag }) {
            tag = Self.nextHandleTag()
        }
        records.handleTag = tag
        revision &+= 1
        buildMissingPostings()
    }

    /// The slot, in the present numbering, of a handle made under a former one.
    ///
    /// - Throws: `SiftError.foreignHandle` when its tag is none of this index's numberings,
    ///   `SiftError.staleHandle` when its record was gone by a renumbering since.
    /// - Complexity: O(*r* log *n*) for the *r* renumberings since the handle was made.
    func slotAfterRenumberings(of handle: RecordHandle) throws(SiftError) -> Int32 {
        let tag = handle.generation & ~SlotGenerations.mask
        guard let made = records.formerNumberings.lastIndex(where: { $0.tag == tag }) else { throw .foreignHandle }
        var slot = handle.slot
        for numbering in records.formerNumberings[made...] {
            guard let next = numbering.newSlot(of: slot) else { throw .staleHandle }
            slot = next
        }
        return slot
    }

    /// The handle a record has now, in the present numbering, from one made under any numbering.
    ///
    /// - Throws: as `resolve(_:)`.
    /// - Complexity: O(1) for a handle of the present numbering, else O(*r* log *n*).
    func currentHandle(_ handle: RecordHandle) throws(SiftError) -> RecordHandle {
        self.handle(ofSlot: try resolve(handle))
    }
}
