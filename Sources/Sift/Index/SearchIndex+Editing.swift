internal import Dispatch
internal import Glibc

extension SearchIndex {
    /// Inserts a record at a position of the original list (at the end when `position` is nil).
    ///
    /// - Returns: The new record's handle.
    /// - Throws: `SiftError.duplicateID`, `.positionOutOfRange`, or an ICU failure; the index is
    ///   unchanged when it throws.
    /// - Complexity: O(*s*) in the size of the record's search fields, plus O(*n*) array moves
    ///   for a position before the end.
    @discardableResult
    public func insert(_ record: Record, at position: Int? = nil) throws(SiftError) -> RecordHandle {
        let position = position ?? count
        guard position >= 0, position <= count else { throw .positionOutOfRange(position, count: count) }
        let slot = try store(record)
        insertIntoOrder(slot, at: position)
        return handle(ofSlot: slot)
    }

    /// Appends records in order. Large batches are folded on all cores.
    ///
    /// - Throws: on the first record that cannot be inserted (a duplicate id, an ICU failure); the
    ///   records before it stay inserted.
    /// - Complexity: O(*s*) in the total size of the records' search fields, the collation work
    ///   divided among the cores.
    public func insert(contentsOf records: [Record]) throws(SiftError) {
        if records.count >= 8192 {
            reserveCapacity(forAdditional: records.count)
            let workers = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
            try bulkInsert(records, workers: workers, trim: records.count >= 65_536)
            return
        }
        registerFields(of: records)
        reserveCapacity(forAdditional: records.count)
        let workers = 1
        let folders = try workerFolders(workers)
        var batches = [FoldedBatch](repeating: FoldedBatch(), count: workers)
        let batchSize = 65_536
        var batchStart = 0
        while batchStart < records.count {
            let batch = records[batchStart..<min(records.count, batchStart + batchSize)]
            let failure = foldInParallel(batch, folders: folders, into: &batches)
            reserveFoldedCapacity(elements: batches.reduce(0) { $0 + $1.elements.count }, records: batch.count)
            let committable = failure?.index ?? batch.count
            let perRecord = foldedTextsPerRecord
            for offset in 0..<committable {
                let worker = offset % workers
                let slot = try batches[worker].withView { view in
                    Result { () throws(SiftError) in
                        try commit(batch[batch.startIndex + offset], folded: view, firstText: (offset / workers) * perRecord)
                    }
                }.get()
                insertIntoOrder(slot, at: count)
            }
            if let failure { throw failure.error }
            batchStart += batch.count
        }
        if records.count >= 65_536 { trimCapacity() }
    }

    /// Folds a batch of records on `folders.count` threads, record `i` by worker `i % workers` into
    /// `batches[worker]`. Returns the first failure (by record), if any.
    private func foldInParallel(_ batch: ArraySlice<Record>, folders: [[ICUFolder]], into batches: inout [FoldedBatch])
        -> (index: Int, error: SiftError)?
    {
        for worker in batches.indices { batches[worker].removeAll() }
        let workers = folders.count
        var failures = [(index: Int, error: SiftError)?](repeating: nil, count: workers)
        batches.withUnsafeMutableBufferPointer { batches in
            failures.withUnsafeMutableBufferPointer { failures in
                let work = ParallelFold(index: self, batch: batch, folders: folders, batches: batches, failures: failures)
                if workers == 1 {
                    work.run(worker: 0)
                } else {
                    DispatchQueue.concurrentPerform(iterations: workers) { worker in work.run(worker: worker) }
                }
            }
        }
        return failures.compactMap { $0 }.min { $0.index < $1.index }
    }

    /// Deletes a record.
    ///
    /// - Throws: `SiftError.staleHandle` when it was already deleted.
    /// - Complexity: O(*s*) in the record's size, plus O(*n*) array moves.
    public func remove(_ handle: RecordHandle) throws(SiftError) {
        let slot = try resolve(handle)
        let position = try self.position(of: handle)
        _ = removeFromOrder(at: position)
        discard(slot)
    }

    /// Deletes the record with this id.
    ///
    /// - Throws: `SiftError.unknownRecord` when there is none.
    public func remove(id: String) throws(SiftError) {
        guard let handle = handle(forID: id) else { throw .unknownRecord(id: id) }
        try remove(handle)
    }

    /// Replaces the record that has `record.id`, keeping its position. Old handles to it become stale.
    ///
    /// - Returns: The updated record's new handle.
    /// - Throws: `SiftError.unknownRecord` when no record has that id.
    /// - Complexity: O(*s*) in the size of the old and new record.
    @discardableResult
    public func update(_ record: Record) throws(SiftError) -> RecordHandle {
        guard let old = handle(forID: record.id) else { throw .unknownRecord(id: record.id) }
        let position = try self.position(of: old)
        let oldRecord = try self.record(old)
        try remove(old)
        do {
            return try insert(record, at: position)
        } catch {
            try insert(oldRecord, at: position)  // folding the old record again cannot fail differently
            throw error
        }
    }

    /// Moves the record at `source` so that it ends up at `destination` in the original list.
    ///
    /// - Throws: `SiftError.positionOutOfRange`.
    /// - Complexity: O(*n*) array moves.
    public func move(from source: Int, to destination: Int) throws(SiftError) {
        guard source >= 0, source < count else { throw .positionOutOfRange(source, count: count) }
        guard destination >= 0, destination < count else { throw .positionOutOfRange(destination, count: count) }
        guard source != destination else { return }
        let slot = removeFromOrder(at: source)
        insertIntoOrder(slot, at: destination)
        orderWasRearranged()
        bumpRevision()
    }
}

/// What the workers of a parallel fold share.
///
/// `@unchecked Sendable` is sound here, and only here: `fold` reads the index without changing
/// it; each worker uses its own ICU folders (`folders[worker]`) and writes only its own batch
/// (`batches[worker]`) and its own `failures` entry; and `DispatchQueue.concurrentPerform`
/// returns only after every worker has finished, before the caller touches the index or the
/// buffers again.
private struct ParallelFold: @unchecked Sendable {
    let index: SearchIndex
    let batch: ArraySlice<Record>
    let folders: [[ICUFolder]]
    let batches: UnsafeMutableBufferPointer<FoldedBatch>
    let failures: UnsafeMutableBufferPointer<(index: Int, error: SiftError)?>

    func run(worker: Int) {
        let workers = folders.count
        var position = worker
        while position < batch.count {
            do throws(SiftError) {
                try index.fold(batch[batch.startIndex + position], folders: folders[worker], into: &batches[worker])
            } catch {
                failures[worker] = (position, error)
                return
            }
            position += workers
        }
    }
}
