internal import Dispatch

extension SearchIndex {
    /// Appends many records in order (the large-batch path of `insert(contentsOf:)`), leaving the
    /// index exactly as inserting them one by one would, with the same errors.
    ///
    /// Before the batches, the ids are hashed on all cores and checked for duplicates in bulk.
    /// Then per batch (`bulkBatchSize` records): workers fold and encode runs of records into their
    /// columns' final form (`BulkPiece`); the code books give the batch's new elements their
    /// codes (in order of first appearance); then, on all cores at once, every column, the ids,
    /// the values and the id table take their share of the batch (each is independent), while
    /// the next batch is folded. Only a short pass per record (order, liveness, caches) stays
    /// sequential.
    ///
    /// - Throws: on the first record that cannot be inserted (a duplicate id, an ICU failure); the
    ///   records before it stay inserted.
    /// - Complexity: O(*s*) in the total size of the records, the work divided among `workers`
    ///   threads.
    func bulkInsert(_ records: [Record], workers: Int) throws(SiftError) {
        let piecesPerBatch = workers == 1 ? 1 : 4 * workers
        let folders = try workerFolders(piecesPerBatch)
        let (hashes, duplicate) = hashAndCheckIDs(records, pieces: piecesPerBatch)
        var pieces = [[BulkPiece]](repeating: [BulkPiece](repeating: BulkPiece(), count: piecesPerBatch), count: 2)
        var batchStart = 0
        var current = 0
        // The first batch is folded alone; every later one while the previous one is committed.
        runBulkStep(records, hashes: hashes, commit: nil, fold: batchRange(0, records.count), into: &pieces[0],
                    committing: [], folders: folders, slots: [])
        while batchStart < records.count {
            let batchEnd = min(records.count, batchStart + bulkBatchSize)
            var limit = batchEnd
            var error: SiftError? = nil
            for piece in pieces[current] {
                if let failure = piece.failure {
                    limit = piece.records.lowerBound + piece.foldedCount
                    error = failure
                    break
                }
            }
            if let duplicate, duplicate < limit {
                limit = duplicate
                error = .duplicateID(records[duplicate].id)
            }
            let committing = pieces[current]
            assignCodes(committing, before: limit)
            let slots = allocateSlots(limit - batchStart)
            if values.count < fieldNames.count {
                values.append(contentsOf: repeatElement(TextColumn(), count: fieldNames.count - values.count))
            }
            slotOfID.prepareToInsert(slots.count, ids: ids)
            let next = error == nil && batchEnd < records.count ? batchRange(batchEnd, records.count) : nil
            runBulkStep(records, hashes: hashes, commit: batchStart..<limit, fold: next, into: &pieces[1 - current],
                        committing: committing, folders: folders, slots: slots)
            for slot in slots {
                live.insert(slot)
                finishCommit(slot)
                insertIntoOrder(slot, at: count)
            }
            if let error { throw error }
            batchStart = batchEnd
            current = 1 - current
        }
    }

    /// The batch that starts at `start`.
    private func batchRange(_ start: Int, _ count: Int) -> Range<Int> { start..<min(count, start + bulkBatchSize) }

    /// Hashes every id on all cores, and finds the first record whose id is already in the index
    /// or repeats an earlier record's.
    private func hashAndCheckIDs(_ records: [Record], pieces: Int) -> (hashes: [Int], duplicate: Int?) {
        var hashes = [Int](repeating: 0, count: records.count)
        var firstKnown = [Int?](repeating: nil, count: pieces)
        let table = slotOfID, ids = self.ids
        let checkKnown = table.count > 0
        hashes.withUnsafeMutableBufferPointer { hashes in
            firstKnown.withUnsafeMutableBufferPointer { firstKnown in
                let work = BulkHashing(records: records, table: table, ids: ids, checkKnown: checkKnown,
                                       hashes: hashes, firstKnown: firstKnown)
                DispatchQueue.concurrentPerform(iterations: pieces) { piece in work.run(piece: piece) }
            }
        }
        let known = firstKnown.compactMap { $0 }.min()
        let repeated = hashes.withUnsafeBufferPointer { hashes in
            IDTable.firstRepeat(hashes: UnsafeBufferPointer(rebasing: hashes[0..<(known ?? records.count)])) { a, b in
                records[a].id.utf8.elementsEqual(records[b].id.utf8)
            }
        }
        return (hashes, [known, repeated].compactMap { $0 }.min())
    }

    /// Gives the elements new in a batch's pieces their codes, in order of first appearance,
    /// for the records before `limit`.
    private func assignCodes(_ pieces: [BulkPiece], before limit: Int) {
        for (number, folding) in foldings.enumerated() {
            for piece in pieces {
                for (element, record) in piece.newElements[number] {
                    if record >= limit { break }
                    _ = folding.codeBook.code(for: element)
                }
            }
        }
    }

    /// Takes `count` slots for new records, as `commit` does: freed ones first.
    private func allocateSlots(_ count: Int) -> [Int32] {
        var slots = [Int32]()
        slots.reserveCapacity(count)
        for _ in 0..<count {
            if let free = freeSlots.popLast() {
                generations[Int(free)] &+= 1
                clearValues(slot: free)
                slots.append(free)
            } else {
                slots.append(Int32(generations.count))
                generations.append(0)
            }
        }
        return slots
    }

    /// One parallel step of a bulk insert: commits the records `commit` (folded in `committing`,
    /// to `slots`) to the columns, values, ids and id table, and folds the records `fold` into
    /// `pieces`, all at once on every core.
    private func runBulkStep(
        _ records: [Record], hashes: [Int], commit: Range<Int>?, fold: Range<Int>?, into pieces: inout [BulkPiece],
        committing: [BulkPiece], folders: [[ICUFolder]], slots: [Int32]
    ) {
        var columns: [FoldedColumn] = []
        var textColumns: [TextColumn] = []
        var table = IDTable()
        if commit != nil {
            // Move the targets out of the index, so that each worker holds the only reference to
            // the one it changes.
            for folding in foldings {
                columns.append(contentsOf: folding.columns)
                folding.columns = []
            }
            textColumns = [ids] + values
            ids = TextColumn()
            values = []
            swap(&table, &slotOfID)
        }
        withCodeBookViews { codeBooks in
            pieces.withUnsafeMutableBufferPointer { pieces in
                columns.withUnsafeMutableBufferPointer { columns in
                    textColumns.withUnsafeMutableBufferPointer { textColumns in
                        withUnsafeMutablePointer(to: &table) { table in
                            slots.withUnsafeBufferPointer { slots in
                                hashes.withUnsafeBufferPointer { hashes in
                                    let step = BulkStep(
                                        index: self, records: records, folders: folders, codeBooks: codeBooks,
                                        fieldNames: fieldNames, fieldsPerFolding: configuration.searchFields.count,
                                        commit: commit ?? 0..<0, committing: committing, slots: slots, hashes: hashes,
                                        columns: columns, textColumns: textColumns, table: table,
                                        fold: fold ?? 0..<0, pieces: pieces)
                                    step.run()
                                }
                            }
                        }
                    }
                }
            }
        }
        if commit != nil {
            let fields = configuration.searchFields.count
            for (number, folding) in foldings.enumerated() {
                folding.columns = Array(columns[(number * fields)..<((number + 1) * fields)])
            }
            columns = []
            ids = textColumns[0]
            values = Array(textColumns.dropFirst())
            textColumns = []
            swap(&table, &slotOfID)
        }
    }

    /// Calls `body` with a read-only view of every folding's code book.
    private func withCodeBookViews<R>(_ views: [CodeBookView] = [], _ body: ([CodeBookView]) -> R) -> R {
        if views.count == foldings.count { return body(views) }
        return foldings[views.count].codeBook.withView { view in withCodeBookViews(views + [view], body) }
    }
}

/// What the workers of the bulk insert's id hashing share.
///
/// `@unchecked Sendable` is sound here: workers read the records, the id table and the ids
/// without changing them, each writes only the hashes of its own records and its own
/// `firstKnown` entry, and `DispatchQueue.concurrentPerform` returns only after every worker
/// has finished.
private struct BulkHashing: @unchecked Sendable {
    let records: [Record]
    let table: IDTable
    let ids: TextColumn
    let checkKnown: Bool
    let hashes: UnsafeMutableBufferPointer<Int>
    let firstKnown: UnsafeMutableBufferPointer<Int?>

    func run(piece: Int) {
        let pieces = firstKnown.count
        let start = records.count * piece / pieces, end = records.count * (piece + 1) / pieces
        for index in start..<end {
            let id = records[index].id
            let hash = IDTable.hash(id)
            hashes[index] = hash
            if checkKnown && table.slot(of: id, hash: hash, ids: ids) != nil {
                firstKnown[piece] = index
                return
            }
        }
    }
}

/// What the workers of one step of a bulk insert share: committing a batch (one task per folded
/// column, per text column, and for the id table) and folding the next one (one task per piece).
///
/// `@unchecked Sendable` is sound here: each task changes only its own target (`columns[i]`,
/// `textColumns[i]`, `table` or `pieces[i]`), moved out of the index so that nothing else refers
/// to it; everything else (records, code books, the committed pieces, slots, hashes) is only
/// read, and the code books do not change during the step; `DispatchQueue.concurrentPerform`
/// returns only after every task has finished.
private struct BulkStep: @unchecked Sendable {
    let index: SearchIndex
    let records: [Record]
    let folders: [[ICUFolder]]
    let codeBooks: [CodeBookView]
    let fieldNames: [String]
    let fieldsPerFolding: Int
    let commit: Range<Int>
    let committing: [BulkPiece]
    let slots: UnsafeBufferPointer<Int32>
    let hashes: UnsafeBufferPointer<Int>
    let columns: UnsafeMutableBufferPointer<FoldedColumn>
    let textColumns: UnsafeMutableBufferPointer<TextColumn>
    let table: UnsafeMutablePointer<IDTable>
    let fold: Range<Int>
    let pieces: UnsafeMutableBufferPointer<BulkPiece>

    func run() {
        let commitTasks = commit.isEmpty ? 0 : columns.count + textColumns.count + 1
        let foldTasks = fold.isEmpty ? 0 : pieces.count
        let tasks = commitTasks + foldTasks
        if tasks == 1 {
            runTask(0, commitTasks: commitTasks)
        } else if tasks > 1 {
            DispatchQueue.concurrentPerform(iterations: tasks) { task in runTask(task, commitTasks: commitTasks) }
        }
    }

    private func runTask(_ task: Int, commitTasks: Int) {
        if task >= commitTasks {
            let piece = task - commitTasks
            let start = fold.lowerBound + fold.count * piece / pieces.count
            let end = fold.lowerBound + fold.count * (piece + 1) / pieces.count
            pieces[piece].fold(start..<end, of: records, index: index, folders: folders[piece], codeBooks: codeBooks)
        } else if task < columns.count {
            commitColumn(task)
        } else if task < columns.count + textColumns.count {
            commitTexts(task - columns.count)
        } else {
            table.pointee.insert(
                slots: slots, hashes: UnsafeBufferPointer(rebasing: hashes[commit]))
        }
    }

    /// Appends the committed records' segments to folded column `number`, encoding the deferred
    /// ones now that the code book has their elements.
    private func commitColumn(_ number: Int) {
        let codeBook = codeBooks[number / fieldsPerFolding]
        var single = EncodedSegments()
        for piece in committing {
            let first = piece.records.lowerBound
            let count = min(piece.foldedCount, max(0, commit.upperBound - first))
            guard count > 0 else { continue }
            let encoded = piece.columns[number]
            let owners = UnsafeBufferPointer(rebasing: slots[(first - commit.lowerBound)...])
            var segment = 0
            var deferred = 0
            while segment < count {
                if encoded.isDeferred(segment) {
                    single.removeAll()
                    let text = Int(encoded.deferredTexts[deferred])
                    let encodedNow = piece.deferred.withView { view in single.append(view[text], codeBook: codeBook) }
                    precondition(encodedNow, "the code book lacks an element of a committed text")
                    columns[number].append(
                        single, segments: 0..<1, owners: UnsafeBufferPointer(rebasing: owners[segment...segment]))
                    deferred += 1
                    segment += 1
                } else {
                    var end = segment + 1
                    while end < count && !encoded.isDeferred(end) { end += 1 }
                    columns[number].append(
                        encoded, segments: segment..<end, owners: UnsafeBufferPointer(rebasing: owners[segment..<end]))
                    segment = end
                }
            }
        }
    }

    /// Sets the committed records' ids (text column 0) or values of one field (column `number`,
    /// field `number - 1`).
    private func commitTexts(_ number: Int) {
        if number == 0 {
            for (offset, record) in commit.enumerated() { textColumns[0].set(slots[offset], records[record].id) }
        } else {
            let name = fieldNames[number - 1]
            for (offset, record) in commit.enumerated() {
                if let value = records[record].fields[name], !value.isEmpty { textColumns[number].set(slots[offset], value) }
            }
        }
    }
}
