internal import SiftStorage

extension SearchIndex {
    /// Inserts a record at a position of the original list (at the end when `position` is nil).
    ///
    /// The word starts of text ICU segments with a dictionary (Thai, Lao, Khmer, Myanmar,
    /// Chinese, Japanese) are added by the next read (search, match check, highlight or
    /// snapshot), up to 64 records; `update(_:)` does the same.
    ///
    /// - Returns: The new record's handle.
    /// - Throws: `SiftError.duplicateID`, `.positionOutOfRange`, or an ICU failure; the index is
    ///   unchanged when it throws.
    /// - Complexity: O(*s*) in the size of the record's search fields, plus the original order's
    ///   insert (`SlotSequence`): O(log *n*) while the order follows slot numbers, O(*k* + *b*) for
    ///   *b* blocks of at most *k* = 1024 records otherwise (a one-time O(*n*) when an insert
    ///   before the end first breaks that order).
    @discardableResult
    public func insert(_ record: Record, at position: Int? = nil) throws(SiftError) -> RecordHandle {
        defer { checkAfterMutation() }
        let position = position ?? count
        guard position >= 0, position <= count else { throw .positionOutOfRange(position, count: count) }
        renumberSlotsIfWorthwhile()
        let slot = try store(record)
        insertIntoOrder(slot, at: position)
        return handle(ofSlot: slot)
    }

    /// Appends records in order, as inserting them one by one at the end would.
    ///
    /// From 8,192 records on, the bulk path (`bulkInsert`) folds and encodes the records on all
    /// cores and commits every column, the values, the ids and the id table in parallel; smaller
    /// batches are folded first, then committed record by record. A record with a text long
    /// enough to fold in pieces (`ICUFolder.pieceLength`, 256 KiB) is inserted on its own between
    /// runs of the others, its text folded straight into its column, so that no batch holds its
    /// collation elements.
    ///
    /// - Throws: on the first record that cannot be inserted (a duplicate id, including one
    ///   repeated within `records`, or an ICU failure); the records before it stay inserted, that
    ///   one and the later ones are not. ``SiftError/capacityExceeded(_:)``, before inserting any,
    ///   when ``memoryCheckMinimumRecords`` records or more would not fit in what the process's
    ///   ``MemoryBudget`` leaves (``estimatedMemory(of:configuration:)``).
    /// - Complexity: O(*s*) in the total size of the records, the collation and encoding work
    ///   divided among the cores for large batches.
    public func insert(contentsOf records: [Record]) throws(SiftError) {
        defer {
            if records.count >= 8192 { buildMissingPostings() }
            checkAfterMutation()
        }
        if records.count >= Self.memoryCheckMinimumRecords {
            let need = Self.estimatedMemory(of: records, configuration: configuration)
            try MemoryBudget.current().require(need, for: "indexing \(records.count) records")
        }
        renumberSlotsIfWorthwhile()
        if records.count >= 8192 {
            reserveCapacity(forAdditional: records.count)
            let trim = records.count >= 65_536
            // A record with a text long enough to fold in pieces is inserted on its own, which
            // folds that text a piece at a time straight into its column: the bulk path holds a
            // batch's collation elements (8 bytes each), 20 times a long text's size and more.
            let long = records.indices.filter { hasTextFoldedInPieces(records[$0]) }
            guard !long.isEmpty else {
                try bulkInsert(records, workers: ParallelWork.cores, trim: trim)
                return
            }
            var start = 0
            for end in long + [records.count] {
                let run = Array(records[start..<end])
                if run.count >= 8192 {
                    try bulkInsert(run, workers: ParallelWork.cores, trim: false)
                } else {
                    try insertFoldingFirst(run)
                }
                if end < records.count { try insert(records[end]) }
                start = end + 1
            }
            if trim { trimCapacity() }
            return
        }
        try insertFoldingFirst(records)
    }

    /// Whether a search field of `record` is long enough to fold in pieces (see
    /// `ICUFolder.foldsInPieces(_:)`) under some folding.
    ///
    /// - Complexity: O(*f*) for *f* search fields and foldings.
    private func hasTextFoldedInPieces(_ record: Record) -> Bool {
        configuration.searchFields.contains { field in
            guard let text = record.fields[field] else { return false }
            return folded.foldings.contains { $0.folder.foldsInPieces(text) }
        }
    }

    /// Appends records in order, folding them all first, then committing them one by one (the
    /// path of fewer than 8,192 records).
    private func insertFoldingFirst(_ records: [Record]) throws(SiftError) {
        registerFields(of: records)
        reserveCapacity(forAdditional: records.count)
        guard !records.isEmpty else { return }
        // Fold every record first: an ICU failure commits the records before it and no other.
        let folders = folded.foldings.map(\.folder)
        var batch = FoldedBatch()
        // Sized up front (about an element per UTF-8 byte; past that the buffers grow as arrays
        // do): a record of a million fields is folded without copying its buffers as they double.
        var bytes = 0
        if !streamsEveryText {
            for record in records {
                for field in configuration.searchFields { bytes += record.fields[field]?.utf8.count ?? 0 }
            }
        }
        batch.ends.reserveCapacity(records.count * foldedTextsPerRecord)
        batch.elements.reserveCapacity(bytes * folders.count)
        batch.flags.reserveCapacity(bytes * folders.count)
        var failure: (index: Int, error: SiftError)? = nil
        for (offset, record) in records.enumerated() {
            do throws(SiftError) {
                try fold(record, folders: folders, into: &batch)
            } catch {
                failure = (offset, error)
                break
            }
        }
        reserveFoldedCapacity(elements: batch.elements.count, records: records.count)
        let perRecord = foldedTextsPerRecord
        for offset in 0..<(failure?.index ?? records.count) {
            let slot = try batch.withView { view in
                Result { () throws(SiftError) in
                    try commit(records[offset], folded: view, firstText: offset * perRecord)
                }
            }.get()
            insertIntoOrder(slot, at: count)
        }
        if let failure { throw failure.error }
    }

    /// Deletes a record.
    ///
    /// - Throws: `SiftError.staleHandle` when it was already deleted.
    /// - Complexity: O(*s*) in the record's size, plus the original order's remove: O(log *n*),
    ///   or O(*k* + *b*) once the order is in blocks (see `insert(_:at:)`).
    public func remove(_ handle: RecordHandle) throws(SiftError) {
        defer { checkAfterMutation() }
        _ = try resolve(handle)  // a handle that is not this index's changes nothing
        renumberSlotsIfWorthwhile()
        let slot = try resolve(handle)
        prefetchRecord(slot)  // the misses overlap each other instead of following one by one
        let position = try self.position(of: handle)
        _ = removeFromOrder(at: position)
        discard(slot)
    }

    /// Deletes the record with this id.
    ///
    /// - Throws: `SiftError.unknownRecord` when there is none.
    /// - Complexity: that of `remove(_:)`, plus an O(1) expected id lookup.
    public func remove(id: String) throws(SiftError) {
        defer { checkAfterMutation() }
        guard let handle = handle(forID: id) else { throw .unknownRecord(id: id) }
        try remove(handle)
    }

    /// Replaces the record that has `record.id`, keeping its position. Old handles to it become stale.
    ///
    /// The record keeps its slot, its place in the original order and its entry in the id table:
    /// only its values, folded texts and (once built) sorted place and category sets change.
    ///
    /// - Returns: The updated record's new handle.
    /// - Throws: `SiftError.unknownRecord` when no record has that id, or an ICU or capacity
    ///   failure; the index is unchanged when it throws.
    /// - Complexity: O(*s*) in the size of the old and new record, plus O(log *n*) comparisons
    ///   once the sorted order is built.
    @discardableResult
    public func update(_ record: Record) throws(SiftError) -> RecordHandle {
        defer { checkAfterMutation() }
        guard records.slotOfID.slot(of: record.id, ids: records.ids) != nil else { throw .unknownRecord(id: record.id) }
        renumberSlotsIfWorthwhile()
        let slot = records.slotOfID.slot(of: record.id, ids: records.ids)!
        prefetchRecord(slot)
        registerFields(of: CollectionOfOne(record))
        // Everything that can fail comes first.
        var batch = FoldedBatch()
        let wordStartsDeferred = try foldForEdit(record, into: &batch)
        try checkTextFits(record, at: slot)
        try batch.withView { view in
            Result { () throws(SiftError) in
                let written = try writeFolded(record, folded: view, firstText: 0, slot: slot)
                withdrawFromDerivedSets(slot)
                records.generations.bump(slot)
                setValues(of: record, slot: slot)
                setFolded(slot: slot, folded: view, firstText: 0, written: written)
            }
        }.get()
        finishCommit(slot)
        if wordStartsDeferred { folded.slotsAwaitingWordStarts.append(slot) }
        return handle(ofSlot: slot)
    }

    /// Moves the record at `source` so that it ends up at `destination` in the original list.
    ///
    /// - Throws: `SiftError.positionOutOfRange`.
    /// - Complexity: O(*k* + *b*) for *b* blocks of at most *k* = 1024 records (the first move
    ///   of a list still in slot order puts it in blocks: O(*n*), once).
    public func move(from source: Int, to destination: Int) throws(SiftError) {
        defer { checkAfterMutation() }
        guard source >= 0, source < count else { throw .positionOutOfRange(source, count: count) }
        guard destination >= 0, destination < count else { throw .positionOutOfRange(destination, count: count) }
        guard source != destination else { return }
        let slot = removeFromOrder(at: source)
        insertIntoOrder(slot, at: destination)
        bumpRevision()
    }
}
