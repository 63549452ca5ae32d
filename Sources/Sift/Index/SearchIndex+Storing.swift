// Editing primitives: storing, folding and committing one record's slot, and withdrawing it.
// `SearchIndex+Editing.swift` and `SearchIndex+BulkInsert.swift` compose them.

internal import SiftStorage

extension SearchIndex {
    /// Registers the field names of records so that folding can run without mutating the index.
    func registerFields<S: Sequence>(of records: S) where S.Element == Record {
        for record in records {
            for name in record.fields.keys where self.records.fieldPositions[name] == nil {
                _ = position(ofFieldNamed: name)
            }
        }
    }

    /// Folds a record's search fields with the given folders (one per folding), appending one
    /// folded text per (folding, field) to `batch`. Reads the index, changes nothing: safe to run on
    /// several threads at once with distinct folders and batches. With `deferringDictionaryWords`
    /// (see `ICUFolder.fold(_:into:deferringDictionaryWords:)`), returns whether any text's word
    /// starts were left out. A text long enough to fold in pieces is left for `commit` and
    /// `update` to fold straight into its column (`FoldedBatch.streamed`), and so is every text
    /// while the columns are pooled (`streamsEveryText`).
    @discardableResult
    func fold(
        _ record: Record,
        folders: [ICUFolder],
        into batch: inout FoldedBatch,
        deferringDictionaryWords: Bool = false
    )
        throws(SiftError) -> Bool
    {
        if streamsEveryText {
            for _ in 0..<(folders.count * configuration.searchFields.count) { batch.appendStreamed() }
            return false
        }
        var deferred = false
        for folder in folders {
            for field in configuration.searchFields {
                if try folder.fold(
                    record.fields[field] ?? "",
                    into: &batch,
                    deferringDictionaryWords: deferringDictionaryWords,
                    streamingLongTexts: true
                ) {
                    deferred = true
                }
            }
        }
        return deferred
    }

    /// Whether `fold(_:folders:into:deferringDictionaryWords:)` leaves every text of a record to
    /// be folded straight into its column (`writeFolded`): while the columns are pooled, a
    /// record has a thousand fields or more, and holding all of its collation elements at once
    /// (9 bytes each) would cost more than its columns do.
    var streamsEveryText: Bool { folded.foldings.first?.columns.poolsColumns ?? false }

    /// Stores a record in a free slot, folds it and indexes it everywhere but in the original order.
    func store(_ record: Record) throws(SiftError) -> Int32 {
        guard records.slotOfID.slot(of: record.id, ids: records.ids) == nil else { throw .duplicateID(record.id) }
        if let reused = records.freeSlots.last { prefetchRecord(reused) }
        registerFields(of: CollectionOfOne(record))
        // Fold first: an ICU failure must leave the index unchanged.
        var batch = FoldedBatch()
        let wordStartsDeferred = try foldForEdit(record, into: &batch)
        let slot = try batch.withView { view in
            Result { () throws(SiftError) in try commit(record, folded: view, firstText: 0, idIsNew: true) }
        }.get()
        if wordStartsDeferred { folded.slotsAwaitingWordStarts.append(slot) }
        return slot
    }

    /// Up to this many slots wait for word starts; edits past it fold in full, so that the
    /// next read adds at most this many records' word starts (about 1–2 ms).
    static let maximumSlotsAwaitingWordStarts = 64

    /// Folds a record's search fields for a single-record edit with the index's folders, leaving
    /// out the word starts of dictionary-segmented text while fewer than
    /// `maximumSlotsAwaitingWordStarts` slots wait. Returns whether it left any out: the caller
    /// lists the slot in `slotsAwaitingWordStarts`.
    func foldForEdit(_ record: Record, into batch: inout FoldedBatch) throws(SiftError) -> Bool {
        try fold(
            record,
            folders: folded.foldings.map(\.folder),
            into: &batch,
            deferringDictionaryWords: folded.slotsAwaitingWordStarts.count < Self.maximumSlotsAwaitingWordStarts
        )
    }

    /// Adds the word starts that single-record edits left out (Thai, Chinese, Japanese and other
    /// dictionary-segmented text): an edit stays within its latency budget, and the reads that
    /// follow (searches, highlights, snapshots) see every word start.
    ///
    /// - Throws: an ICU failure; the slots not done stay listed.
    /// - Complexity: O(*s*) in the size of the listed records' search fields.
    func addDeferredWordStarts() throws(SiftError) {
        guard !folded.slotsAwaitingWordStarts.isEmpty else { return }
        var batch = FoldedBatch()
        while let slot = folded.slotsAwaitingWordStarts.last {
            // A slot deleted since (or deleted and reused) needs nothing or is folded as it is now.
            if records.live.contains(slot) {
                batch.removeAll()
                for folding in folded.foldings {
                    for position in configuration.searchFields.indices {
                        try folding.folder.fold(value(at: position, slot: slot), into: &batch)
                    }
                }
                batch.withView { view in
                    var text = 0
                    for folding in folded.foldings {
                        for position in configuration.searchFields.indices {
                            folding.columns[position].setWordStarts(
                                slot: slot,
                                folded: view[text],
                                codeBook: &folding.codeBook
                            )
                            text += 1
                        }
                    }
                }
            }
            folded.slotsAwaitingWordStarts.removeLast()
        }
    }

    /// Stores a folded record in a free slot and indexes it everywhere but in the original order.
    /// Its folded texts are `folded[firstText...]`, one per (folding, search field). `idIsNew`:
    /// the caller has just checked that no record has the id.
    func commit(
        _ record: Record,
        folded: FoldedBatchView,
        firstText: Int,
        idIsNew: Bool = false
    ) throws(SiftError)
        -> Int32
    {
        guard idIsNew || records.slotOfID.slot(of: record.id, ids: records.ids) == nil else {
            throw .duplicateID(record.id)
        }
        try checkTextFits(record)
        let written = try writeFolded(
            record,
            folded: folded,
            firstText: firstText,
            slot: records.freeSlots.last ?? Int32(records.generations.count)
        )
        let slot: Int32
        if let free = records.freeSlots.popLast() {
            slot = free
            records.generations.bump(slot)
        } else {
            slot = Int32(records.generations.count)
            records.generations.append(zeros: 1)
        }
        records.ids.set(slot, record.id)
        setValues(of: record, slot: slot)
        records.slotOfID.insert(slot, ids: records.ids)
        records.live.insert(slot)
        setFolded(slot: slot, folded: folded, firstText: firstText, written: written)
        finishCommit(slot)
        return slot
    }

    /// What `writeFolded` did with a record's folded texts before its commit.
    enum FoldedTextsWrite {
        /// Nothing: `setFolded` sets them from the batch.
        case none
        /// Segments written at the end of each column, for `setFolded` to finish.
        case pending([FoldedColumn.PendingSegment])
        /// Every text is in its column already, as the slot's.
        case done
    }

    /// Sets a slot's folded texts in every column: `folded[firstText...]`, one per (folding,
    /// search field), or the segments `writeFolded` wrote when it wrote any.
    ///
    /// - Complexity: O(*s*) in the size of the folded texts; O(1) amortized per pending segment.
    func setFolded(slot: Int32, folded: FoldedBatchView, firstText: Int, written: FoldedTextsWrite) {
        capturePostedElements(of: slot)
        if case .done = written { return }
        var text = firstText
        for folding in self.folded.foldings {
            for position in 0..<configuration.searchFields.count {
                if case .pending(let pending) = written {
                    folding.columns[position].finishPending(pending[text - firstText], slot: slot)
                } else {
                    folding.columns[position].set(slot: slot, folded: folded[text], codeBook: &folding.codeBook)
                }
                text += 1
            }
        }
    }

    /// Writes what a record's folded texts need written before its commit (see `setFolded`):
    /// nothing when the batch holds them all; when every text is streamed into pooled columns
    /// (`streamsEveryText`), each straight into its column as `slot`'s, one access a column,
    /// taken back should a later one fail (`PooledColumns.beginRewrite`); otherwise, when some
    /// text is streamed, pending segments (`writePending`).
    ///
    /// - Throws: an ICU failure, after taking back every byte and code it wrote.
    /// - Complexity: O(*s*) in the size of the record's search fields.
    func writeFolded(
        _ record: Record,
        folded: FoldedBatchView,
        firstText: Int,
        slot: Int32
    ) throws(SiftError) -> FoldedTextsWrite {
        let texts = firstText..<(firstText + foldedTextsPerRecord)
        guard folded.hasStreamed(texts) else { return .none }
        // In place: the postings would have to see each column's old text first.
        if streamsEveryText && self.folded.postings.isEmpty
            && texts.allSatisfy({ folded.isStreamed($0) }),
            try writeInPlace(record, slot: slot)
        {
            return .done
        }
        return .pending(try writePending(record, folded: folded, firstText: firstText))
    }

    /// Folds every search field of a record straight into its pooled column as `slot`'s, in one
    /// access a column (a pooled column is unpacked and packed once), under a rewrite of each
    /// folding's columns. Returns false, with nothing written, when a column ended pooling (it
    /// outgrew the pool): then the columns are as they were, unpooled, for `writePending`.
    ///
    /// - Throws: an ICU failure, after taking back every column and code it wrote.
    /// - Complexity: O(*s*) in the size of the record's search fields; memory 12 bytes a field
    ///   besides the columns (`PooledColumns.beginRewrite`).
    private func writeInPlace(_ record: Record, slot: Int32) throws(SiftError) -> Bool {
        let fields = configuration.searchFields
        let foldings = folded.foldings
        let codeCounts = foldings.map(\.codeBook.count)
        var opened = 0
        func takeBack() {
            for folding in foldings[..<opened] { folding.columns.rollBackRewrite() }
            for (folding, count) in zip(foldings, codeCounts) { folding.codeBook.removeCodes(after: count) }
        }
        for folding in foldings {
            guard folding.columns.beginRewrite(reservingColumns: fields.count) else {
                takeBack()
                return false
            }
            opened += 1
            // One access to the column: folded, then finished as the slot's.
            func write(_ value: String, into column: inout FoldedColumn) throws(SiftError) {
                let segment = try Self.foldStreamed(
                    value,
                    folder: folding.folder,
                    into: &column,
                    codeBook: &folding.codeBook
                )
                column.finishPending(segment, slot: slot)
            }
            for position in fields.indices {
                do throws(SiftError) {
                    try write(record.fields[fields[position]] ?? "", into: &folding.columns[position])
                } catch {
                    takeBack()
                    throw error
                }
                guard folding.columns.isPooled else {
                    // This folding's rewrite was rolled back as pooling ended (`takeBack` passes it by).
                    takeBack()
                    return false
                }
            }
        }
        for folding in foldings { folding.columns.endRewrite() }
        return true
    }

    /// When a record has a streamed text (see `FoldedBatch.streamed`): writes each of its folded
    /// texts, in order, at the end of its column (`FoldedColumn.beginPending`), folding the
    /// streamed ones a piece at a time straight into the column, so that a long text never
    /// exists as collation elements (8 bytes each) but only as codes. New elements get the codes
    /// `set(slot:folded:codeBook:)` would give them. Returns the segments, or none when there is
    /// no streamed text (then `setFolded` sets them as usual).
    ///
    /// - Throws: an ICU failure, after taking back every byte and code it wrote.
    /// - Complexity: O(*s*) in the size of the record's search fields; memory O(*p*) besides
    ///   the columns for pieces of *p* bytes (`ICUFolder.pieceLength`).
    func writePending(
        _ record: Record,
        folded: FoldedBatchView,
        firstText: Int
    ) throws(SiftError) -> [FoldedColumn.PendingSegment] {
        let fields = configuration.searchFields
        let codeCounts = self.folded.foldings.map(\.codeBook.count)
        var pending: [FoldedColumn.PendingSegment] = []
        pending.reserveCapacity(self.folded.foldings.count * fields.count)
        var text = firstText
        for folding in self.folded.foldings {
            for position in fields.indices {
                if folded.isStreamed(text) {
                    let value = record.fields[fields[position]] ?? ""
                    do throws(SiftError) {
                        // One access to the column: a pooled one is unpacked and packed once.
                        pending.append(
                            try Self.foldStreamed(
                                value,
                                folder: folding.folder,
                                into: &folding.columns[position],
                                codeBook: &folding.codeBook
                            )
                        )
                    } catch {
                        discardPending(pending, firstText: firstText, codeCounts: codeCounts)
                        throw error
                    }
                    if folding.folder.foldsInPieces(value) { self.folded.streamedTextCount += 1 }
                } else {
                    var segment = folding.columns[position].beginPending(reserving: 4 * folded[text].elements.count)
                    folding.columns[position].appendPending(folded[text], codeBook: &folding.codeBook, to: &segment)
                    pending.append(segment)
                }
                text += 1
            }
        }
        return pending
    }

    /// Folds a text a piece at a time straight into a pending segment at the end of `column`
    /// (see `writePending` and `writeInPlace`).
    ///
    /// - Throws: an ICU failure, after taking back what it wrote in the column (not the codes).
    private static func foldStreamed(
        _ value: String,
        folder: ICUFolder,
        into column: inout FoldedColumn,
        codeBook: inout CodeBook
    ) throws(SiftError) -> FoldedColumn.PendingSegment {
        var segment = column.beginPending(reserving: 2 * value.utf8.count)
        do throws(SiftError) {
            try folder.forEachPiece(of: value) { piece in
                column.appendPending(piece, codeBook: &codeBook, to: &segment)
            }
        } catch {
            column.discardPending(segment)
            throw error
        }
        return segment
    }

    /// Takes back the segments `writePending` wrote (in reverse order) and the codes it gave.
    func discardPending(_ pending: [FoldedColumn.PendingSegment], firstText: Int, codeCounts: [Int]) {
        let fields = configuration.searchFields.count
        for text in pending.indices.reversed() {
            folded.foldings[text / fields].columns[text % fields].discardPending(pending[text])
        }
        for (folding, count) in zip(folded.foldings, codeCounts) { folding.codeBook.removeCodes(after: count) }
    }

    /// The last part of committing a record, once its values, id and folded texts are stored and
    /// it is live: the sorted order, ranking keys, category members and cached results take it in.
    ///
    /// - Complexity: O(*c*) for *c* cached results, plus O(log *n*) comparisons once the sorted
    ///   order is built.
    func finishCommit(_ slot: Int32) {
        insertSorted(slot)
        updateRankingKeys(slot)
        for (field, var members) in orders.categoryMembers {
            members[value(at: field, slot: slot), default: Bitset(capacity: records.generations.count)].insert(slot)
            orders.categoryMembers[field] = members
        }
        noteEdit(slot: slot)
        revision &+= 1
        advanceCompaction()
    }

    /// Whether the sorted order has been built (from then on, every commit places its record).
    var sortedIsBuilt: Bool { orders.sortedStorage != nil }

    /// Whether category members have been built (from then on, every commit adds its record).
    var categoryMembersAreBuilt: Bool { !orders.categoryMembers.isEmpty }

    /// Number of folded texts per record: one per (folding, search field).
    var foldedTextsPerRecord: Int { folded.foldings.count * configuration.searchFields.count }

    /// Makes room in the folded columns for a batch's codes.
    func reserveFoldedCapacity(elements: Int, records: Int) {
        for folding in folded.foldings where !folding.columns.poolsColumns {
            for position in folding.columns.indices {
                // Every field gets a segment per record: this stores each field's column.
                folding.columns[position].reserveCapacity(
                    bytes: elements / max(1, foldedTextsPerRecord) + records,
                    segments: records
                )
            }
        }
    }

    /// Throws unless the record's id and values fit in their text columns (4 GiB each), so that
    /// `commit` never fails halfway.
    ///
    /// - Complexity: O(*f*) for *f* fields.
    func checkTextFits(_ record: Record, at storedSlot: Int32? = nil) throws(SiftError) {
        let slot = storedSlot ?? records.freeSlots.last ?? Int32(records.generations.count)
        var total = record.id.utf8.count
        for value in record.fields.values { total += value.utf8.count }
        if records.ids.hasAmpleRoom(for: total, at: slot)
            && records.values.allSatisfy({ $0.hasAmpleRoom(for: total, at: slot) })
        {
            return
        }
        guard records.ids.canStore(record.id.utf8.count, at: slot) else { throw .capacityExceeded("ids take 4 GiB") }
        for (name, value) in record.fields where !value.isEmpty {
            let position = records.fieldPositions[name] ?? records.values.count
            let column = position < records.values.count ? records.values[position] : TextColumn()
            guard column.canStore(value.utf8.count, at: slot) else {
                throw .capacityExceeded("the values of field '\(name)' take 4 GiB")
            }
        }
    }

    /// Stores a record's field values in the value columns (replacing the slot's old values; a
    /// field the record lacks becomes empty).
    func setValues(of record: Record, slot: Int32) {
        if records.values.count < fieldNames.count {
            records.values.append(
                contentsOf: repeatElement(TextColumn(), count: fieldNames.count - records.values.count)
            )
        }
        for position in records.values.indices {
            let value = record.fields[fieldNames[position]] ?? ""
            if Int(slot) < records.values[position].slotCount
                ? records.values[position].equals(slot, value) : value.isEmpty
            {
                continue
            }
            records.values[position].set(slot, value)
        }
    }

    /// Clears a slot's values.
    func clearValues(slot: Int32) {
        for position in records.values.indices
        where Int(slot) < records.values[position].slotCount && !records.values[position].equals(slot, "") {
            records.values[position].set(slot, "")
        }
    }

    /// Id order of two slots, by UTF-8 bytes (the tie-break of the sorted order).
    func idPrecedes(_ a: Int32, _ b: Int32) -> Bool {
        records.ids.withUTF8(a) { x in records.ids.withUTF8(b) { y in x.lexicographicallyPrecedes(y) } }
    }

    /// Makes room for `count` more records in the per-slot arrays.
    func reserveCapacity(forAdditional count: Int) {
        let total = records.generations.count + count
        records.ids.reserveCapacity(slots: count, bytes: 8 * count)
        records.generations.reserveCapacity(total)
        records.slotOfID.prepareToInsert(count, ids: records.ids)
    }

    /// Drops spare capacity from the large buffers: after a load made of several bulk
    /// ``insert(contentsOf:)`` calls (each of fewer than 65,536 records, which keeps its spare
    /// capacity for the next), as a single call of 65,536 records or more does by itself.
    ///
    /// - Complexity: O(*s*) in the size of the index (each large buffer is copied once).
    public func trimCapacity() {
        defer { checkAfterMutation() }
        records.ids.trimCapacity()
        for position in records.values.indices { records.values[position].trimCapacity() }
        for folding in folded.foldings { folding.columns.forEachStored { $0.trimCapacity() } }
        records.generations.trimCapacity()
        orders.order.trimCapacity()
    }

    /// Folders for worker threads: `workers` sets of one folder per folding (the first set is the
    /// index's own).
    func workerFolders(_ workers: Int) throws(SiftError) -> [[ICUFolder]] {
        var result = [folded.foldings.map(\.folder)]
        for _ in 1..<max(1, workers) {
            result.append(
                try folded.foldings.map { folding throws(SiftError) in
                    let folder = try ICUFolder(folding.folder.collator)
                    folder.pieceLength = folding.folder.pieceLength
                    return folder
                }
            )
        }
        return result
    }

    /// Removes a slot from everything but the original order.
    func discard(_ slot: Int32) {
        capturePostedElements(of: slot)
        for folding in folded.foldings {
            for position in 0..<configuration.searchFields.count {
                folding.columns[position].remove(slot: slot)
            }
        }
        withdrawFromDerivedSets(slot)
        records.live.remove(slot)
        noteEdit(slot: slot)
        records.slotOfID.remove(records.ids.string(slot), ids: records.ids)
        records.ids.set(slot, "")
        clearValues(slot: slot)
        records.freeSlots.append(slot)
        revision &+= 1
        advanceCompaction()
    }

    /// Asks for the scattered cache lines an edit of `slot` will read (its generation, value
    /// groups and folded-segment entries), so that their misses overlap each other and the
    /// collator's work on the new text instead of following one by one.
    func prefetchRecord(_ slot: Int32) {
        records.generations.prefetch(slot)
        records.values.forEachStoredInArray { $0.prefetch(slot) }
        for folding in folded.foldings {
            folding.columns.forEachStoredInArray { $0.prefetch(slot: slot) }
        }
    }

    /// Takes a slot out of the sorted order and the category sets (once built), by its values as
    /// they are now; `finishCommit` puts it back by its new values.
    func withdrawFromDerivedSets(_ slot: Int32) {
        orders.sortedStorage?.remove(slot)
        for (field, var members) in orders.categoryMembers {
            members[value(at: field, slot: slot)]?.remove(slot)
            orders.categoryMembers[field] = members
        }
    }

    func insertIntoOrder(_ slot: Int32, at position: Int) { orders.order.insert(slot, at: position) }

    func removeFromOrder(at position: Int) -> Int32 { orders.order.remove(at: position) }

    /// Section, then collation order of two slots by sort field, ties by id (the order `sorted`
    /// is built in).
    func sortsBefore(_ a: Int32, _ b: Int32) -> Bool {
        let sectionA = orders.sectionOfSlot[Int(a)]
        let sectionB = orders.sectionOfSlot[Int(b)]
        if sectionA != sectionB { return sectionA < sectionB }
        let comparison = orders.sortFolder.compare(
            value(at: orders.sortFieldPosition, slot: a),
            value(at: orders.sortFieldPosition, slot: b)
        )
        if comparison != 0 { return comparison < 0 }
        return idPrecedes(a, b)
    }

    /// Places a new slot in the sorted order, if that order has been built.
    ///
    /// - Complexity: O(log *n*) collator comparisons plus O(*k*) for blocks of *k* entries.
    func insertSorted(_ slot: Int32) {
        guard orders.sortedStorage != nil else { return }
        if orders.sectionOfSlot.count < records.generations.count {
            orders.sectionOfSlot.append(
                contentsOf: repeatElement(0, count: records.generations.count - orders.sectionOfSlot.count)
            )
        }
        orders.sectionOfSlot[Int(slot)] = UInt16(
            clamping: orders.alphabeticIndex.bucket(of: value(at: orders.sortFieldPosition, slot: slot))
        )
        var low = 0
        var high = orders.sortedStorage!.count
        while low < high {
            let mid = (low + high) / 2
            if sortsBefore(orders.sortedStorage![mid], slot) { low = mid + 1 } else { high = mid }
        }
        orders.sortedStorage!.insert(slot, at: low)
    }

    func bumpRevision() { revision &+= 1 }

    /// Tells the cached field results and the postings that a slot was inserted, updated or freed
    /// (see `MatchCache`, `ElementPostings`).
    func noteEdit(slot: Int32) {
        caches.matches.noteEdit(slot: slot)
        folded.postings.noteEdit(slot: slot)
    }
}
